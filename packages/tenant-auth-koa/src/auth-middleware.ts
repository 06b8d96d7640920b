import type { Context, Middleware, Next } from 'koa';
import { isTenantAuthError, type TenantAuth, TenantAuthError } from 'tenant-auth-core';
import type { AuthContext, AuthState, OptionalAuthState, TokenSource } from './auth-state.js';
import { readCookie } from './cookies.js';
import { assertSameOriginRequest } from './csrf.js';
import { normalizeOrigins } from './origins.js';
import { markTokenPresented } from './request-marks.js';
import { MAX_TOKEN_LENGTH, readBearerToken } from './request-tokens.js';

/** Options of {@link requireAuth} and {@link optionalAuth}. */
export interface AuthMiddlewareOptions {
  /** Name of the access cookie, or `false` to accept only the Authorization header. Default `'access_token'`. */
  accessCookieName?: string | false;
  /**
   * Origins allowed to send cookie-authenticated unsafe requests (POST, PUT, PATCH, DELETE). Without
   * them such requests are refused with `403 csrf_rejected` (Bearer requests are unaffected).
   */
  allowedOrigins?: Iterable<string>;
}

interface Resolved {
  cookieName: string | false;
  allowedOrigins: ReadonlySet<string>;
}

function resolve(options: AuthMiddlewareOptions): Resolved {
  return {
    cookieName: options.accessCookieName ?? 'access_token',
    allowedOrigins: normalizeOrigins(options.allowedOrigins ?? []),
  };
}

function invalidToken(message: string): TenantAuthError {
  return new TenantAuthError('invalid_token', message);
}

/** Finds the access token: the Authorization header first, then the cookie. */
function findToken(
  ctx: Context,
  cookieName: string | false,
): { token: string; via: TokenSource } | undefined {
  const bearer = readBearerToken(ctx);
  if (bearer === null) {
    markTokenPresented(ctx);
    throw invalidToken('The Authorization header is not a valid Bearer credential.');
  }
  if (bearer !== undefined) return { token: bearer, via: 'header' };
  if (cookieName === false) return undefined;
  const cookie = readCookie(ctx, cookieName);
  if (cookie === undefined) return undefined;
  if (cookie.length > MAX_TOKEN_LENGTH) {
    markTokenPresented(ctx);
    throw invalidToken('The access token is invalid.');
  }
  return { token: cookie, via: 'cookie' };
}

async function authenticate(
  auth: TenantAuth,
  ctx: Context,
  found: { token: string; via: TokenSource },
  resolved: Resolved,
): Promise<AuthContext> {
  markTokenPresented(ctx);
  const claims = await auth.verifyAccessToken(found.token);
  if (found.via === 'cookie') assertSameOriginRequest(ctx, resolved.allowedOrigins);
  return { ...claims, via: found.via };
}

/**
 * Middleware that requires a valid access token (Authorization: Bearer first, then the access cookie)
 * and puts its claims on `ctx.state.auth`. Answers `401 invalid_token` (through the error middleware,
 * with `WWW-Authenticate: Bearer`) otherwise. A cookie-authenticated unsafe request must come from an
 * allowed origin (`403 csrf_rejected`).
 *
 * @example
 * router.get('/projects', requireAuth(auth, { allowedOrigins: ['https://app.example.com'] }), async (ctx) => {
 *   ctx.body = await projects.list(ctx.state.auth.tenantId);
 * });
 */
export function requireAuth(auth: TenantAuth, options: AuthMiddlewareOptions = {}): Middleware<AuthState> {
  const resolved = resolve(options);
  return async (ctx: Context, next: Next) => {
    const found = findToken(ctx, resolved.cookieName);
    if (found === undefined) throw invalidToken('An access token is required.');
    ctx.state.auth = await authenticate(auth, ctx, found, resolved);
    await next();
  };
}

/**
 * Middleware that sets `ctx.state.auth` when a valid access token is present and otherwise passes
 * through anonymously (an invalid or expired token is ignored, as is a cookie on a cross-origin unsafe
 * request). A malformed Authorization header is still refused with 401.
 *
 * @example
 * router.get('/posts', optionalAuth(auth), async (ctx) => {
 *   ctx.body = await posts.list({ viewer: ctx.state.auth?.userId });
 * });
 */
export function optionalAuth(
  auth: TenantAuth,
  options: AuthMiddlewareOptions = {},
): Middleware<OptionalAuthState> {
  const resolved = resolve(options);
  return async (ctx: Context, next: Next) => {
    const found = findToken(ctx, resolved.cookieName);
    ctx.state.auth = undefined;
    if (found !== undefined) {
      try {
        ctx.state.auth = await authenticate(auth, ctx, found, resolved);
      } catch (err) {
        if (!isTenantAuthError(err, 'invalid_token') && !isTenantAuthError(err, 'csrf_rejected')) throw err;
      }
    }
    await next();
  };
}
