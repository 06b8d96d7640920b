import type { Session, Tenant, User } from '../types.js';

/**
 * Tenants and users. Not found is `null`. Every read that can be scoped to a tenant takes the tenant
 * id, which callers take from verified token claims, never from the request.
 */
export interface TenantAuthStore {
  /**
   * Creates a tenant and its first user atomically: both or neither.
   * Throws `TenantAuthError` with code `email_taken` when the normalised email exists (in any tenant),
   * `slug_taken` when the slug exists, `unavailable` when the storage does not answer.
   */
  createTenantWithOwner(input: { tenant: Tenant; user: User }): Promise<{ tenant: Tenant; user: User }>;
  /** Looks a user up by normalised email, across tenants (login knows no tenant yet). */
  findUserByEmail(email: string): Promise<User | null>;
  findUserById(tenantId: string, userId: string): Promise<User | null>;
  findTenantById(tenantId: string): Promise<Tenant | null>;
}

/** The fields of a session that change when its refresh token rotates. */
export interface SessionRotation {
  refreshHash: string;
  refreshJti: string;
  refreshIssuedAt: Date;
  refreshExpiresAt: Date;
  expiresAt: Date;
  lastUsedAt: Date;
  rotatedAt: Date;
}

/**
 * Sessions. Every method is scoped to a tenant; a session of another tenant is never returned,
 * changed or counted.
 */
export interface SessionStore {
  create(session: Session): Promise<Session>;
  findById(tenantId: string, sessionId: string): Promise<Session | null>;
  /**
   * Finds the session whose current **or previous** refresh hash equals `refreshHash`.
   * Revoked and expired sessions are returned too; the caller decides.
   */
  findByRefreshHash(tenantId: string, refreshHash: string): Promise<Session | null>;
  /**
   * Compare-and-set: rotates only if the session is not revoked and its current refresh hash is still
   * `expectedRefreshHash`; the old current hash becomes the previous one. Returns whether this caller
   * won. Of any number of concurrent callers with the same expected hash, exactly one wins.
   */
  rotate(
    tenantId: string,
    sessionId: string,
    expectedRefreshHash: string,
    next: SessionRotation,
  ): Promise<boolean>;
  /**
   * Revokes one session if it is active and (when `userId` is given) belongs to that user.
   * Returns whether a session was revoked by this call.
   */
  revoke(tenantId: string, sessionId: string, at: Date, options?: { userId?: string }): Promise<boolean>;
  /** Revokes every non-revoked session of a user, optionally but one. Returns how many it revoked. */
  revokeAllForUser(
    tenantId: string,
    userId: string,
    at: Date,
    options?: { exceptSessionId?: string },
  ): Promise<number>;
  /** Sessions of a user that are neither revoked nor expired at `now`, newest first. */
  listActiveForUser(tenantId: string, userId: string, now: Date): Promise<Session[]>;
  /**
   * Deletes at most `batchSize` sessions that expired before `expiredBefore` or were revoked before
   * `revokedBefore`, oldest first, across all tenants. Returns how many it deleted; the caller repeats
   * while a full batch comes back.
   */
  deleteExpired(options: { expiredBefore: Date; revokedBefore: Date; batchSize: number }): Promise<number>;
}

/** Result of recording a hit in a rate-limit window. */
export interface RateLimitHit {
  /** Hits counted in the sliding window, this one included (when its cost is not 0). */
  count: number;
  /** Milliseconds until the window frees a slot (until the count drops by at least one). */
  resetMs: number;
}

/**
 * Storage for sliding-window rate limits. Its one operation is atomic: it records `cost` hits (1 by
 * default, 0 to only read) for a key and returns the count in the window.
 */
export interface RateLimitStore {
  hit(key: string, options: { windowMs: number; now: number; cost?: number }): Promise<RateLimitHit>;
  /** Releases timers and connections the store owns. */
  close?(): Promise<void>;
}
