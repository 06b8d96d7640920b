import {
  actingPrincipal,
  actingUser,
  assertEmailVerified,
  assertUser,
  invalidRole,
} from '../../mechanisms/authorization.js';
import type { Services } from '../../mechanisms/services.js';
import type { ApiKeyRecord } from '../../ports/api-key-store.js';
import type { Principal } from '../../vocabulary/claims.js';
import { type FieldError, forbidden, notFound, validationError } from '../../vocabulary/errors.js';
import { normalizeUuid, uuidv7 } from '../../vocabulary/ids.js';
import { LIST_LIMITS } from '../../vocabulary/list-limits.js';
import type { ApiKey, RequestContext } from '../../vocabulary/records.js';
import { atLeast, isRole, type Role } from '../../vocabulary/roles.js';
import { secretHashOf } from './api-key-verification.js';

/**
 * What `createApiKey` takes (`POST /tenants/me/api-keys`). Values are validated by core.
 *
 * @example
 * const input: CreateApiKeyInput = { name: 'CI deploys', role: 'member', expiresInDays: 90 };
 */
export interface CreateApiKeyInput {
  /** 1 to 100 characters once trimmed. */
  name: string;
  /** At most the creator's role. */
  role: Role;
  /** Whole days from now, 1 to 3650; none: the key never expires. */
  expiresInDays?: number | null | undefined;
}

/**
 * A new API key and its secret: the secret is answered this once and never again.
 *
 * @example
 * const { apiKey, secret }: CreatedApiKey = await auth.createApiKey(claims, { name: 'CI', role: 'member' });
 */
export interface CreatedApiKey {
  apiKey: ApiKey;
  /** `tak_` and 43 base64url characters (256 random bits). */
  secret: string;
}

/** @internal Limits of the inputs, for the HTTP contract. */
export const API_KEY_INPUT = { nameMaxLength: 100, maxExpiresInDays: 3650 } as const;

const DAY_MS = 86_400_000;

/** @internal A stored key as the API answers it. */
export const apiKeyOf = (key: ApiKeyRecord): ApiKey => ({
  id: key.id,
  name: key.name,
  role: key.role,
  prefix: key.prefix,
  createdAt: key.createdAt,
  createdBy: key.createdBy,
  expiresAt: key.expiresAt,
  lastUsedAt: key.lastUsedAt,
});

function parseInput(input: Partial<CreateApiKeyInput> | undefined) {
  const errors: FieldError[] = [];
  const rawName: unknown = input?.name;
  const name = typeof rawName === 'string' ? rawName.trim() : '';
  if (rawName === undefined || rawName === null || (typeof rawName === 'string' && name === '')) {
    errors.push({ field: 'name', code: 'required', message: 'A name is required.' });
  } else if (typeof rawName !== 'string') {
    errors.push({ field: 'name', code: 'invalid_type', message: 'The name must be a string.' });
  } else if ([...name].length > API_KEY_INPUT.nameMaxLength) {
    errors.push({ field: 'name', code: 'too_long', message: 'At most 100 characters.' });
  } else if (/\p{Cc}/u.test(name)) {
    errors.push({
      field: 'name',
      code: 'invalid_value',
      message: 'The name cannot hold control characters.',
    });
  }
  const role: unknown = input?.role;
  if (!isRole(role)) errors.push(...(invalidRole().errors ?? []));
  const days: unknown = input?.expiresInDays ?? null;
  if (
    days !== null &&
    (typeof days !== 'number' || !Number.isInteger(days) || days < 1 || days > API_KEY_INPUT.maxExpiresInDays)
  ) {
    errors.push({
      field: 'expiresInDays',
      code: 'invalid_value',
      message: `expiresInDays must be a whole number of days from 1 to ${API_KEY_INPUT.maxExpiresInDays}.`,
    });
  }
  if (errors.length > 0) throw validationError(errors);
  return { name, role: role as Role, days: days as number | null };
}

/**
 * @internal Creating, listing and revoking a tenant's API keys (docs/http-api.md, "API keys"). Only users
 * manage keys: a key is refused with `forbidden`. Creating needs a recent authentication, the role admin
 * and a verified email. A revocation counts in `apiKeyRevocations`: this process's cache of verified keys
 * trusts the key no more.
 */
export function createApiKeyManagement(
  services: Pick<Services, 'stores' | 'clock' | 'random' | 'events' | 'requireRecent' | 'apiKeyRevocations'>,
) {
  const { stores, clock, random, events, requireRecent } = services;

  return {
    async createApiKey(
      principal: Principal,
      input: CreateApiKeyInput,
      context: RequestContext = {},
    ): Promise<CreatedApiKey> {
      assertUser(principal);
      await requireRecent(principal);
      const caller = await actingUser(stores, principal, clock.now(), 'admin');
      const { name, role, days } = parseInput(input);
      if (!atLeast(caller.role, role)) throw forbidden('A key cannot have a role above your own.');
      // Checked last, just before anything is written (docs/http-api.md, "Rules that change in 1.2 (closing holes found in 1.1)").
      assertEmailVerified(caller);
      const secret = `tak_${Buffer.from(random(32)).toString('base64url')}`;
      return events.transaction(async (tx, record) => {
        // Under the lock of role changes and removals: a demotion that committed meanwhile counts.
        if (!(await tx.tenants.lock(principal.tenantId))) throw notFound();
        const creator = await actingUser(tx, principal, clock.now(), 'admin');
        if (!atLeast(creator.role, role)) throw forbidden('A key cannot have a role above your own.');
        const now = clock.now();
        const key: ApiKeyRecord = {
          id: uuidv7(clock, random),
          tenantId: principal.tenantId,
          name,
          role,
          prefix: secret.slice(0, 12),
          secretHash: secretHashOf(secret),
          createdAt: now,
          createdBy: creator.id,
          expiresAt: days === null ? null : new Date(now.getTime() + days * DAY_MS),
          lastUsedAt: null,
          revokedAt: null,
        };
        await tx.apiKeys.create(key);
        const parties = {
          tenantId: key.tenantId,
          actorId: creator.id,
          subjectId: key.id,
          sessionId: principal.sessionId,
        };
        await record({ type: 'api_key_created', ...events.base(parties, context) });
        return { apiKey: apiKeyOf(key), secret };
      });
    },

    async listApiKeys(principal: Principal): Promise<ApiKey[]> {
      assertUser(principal);
      await actingPrincipal(stores, principal, clock.now(), 'admin');
      const limit = LIST_LIMITS.apiKeys;
      const keys = await stores.apiKeys.listByTenant(principal.tenantId, { limit });
      return keys.slice(0, limit).map(apiKeyOf);
    },

    async revokeApiKey(principal: Principal, rawId: string, context: RequestContext = {}): Promise<void> {
      assertUser(principal);
      const caller = await actingUser(stores, principal, clock.now(), 'admin');
      const id = normalizeUuid(rawId);
      if (id === null) throw notFound();
      await events.transaction(async (tx, record) => {
        if (!(await tx.apiKeys.revoke(principal.tenantId, id, clock.now()))) throw notFound();
        const parties = {
          tenantId: principal.tenantId,
          actorId: caller.id,
          subjectId: id,
          sessionId: principal.sessionId,
        };
        await record({ type: 'api_key_revoked', ...events.base(parties, context) });
      });
      services.apiKeyRevocations.bump();
    },
  };
}
