import { createHash } from 'node:crypto';
import { isKeyActive, keyRoleNow } from '../../mechanisms/authorization.js';
import type { Services } from '../../mechanisms/services.js';
import type { ApiKeyRecord } from '../../ports/api-key-store.js';
import type { ApiKeyCheckOutcome } from '../../ports/instrumentation.js';
import type { ApiKeyClaims } from '../../vocabulary/claims.js';
import { invalidToken } from '../../vocabulary/errors.js';
import type { Role } from '../../vocabulary/roles.js';

/** @internal What every secret starts with (docs/http-api.md, "API keys"): `tak_` and 43 base64url characters (256 bits). */
export const API_KEY_SECRET_PATTERN = /^tak_[A-Za-z0-9_-]{43}$/;

/** @internal `lastUsedAt` is written at most this often per key (docs/http-api.md, "API keys", asks for no write per request). */
export const LAST_USED_INTERVAL_MS = 60_000;

/** The most keys kept verified in one process; the oldest is evicted first. */
const CACHE_SIZE = 10_000;

/** @internal The SHA-256 (hex) of a secret: what is stored, and the cache's key. */
export const secretHashOf = (secret: string): string => createHash('sha256').update(secret).digest('hex');

interface CachedKey {
  claims: ApiKeyClaims;
  /** Trusted without asking the stores until then (ms since the epoch). */
  until: number;
  /** When this process last wrote (or read) `lastUsedAt`, in ms; `null` if never. */
  lastUsedMs: number | null;
  /** `apiKeyRevocations.current` when it was made: a change that ended keys since makes it stale. */
  revision: number;
}

const claimsOf = (key: ApiKeyRecord, role: Role): ApiKeyClaims => ({
  actorType: 'api_key',
  apiKeyId: key.id,
  tenantId: key.tenantId,
  role,
  prefix: key.prefix,
  expiresAt: key.expiresAt,
});

/**
 * @internal Verifying a presented secret with a per-process cache of verified keys: a key costs a hash and
 * a map lookup, and a query only once per `cacheSeconds`. Revocations made through this process count in
 * `apiKeyRevocations` and end the key at once; another instance's are seen within `cacheSeconds` (at
 * most 5). Only keys that verified are cached: an unknown secret always asks the stores (the rate limit in
 * front of it bounds that), so nobody can fill the cache.
 */
export function createApiKeyVerification(
  services: Pick<Services, 'stores' | 'clock' | 'background' | 'apiKeyRevocations'>,
  settings: { cacheSeconds: number; onCheck: (outcome: ApiKeyCheckOutcome) => void },
) {
  const { stores, clock, background, apiKeyRevocations: revocations } = services;
  const cache = new Map<string, CachedKey>();
  // One look-up per key at a time: when a busy key's entry expires, its concurrent requests share it, but
  // only within one count of `revocations` (bumped by every change that ended keys through this process: a
  // revocation, a user deactivated or removed): an entry made, or a look-up started, before one is not
  // trusted, and no request joins such a look-up.
  const lookups = new Map<string, { revision: number; pending: Promise<ApiKeyRecord | null> }>();
  const ttlMs = settings.cacheSeconds * 1000;

  function lookUp(hash: string): Promise<ApiKeyRecord | null> {
    const revision = revocations.current;
    const shared = lookups.get(hash);
    if (shared?.revision === revision) return shared.pending;
    const pending = stores.apiKeys.findBySecretHash(hash).finally(() => {
      if (lookups.get(hash)?.pending === pending) lookups.delete(hash);
    });
    lookups.set(hash, { revision, pending });
    return pending;
  }

  const refuse = (outcome: ApiKeyCheckOutcome) => {
    settings.onCheck(outcome);
    return invalidToken();
  };

  /** Writes `lastUsedAt` in the background, at most once a minute per key from this process. */
  function touch(entry: CachedKey, nowMs: number): void {
    if (entry.lastUsedMs !== null && nowMs - entry.lastUsedMs < LAST_USED_INTERVAL_MS) return;
    entry.lastUsedMs = nowMs;
    const { tenantId, apiKeyId } = entry.claims;
    background.run('api key last use', async () => {
      await stores.apiKeys.touchLastUsed(
        tenantId,
        apiKeyId,
        new Date(nowMs),
        new Date(nowMs - LAST_USED_INTERVAL_MS),
      );
    });
  }

  /** The cached entry of a hash while it is fresh and its key unexpired at `nowMs`. */
  function fresh(hash: string, nowMs: number): CachedKey | undefined {
    const entry = cache.get(hash);
    if (entry === undefined || entry.until <= nowMs || entry.revision !== revocations.current)
      return undefined;
    const { expiresAt } = entry.claims;
    if (expiresAt !== null && expiresAt.getTime() <= nowMs) return undefined;
    return entry;
  }

  return {
    /**
     * The key of a secret if this process verified it recently (a check that counts, and touches
     * `lastUsedAt`, as `verifyApiKey` does), else `undefined`; never asks the stores. The fast path of a
     * request.
     */
    peekApiKey(secret: string): ApiKeyClaims | undefined {
      if (!API_KEY_SECRET_PATTERN.test(secret)) return undefined;
      const nowMs = clock.now().getTime();
      const cached = fresh(secretHashOf(secret), nowMs);
      if (cached === undefined) return undefined;
      settings.onCheck('accepted');
      touch(cached, nowMs);
      return cached.claims;
    },

    /** The key of a secret, or `invalid_token` (unknown, expired, revoked or not a key at all). */
    async verifyApiKey(secret: string): Promise<ApiKeyClaims> {
      if (!API_KEY_SECRET_PATTERN.test(secret)) throw refuse('malformed');
      const hash = secretHashOf(secret);
      const nowMs = clock.now().getTime();
      const cached = fresh(hash, nowMs);
      if (cached !== undefined) {
        settings.onCheck('accepted');
        touch(cached, nowMs);
        return cached.claims;
      }
      cache.delete(hash);
      const started = revocations.current;
      let key = await lookUp(hash);
      // A revocation committed meanwhile may not be in what that look-up read: read again, alone.
      if (revocations.current !== started) key = await stores.apiKeys.findBySecretHash(hash);
      const now = new Date(nowMs);
      if (key === null) throw refuse('unknown');
      if (!isKeyActive(key, now)) throw refuse(key.revokedAt !== null ? 'revoked' : 'expired');
      // A key whose creator has left the tenant works no more (counted as revoked: it was, in effect).
      const role = await keyRoleNow(stores, key);
      if (role === null) throw refuse('revoked');
      const entry: CachedKey = {
        claims: claimsOf(key, role),
        until: nowMs + ttlMs,
        lastUsedMs: key.lastUsedAt?.getTime() ?? null,
        revision: started,
      };
      if (ttlMs > 0 && revocations.current === started) {
        if (cache.size >= CACHE_SIZE) {
          const oldest = cache.keys().next();
          if (!oldest.done) cache.delete(oldest.value);
        }
        cache.set(hash, entry);
      }
      settings.onCheck('accepted');
      touch(entry, nowMs);
      return entry.claims;
    },
  };
}

/** @internal */
export type ApiKeyVerification = ReturnType<typeof createApiKeyVerification>;
