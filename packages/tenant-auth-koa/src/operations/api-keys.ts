import type { ApiKey, CreateApiKeyInput } from 'tenant-auth-core';
import { type ApiKeyJson, apiKeyListSchema, createdApiKeySchema } from '../api-key-contract.js';
import { requestContext } from '../request-context.js';
import { type BodyOf, defineOperation, type Same } from './define.js';

// The body is core's input, field for field.
true satisfies Same<BodyOf<'createApiKey'>, CreateApiKeyInput>;

const toApiKeyJson = (key: ApiKey): ApiKeyJson => ({
  id: key.id,
  name: key.name,
  role: key.role,
  prefix: key.prefix,
  createdAt: key.createdAt.toISOString(),
  createdBy: key.createdBy,
  expiresAt: key.expiresAt?.toISOString() ?? null,
  lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
});

/** @internal The API keys of the caller's tenant (docs/http-api.md, "API keys"): managed by users, never by a key. */
export const API_KEY_OPERATIONS = [
  defineOperation({
    id: 'createApiKey',
    method: 'POST',
    path: '/tenants/me/api-keys',
    caller: 'admin',
    budget: 'general',
    tag: 'tenants',
    summary: 'Create an API key; its secret is in this answer only.',
    description:
      "Owners and admins, with a recent authentication and a verified email; the key's role is at most the caller's. Only the SHA-256 of the secret is kept.",
    body: 'createApiKey',
    recent: true,
    success: { status: 201, body: createdApiKeySchema, description: 'The key, and its secret (shown once).' },
    problems: ['email_not_verified'],
    handler: async ({ ctx, caller, body }, { auth }) => {
      const { apiKey, secret } = await auth.createApiKey(caller, body, requestContext(ctx));
      return { apiKey: toApiKeyJson(apiKey), secret };
    },
  }),
  defineOperation({
    id: 'listApiKeys',
    method: 'GET',
    path: '/tenants/me/api-keys',
    caller: 'admin',
    budget: 'general',
    tag: 'tenants',
    summary: "The tenant's API keys that are not revoked (never a secret).",
    description: 'Owners and admins.',
    success: { status: 200, body: apiKeyListSchema, description: 'Keys, oldest first.' },
    handler: async ({ caller }, { auth }) => ({
      apiKeys: (await auth.listApiKeys(caller)).map(toApiKeyJson),
    }),
  }),
  defineOperation({
    id: 'revokeApiKey',
    method: 'DELETE',
    path: '/tenants/me/api-keys/:id',
    caller: 'admin',
    budget: 'general',
    tag: 'tenants',
    summary: 'Revoke an API key.',
    description:
      'Owners and admins. The key stops working at once on this instance, and within 5 seconds on every other.',
    params: { id: 'API key id.' },
    success: { status: 204, description: 'Revoked.' },
    problems: ['not_found'],
    handler: async ({ ctx, caller, params }, { auth }) => {
      await auth.revokeApiKey(caller, params.id, requestContext(ctx));
    },
  }),
];
