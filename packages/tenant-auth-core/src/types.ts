/** A tenant: the unit of data isolation. */
export interface Tenant {
  id: string;
  /** Lower-case ASCII letters, digits and single hyphens, 3 to 63 characters; unique. */
  slug: string;
  name: string;
  createdAt: Date;
}

/** A user; belongs to exactly one tenant. */
export interface User {
  id: string;
  tenantId: string;
  /** Normalised (trimmed, lower-cased); unique across the whole service. */
  email: string;
  passwordHash: string;
  createdAt: Date;
}

/** A user as it may be shown to clients: never the password hash. */
export interface PublicUser {
  id: string;
  email: string;
  tenantId: string;
}

/**
 * A login session. It holds what is needed to rotate refresh tokens with replay detection:
 * the SHA-256 hash of the current refresh token, the hash of the one it replaced and when, and the
 * `jti` and times of the current token, so an identical child can be re-signed for racing requests.
 * The raw refresh token is never stored.
 */
export interface Session {
  id: string;
  tenantId: string;
  userId: string;
  deviceInfo: string;
  ipAddress: string | null;
  userAgent: string | null;
  createdAt: Date;
  lastUsedAt: Date;
  /** Sliding expiry: 7 days from the last rotation by default, never past `absoluteExpiresAt`. */
  expiresAt: Date;
  /** Hard limit from login (30 days by default). */
  absoluteExpiresAt: Date;
  revokedAt: Date | null;
  /** SHA-256 (hex) of the current refresh token. */
  refreshHash: string;
  /** `jti` of the current refresh token. */
  refreshJti: string;
  /** `iat` of the current refresh token. */
  refreshIssuedAt: Date;
  /** `exp` of the current refresh token. */
  refreshExpiresAt: Date;
  /** SHA-256 (hex) of the refresh token that the current one replaced, if any. */
  previousRefreshHash: string | null;
  /** When the current refresh token replaced the previous one. */
  rotatedAt: Date | null;
}

/** What a client is told about one of its sessions. */
export interface SessionInfo {
  id: string;
  deviceInfo: string;
  ipAddress: string | null;
  userAgent: string | null;
  createdAt: Date;
  lastUsedAt: Date;
  expiresAt: Date;
  current: boolean;
}

/** Where a request came from, as the HTTP adapter sees it. */
export interface RequestContext {
  ipAddress?: string | null;
  userAgent?: string | null;
}
