// The request and response bodies of API keys (docs/http-api.md, "API keys"). Loads nothing but zod at
// run time, as the rest of the contract.
import { z } from 'zod';
import { id, isoDate, roleSchema } from './contract-parts.js';

/**
 * An API key as the API answers it: never its secret.
 *
 * @example
 * const { apiKeys } = apiKeyListSchema.parse(await res.json());
 * for (const key of apiKeys) console.log(key.prefix, key.lastUsedAt);
 */
export const apiKeySchema = z
  .object({
    id: id(),
    name: z.string(),
    role: roleSchema,
    prefix: z
      .string()
      .meta({ description: 'The first 12 characters of the secret (`tak_…`), to recognise it.' }),
    createdAt: isoDate(),
    createdBy: id().nullable().meta({ description: 'The administrator who created it; null once gone.' }),
    expiresAt: isoDate().nullable().meta({ description: 'Null when it never expires.' }),
    lastUsedAt: isoDate().nullable().meta({
      description: 'When it last authenticated a request (at most a minute behind); null if never.',
    }),
  })
  .meta({ id: 'ApiKey', description: 'An API key of the tenant; it holds no secret.' });

/**
 * The body of `POST /tenants/me/api-keys`: the key, and its secret shown this once.
 *
 * @example
 * const { apiKey, secret } = createdApiKeySchema.parse(await res.json());
 */
export const createdApiKeySchema = z
  .object({
    apiKey: apiKeySchema,
    secret: z
      .string()
      .regex(/^tak_[A-Za-z0-9_-]{43}$/)
      .meta({ description: '`tak_` and 256 random bits (base64url): shown this once, never again.' }),
  })
  .meta({ id: 'CreatedApiKey', description: 'The body of `POST /tenants/me/api-keys`.' });

/**
 * The body of `GET /tenants/me/api-keys`.
 *
 * @example
 * const { apiKeys } = apiKeyListSchema.parse(await res.json());
 */
export const apiKeyListSchema = z
  .object({ apiKeys: z.array(apiKeySchema) })
  .meta({ id: 'ApiKeyList', description: 'The body of `GET /tenants/me/api-keys`: keys not revoked.' });

/** @internal The request body of `POST /tenants/me/api-keys`. */
export const createApiKeyRequestSchema = z
  .object({
    name: z.string().min(1).max(100).meta({ description: 'What the key is for, 1 to 100 characters.' }),
    role: roleSchema.meta({ description: "At most the caller's role." }),
    expiresInDays: z
      .int()
      .min(1)
      .max(3650)
      .nullable()
      .optional()
      .meta({ description: 'Days until it expires, 1 to 3650; left out or null: never.' }),
  })
  .meta({ id: 'CreateApiKeyRequest', description: 'The body of `POST /tenants/me/api-keys`.' });

/**
 * JSON of an API key.
 *
 * @example
 * const key = (await res.json()).apiKey as ApiKeyJson;
 */
export type ApiKeyJson = z.output<typeof apiKeySchema>;
