import type { Context, Middleware, Next } from 'koa';
import { isTenantAuthError, type Role, type TenantAuth, TenantAuthError } from 'tenant-auth-core';
import type { AuthContext, AuthState, OptionalAuthState } from './auth-state.js';
import { assertSameOriginRequest } from './csrf.js';
import { problemOf, writeProblem } from './problem.js';
import { findToken, readBearerToken } from './request-tokens.js';

/** @internal What the guards need to know. */
export interface GuardSettings {
  /** Name of the access cookie, or `false` to accept only the Authorization header. */
  accessCookieName: string | false;
  /** Origins allowed to send cookie-authenticated unsafe requests. */
  origins: ReadonlySet<string>;
}

const invalidToken = (message: string) => new TenantAuthError('invalid_token', message);

/** @internal Verifies the request's access token; throws `TenantAuthError` (401, 403, 503). */
export async function authenticate(
  auth: TenantAuth,
  ctx: Context,
  settings: GuardSettings,
): Promise<AuthContext | undefined> {
  const found = findToken(ctx, {
    cookies: settings.accessCookieName === false ? [] : [settings.accessCookieName],
  });
  if (found === undefined) return undefined;
  const claims = await auth.verifyAccessToken(found.token);
  // A cookie travels with cross-site requests; only an allowed origin may use it to change state.
  if (found.via === 'cookie') assertSameOriginRequest(ctx, settings.origins);
  return { ...claims, via: found.via === 'cookie' ? 'cookie' : 'header' };
}

/**
 * What {@link TenantAuthKoa.requireAuth} checks besides a valid access token.
 *
 * @example
 * router.post('/projects', tenantAuth.requireAuth({ requireVerifiedEmail: true }), createProject);
 */
export interface RequireAuthOptions {
  /**
   * Refuses callers whose email is not verified with `403 forbidden`, judged by the token's
   * `email_verified` claim (a client refreshes after verifying to get a token that says so).
   * Default `false`.
   */
  requireVerifiedEmail?: boolean;
}

/**
 * @internal `requireAuth()`: verifies the access token and puts its claims on `ctx.state.auth`, or
 * answers the problem itself (401 `invalid_token` with `WWW-Authenticate`, 403 `csrf_rejected`, 503
 * `unavailable`), so a host route needs no error middleware of ours. Errors of the route after it pass
 * through untouched.
 */
export function requireAuthMiddleware(
  auth: TenantAuth,
  settings: GuardSettings,
  options: RequireAuthOptions & { role?: Role } = {},
): Middleware<AuthState> {
  return async (ctx: Context, next: Next) => {
    let state: AuthState['auth'] | undefined;
    try {
      state = await authenticate(auth, ctx, settings);
      if (state === undefined) throw invalidToken('An access token is required.');
      if (options.requireVerifiedEmail && !state.emailVerified) {
        throw new TenantAuthError('forbidden', 'Verify your email address to continue.');
      }
      if (options.role !== undefined) {
        // The role as the stores know it now, not as the token says: one read per request.
        const member = await auth.authorize(state, options.role);
        state = { ...state, role: member.role };
      }
    } catch (err) {
      if (!isTenantAuthError(err)) throw err;
      writeProblem(ctx, problemOf(err));
      return;
    }
    ctx.state.auth = state;
    await next();
  };
}

/**
 * @internal `optionalAuth()`: sets `ctx.state.auth` when a valid access token is present, and otherwise
 * passes through anonymously (an invalid or expired token is ignored, as is a cookie on a cross-origin
 * unsafe request). A malformed Authorization header is still answered 401: it is a client bug.
 */
export function optionalAuthMiddleware(
  auth: TenantAuth,
  settings: GuardSettings,
): Middleware<OptionalAuthState> {
  return async (ctx: Context, next: Next) => {
    ctx.state.auth = undefined;
    try {
      ctx.state.auth = await authenticate(auth, ctx, settings);
    } catch (err) {
      const malformedHeader = isTenantAuthError(err, 'invalid_token') && readBearerToken(ctx) === null;
      if (
        malformedHeader ||
        (isTenantAuthError(err) &&
          !isTenantAuthError(err, 'invalid_token') &&
          !isTenantAuthError(err, 'csrf_rejected'))
      ) {
        writeProblem(ctx, problemOf(err));
        return;
      }
      if (!isTenantAuthError(err)) throw err;
    }
    await next();
  };
}
