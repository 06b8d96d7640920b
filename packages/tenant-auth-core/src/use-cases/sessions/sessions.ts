import type { Services } from '../../mechanisms/services.js';
import type { SessionCheckSettings } from '../../mechanisms/sessions/active-session-cache.js';
import type { AccessClaims, ApiKeyClaims, TokenResponse } from '../../vocabulary/claims.js';
import type { ClientBudget, RateLimitBudget, RateLimitResult } from '../../vocabulary/rate-limit-result.js';
import type { RequestContext, SessionInfo } from '../../vocabulary/records.js';
import { createRotation } from './rotation.js';
import { createSessionAccess } from './session-access.js';

/**
 * The sessions' part of `TenantAuth` (docs/http-api.md, "Endpoints", "Rate limiting and CORS"):
 * refreshing and verifying tokens, the caller's sessions, the public keys, and the per-client rate limits.
 *
 * @example
 * const sessions: TenantAuthSessions = auth;
 * const claims = await sessions.verifyAccessToken(accessToken);
 */
export interface TenantAuthSessions {
  /** Rotates a refresh token (grace-period races get the identical child). Fails with `invalid_token`. */
  refresh(refreshToken: string, context?: RequestContext): Promise<TokenResponse>;
  /** Revokes the session named by an access or refresh token. Fails with `invalid_token`. */
  logout(token: string, context?: RequestContext): Promise<void>;
  /**
   * Verifies an access token (signature, algorithm, type, issuer, audience, expiry) and, when
   * `checkSessionOnVerify` is on, that its session is still active. Fails with `invalid_token`.
   */
  verifyAccessToken(token: string): Promise<AccessClaims>;
  /** The caller's active sessions, newest first, at most 100, marking the caller's own. */
  listSessions(claims: AccessClaims): Promise<SessionInfo[]>;
  /** Revokes one of the caller's sessions; `not_found` for any other id. */
  revokeSession(claims: AccessClaims, sessionId: string, context?: RequestContext): Promise<void>;
  /** Revokes all of the caller's sessions, optionally keeping the current one. Returns the count. */
  revokeAllSessions(
    claims: AccessClaims,
    options?: { exceptCurrent?: boolean },
    context?: RequestContext,
  ): Promise<number>;
  /** Public keys of the access-token signer (`{ keys: [] }` for HMAC). */
  jwks(): Promise<{ keys: Record<string, unknown>[] }>;
  /**
   * Counts one request of a client against a per-client budget (`strict` for the routes that take
   * credentials, `general` for the others) and returns the budget's state for the `RateLimit-*` headers.
   * Fails with `rate_limited` (its `rateLimit` describes the refusing budget) when over the budget, and
   * with `unavailable` when the store is down and the budget fails closed (`strict` does). With rate
   * limiting off (`rateLimit: false`) it always allows and returns `null`.
   */
  rateLimit(
    budget: ClientBudget,
    context: RequestContext,
    apiKey?: ApiKeyClaims,
  ): Promise<RateLimitResult | null>;
}

/** @internal The session use cases. */
export function createSessions(
  services: Services,
  options: { reuseGraceSeconds: number; sessionCheck: SessionCheckSettings | undefined },
): TenantAuthSessions {
  const { stores, tokens, sessionTokens, cache, clock, events, limits, instrumentation } = services;
  const { logout, listSessions, revokeSession, revokeAllSessions } = createSessionAccess({
    stores,
    tokens,
    cache,
    clock,
    events,
  });
  const refresh = createRotation({
    stores,
    tokens,
    sessionTokens,
    cache,
    clock,
    events,
    reuseGraceSeconds: options.reuseGraceSeconds,
  });
  return {
    refresh: (token, context) => instrumentation.span('tenant-auth.refresh', () => refresh(token, context)),
    logout,
    verifyAccessToken(token) {
      // The common case answers without an asynchronous turn of its own: a token verified before, and
      // no per-request session check.
      if (!options.sessionCheck) {
        try {
          const known = tokens.verifiedAccessClaims(token);
          if (known) return Promise.resolve(known);
        } catch (err) {
          return Promise.reject(err);
        }
      }
      return tokens.verifyAccessToken(token).then(async (claims) => {
        await cache.assertActive(claims);
        return claims;
      });
    },
    listSessions,
    revokeSession,
    revokeAllSessions,
    jwks: () => tokens.jwks(),
    async rateLimit(budget, context, apiKey) {
      if (!limits) return null;
      try {
        return await limits.consume(budget, context, apiKey?.apiKeyId);
      } catch (err) {
        const refused = (err as { rateLimit?: { budget: RateLimitBudget } }).rateLimit;
        if (refused)
          events.emit({ type: 'rate_limited', budget: refused.budget, ...events.unattributed(context) });
        throw err;
      }
    },
  };
}
