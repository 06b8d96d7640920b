import type { AuthMethod } from './auth-methods.js';
import type { PublicUser, Tenant } from './records.js';
import type { Role } from './roles.js';

export { AUTH_METHODS, type AuthMethod } from './auth-methods.js';

/**
 * Verified claims of an access token.
 *
 * @example
 * const { userId, tenantId, sessionId }: AccessClaims = await auth.verifyAccessToken(token);
 */
export interface AccessClaims {
  /** Always a user's (an API key's principal is {@link ApiKeyClaims}); absent on claims built before 1.2. */
  actorType?: 'user';
  userId: string;
  tenantId: string;
  sessionId: string;
  /**
   * The role when the token was signed (up to its lifetime old). Fine for showing or hiding things;
   * operations that need a role check the current one in the stores (`auth.authorize`).
   */
  role: Role;
  /** Whether the email was verified when the token was signed. */
  emailVerified: boolean;
  /**
   * How the session was authenticated (claim `amr`), kept by the session: a refresh never adds to it.
   * A token signed before 1.2 (no `amr` claim) reads as `['pwd']`.
   */
  amr: readonly AuthMethod[];
  /**
   * When the user last proved who they are (claim `auth_time`): registration, invitation acceptance,
   * login, second factor, reauthentication. A token signed before 1.2 reads as the epoch (never recent).
   */
  authTime: Date;
  jti: string;
  issuedAt: Date;
  expiresAt: Date;
}

/**
 * The token response of login, registration and refresh (docs/http-api.md, "Token response").
 *
 * @example
 * const { accessToken, refreshToken, expiresIn }: TokenResponse = await auth.login(input);
 */
export interface TokenResponse {
  user: PublicUser;
  session: { id: string; expiresAt: Date; amr: AuthMethod[]; authTime: Date };
  accessToken: string;
  refreshToken: string;
  tokenType: 'Bearer';
  /** Access token lifetime in seconds. */
  expiresIn: number;
  /** Refresh token lifetime in seconds. */
  refreshExpiresIn: number;
}

/**
 * What registration answers: the token response plus the new tenant.
 *
 * @example
 * const { tenant, accessToken }: RegisterResult = await auth.register(input);
 */
export interface RegisterResult extends TokenResponse {
  tenant: Tenant;
}

/**
 * The principal of a request authenticated with an API key (`Authorization: Bearer tak_…`): the key,
 * its tenant and its role. Never the secret.
 *
 * @example
 * const key: ApiKeyClaims = await auth.verifyApiKey(secret);
 * console.log(key.apiKeyId, key.role);
 */
export interface ApiKeyClaims {
  actorType: 'api_key';
  apiKeyId: string;
  tenantId: string;
  /** The key's role (read again from the stores where a role guards administration). */
  role: Role;
  /** The first 12 characters of the secret, for people to recognise it. */
  prefix: string;
  /** `null` when it never expires. */
  expiresAt: Date | null;
}

/**
 * Who a request acts as: a user (the claims of its access token) or an API key. Tell them apart with
 * {@link isApiKeyPrincipal} (or `actorType`).
 *
 * @example
 * const who = (p: Principal) => (isApiKeyPrincipal(p) ? `key ${p.apiKeyId}` : `user ${p.userId}`);
 */
export type Principal = AccessClaims | ApiKeyClaims;

/**
 * Whether a principal is an API key (and not a user).
 *
 * @example
 * if (isApiKeyPrincipal(principal)) throw new TenantAuthError('forbidden', 'Not for API keys.');
 */
export function isApiKeyPrincipal(principal: Principal): principal is ApiKeyClaims {
  return principal.actorType === 'api_key';
}
