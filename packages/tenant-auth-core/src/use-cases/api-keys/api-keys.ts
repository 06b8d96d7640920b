import { isKeyActive, keyRoleNow } from '../../mechanisms/authorization.js';
import type { Services } from '../../mechanisms/services.js';
import type { ApiKeyClaims, Principal } from '../../vocabulary/claims.js';
import { forbidden, invalidToken } from '../../vocabulary/errors.js';
import type { ApiKey, RequestContext } from '../../vocabulary/records.js';
import { atLeast, type Role } from '../../vocabulary/roles.js';
import {
  apiKeyOf,
  type CreateApiKeyInput,
  type CreatedApiKey,
  createApiKeyManagement,
} from './api-key-management.js';
import { createApiKeyVerification } from './api-key-verification.js';

/**
 * The API keys' part of `TenantAuth` (docs/http-api.md, "API keys"): a tenant's keys, and the check of a
 * presented secret (with a per-process cache of verified keys).
 *
 * @example
 * const apiKeys: TenantAuthApiKeys = auth;
 * const { apiKey, secret } = await apiKeys.createApiKey(claims, { name: 'CI', role: 'member' });
 */
export interface TenantAuthApiKeys {
  /**
   * Creates an API key of the caller's tenant (admin, with a recent authentication and a verified
   * email): `{ apiKey, secret }`, the secret answered this once (only its SHA-256 is stored). Fails
   * with `validation_failed` (`name`, `role`: `invalid_role`, `expiresInDays`), `forbidden` (a role above
   * the caller's, a caller below admin, or an API key as the caller), `reauthentication_required`,
   * `email_not_verified`, `invalid_token`.
   */
  createApiKey(
    principal: Principal,
    input: CreateApiKeyInput,
    context?: RequestContext,
  ): Promise<CreatedApiKey>;
  /** The tenant's API keys that are not revoked, oldest first, at most 1,000 (admin; never a secret). */
  listApiKeys(principal: Principal): Promise<ApiKey[]>;
  /**
   * Revokes an API key (admin): it stops working at once in this process, and within
   * `apiKeyCacheSeconds` in every other. Fails with `not_found` (unknown, already revoked, or another
   * tenant's), `forbidden`.
   */
  revokeApiKey(principal: Principal, apiKeyId: string, context?: RequestContext): Promise<void>;
  /**
   * The key of a presented secret (`tak_…`), or `invalid_token` when it is unknown, expired, revoked or
   * not a key. Verified keys are cached in the process for `apiKeyCacheSeconds`: a cached key costs a
   * hash and a map lookup. `lastUsedAt` is written in the background at most once a minute per key.
   */
  verifyApiKey(secret: string): Promise<ApiKeyClaims>;
  /**
   * The key of a secret if this process verified it within `apiKeyCacheSeconds` (a check like
   * {@link TenantAuthApiKeys.verifyApiKey}'s, counted and touching `lastUsedAt`), else `undefined`; never asks
   * the stores. An HTTP adapter's fast path: it keys the request's rate budget on the key before
   * anything else, and verifies with `verifyApiKey` only what this does not know.
   */
  peekApiKey(secret: string): ApiKeyClaims | undefined;
}

/** @internal The API-key use cases; `cacheSeconds` is how long a verified key is trusted from the cache. */
export function createApiKeys(services: Services, options: { cacheSeconds: number }): TenantAuthApiKeys {
  const { verifyApiKey, peekApiKey } = createApiKeyVerification(services, {
    cacheSeconds: options.cacheSeconds,
    onCheck: services.instrumentation.onApiKeyCheck,
  });
  return { ...createApiKeyManagement(services), verifyApiKey, peekApiKey };
}

/**
 * @internal `authorize` for an API key: the key as the stores know it now, if its role (at most its
 * creator's role now) is at least `minimum`; a key whose creator has left the tenant works no more.
 */
export function createApiKeyAuthorization(services: Pick<Services, 'stores' | 'clock'>) {
  const { stores, clock } = services;
  return async function authorizeApiKey(apiKey: ApiKeyClaims, minimum: Role): Promise<ApiKey> {
    const key = await stores.apiKeys.findById(apiKey.tenantId, apiKey.apiKeyId);
    if (!key || !isKeyActive(key, clock.now())) throw invalidToken();
    const role = await keyRoleNow(stores, key);
    if (role === null) throw invalidToken();
    if (!atLeast(role, minimum)) {
      throw forbidden(
        minimum === 'owner' ? 'Only an owner may do this.' : 'Only an owner or an admin may do this.',
      );
    }
    return { ...apiKeyOf(key), role };
  };
}
