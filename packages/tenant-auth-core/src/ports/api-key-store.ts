import type { ApiKey } from '../vocabulary/records.js';

/**
 * An API key as stored: the {@link ApiKey} the API answers, its tenant, the SHA-256 of its secret (the
 * secret itself is never stored) and when it was revoked.
 *
 * @example
 * const key: ApiKeyRecord | null = await stores.apiKeys.findBySecretHash(sha256Hex(secret));
 */
export interface ApiKeyRecord extends ApiKey {
  tenantId: string;
  /** SHA-256 (hex) of the whole secret (`tak_…`); unique. */
  secretHash: string;
  /** `null` while it works. */
  revokedAt: Date | null;
}

/**
 * API keys of tenants. Every method that takes a tenant is scoped to it: another tenant's keys are
 * never returned or changed. `revoke` and `touchLastUsed` are compare-and-set: of concurrent callers,
 * at most one changes the row.
 *
 * @example
 * if (await stores.apiKeys.revoke(tenantId, keyId, now)) forgetCachedKey(keyId);
 */
export interface ApiKeyStore {
  /** Stores a new key (`lastUsedAt` and `revokedAt` as given, normally `null`). */
  create(key: ApiKeyRecord): Promise<void>;
  /** The key whose secret has that hash, revoked or expired included (the caller judges); else `null`. */
  findBySecretHash(secretHash: string): Promise<ApiKeyRecord | null>;
  /** The key of that tenant with that id, revoked or expired included; else `null`. */
  findById(tenantId: string, id: string): Promise<ApiKeyRecord | null>;
  /** The tenant's keys that are not revoked (expired ones included), oldest first, at most `limit`. */
  listByTenant(tenantId: string, options: { limit: number }): Promise<ApiKeyRecord[]>;
  /** Marks the key revoked at `at` if it is not already. Returns whether this call revoked it. */
  revoke(tenantId: string, id: string, at: Date): Promise<boolean>;
  /**
   * Sets `lastUsedAt` to `at` only when it is `null` or before `staleBefore`, so a busy key costs at most
   * one write per interval however many instances use it. Returns whether this call wrote.
   */
  touchLastUsed(tenantId: string, id: string, at: Date, staleBefore: Date): Promise<boolean>;
  /**
   * Marks revoked at `at` every key of the tenant that `userId` created and that is not revoked yet (a
   * user deactivated). Returns how many it revoked. Optional (new in 1.3): without it core revokes them
   * one by one through {@link ApiKeyStore.listByTenant} and {@link ApiKeyStore.revoke}.
   *
   * @example
   * const revoked = await tx.apiKeys.revokeCreatedBy?.(tenantId, userId, now);
   */
  revokeCreatedBy?(tenantId: string, userId: string, at: Date): Promise<number>;
  /**
   * Deletes at most `batchSize` keys, across all tenants, that were revoked before `before` or expired
   * before it, oldest first. Returns how many it deleted; the caller repeats while a full batch comes
   * back. The scheduled cleanup calls it with the audit retention, so a key is kept while events that
   * name it are. Optional: without it, retired keys stay (as before 1.3).
   */
  deleteRetired?(options: { before: Date; batchSize: number }): Promise<number>;
}
