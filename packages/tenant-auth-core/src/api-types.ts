import type { PublicUser, RequestContext, SessionInfo, Tenant } from './types.js';

/** Verified claims of an access token. */
export interface AccessClaims {
  userId: string;
  tenantId: string;
  sessionId: string;
  jti: string;
  issuedAt: Date;
  expiresAt: Date;
}

/** The token response of login, registration and refresh (API.md, "Token response"). */
export interface AuthResult {
  user: PublicUser;
  session: { id: string; expiresAt: Date };
  accessToken: string;
  refreshToken: string;
  tokenType: 'Bearer';
  /** Access token lifetime in seconds. */
  expiresIn: number;
  /** Refresh token lifetime in seconds. */
  refreshExpiresIn: number;
}

export interface RegisterResult extends AuthResult {
  tenant: Tenant;
}

export type { SessionInfo };

/** The composed service returned by `createTenantAuth`. Every method throws `TenantAuthError`. */
export interface TenantAuth {
  /**
   * Validates `input` (`{ email, password, tenantName?, deviceInfo? }`; unknown fields ignored), creates
   * a tenant and its first user atomically, and logs the user in.
   * Fails with `validation_failed` (field codes include `invalid_email`, `email_taken`, password rules).
   */
  register(input: unknown, context?: RequestContext): Promise<RegisterResult>;
  /**
   * `{ email, password, deviceInfo? }`. Fails with `invalid_credentials` (the same for an unknown email
   * and a wrong password), `validation_failed` for a malformed body, `rate_limited` when the account
   * is throttled, `unavailable` when the hashing queue is full.
   */
  login(input: unknown, context?: RequestContext): Promise<AuthResult>;
  /** Rotates a refresh token (grace-period races get the identical child). Fails with `invalid_token`. */
  refresh(refreshToken: string, context?: RequestContext): Promise<AuthResult>;
  /** Revokes the session named by an access or refresh token. Fails with `invalid_token`. */
  logout(token: string, context?: RequestContext): Promise<void>;
  /**
   * Verifies an access token (signature, algorithm, type, issuer, audience, expiry) and, when
   * `checkSessionOnVerify` is on, that its session is still active. Fails with `invalid_token`.
   */
  verifyAccessToken(token: string): Promise<AccessClaims>;
  /** The caller's active sessions, marking the caller's own. */
  listSessions(claims: AccessClaims): Promise<SessionInfo[]>;
  /** Revokes one of the caller's sessions; `not_found` for any other id. */
  revokeSession(claims: AccessClaims, sessionId: string): Promise<void>;
  /** Revokes all of the caller's sessions, optionally keeping the current one. Returns the count. */
  revokeAllSessions(claims: AccessClaims, options?: { exceptCurrent?: boolean }): Promise<number>;
  /** The tenant with that id if it is the caller's own; `not_found` otherwise. */
  getTenant(claims: AccessClaims, tenantId: string): Promise<Tenant>;
  /** The caller's own tenant. */
  getMyTenant(claims: AccessClaims): Promise<Tenant>;
  /** Public keys of the access-token signer (`{ keys: [] }` for HMAC). */
  jwks(): Promise<{ keys: Record<string, unknown>[] }>;
  /** Deletes expired sessions and revoked ones past retention, in batches. Returns how many. */
  cleanupSessions(): Promise<number>;
  /** Runs `cleanupSessions` on an unref'd timer. */
  startSessionCleanup(options?: { intervalMs?: number; onError?: (err: unknown) => void }): { stop(): void };
}
