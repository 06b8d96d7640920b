import type { Context, Middleware, Next } from 'koa';
import {
  type ApiKeyClaims,
  isTenantAuthError,
  type Role,
  type TenantAuth,
  TenantAuthError,
} from 'tenant-auth-core';
import type {
  ApiKeyAuthContext,
  AuthState,
  OptionalAuthState,
  PrincipalContext,
  PrincipalState,
} from './auth-state.js';
import { assertSameOriginRequest } from './csrf.js';
import { problemOf, writeProblem } from './problem.js';
import { markTokenPresented } from './request-marks.js';
import { findToken, readBearerToken } from './request-tokens.js';

/** @internal What the guards need to know. */
export interface GuardSettings {
  /** Where an access token is looked for besides the Authorization header: the access cookie, or nothing. */
  tokenPlaces: { readonly cookies: readonly string[] };
  /** Origins allowed to send cookie-authenticated unsafe requests. */
  origins: ReadonlySet<string>;
}

const invalidToken = (message: string) => new TenantAuthError('invalid_token', message);

/** @internal How a guard answers a refusal: as a problem (the default), or in its group's error form. */
export type Refuse = (ctx: Context, err: unknown) => void;

const asProblem: Refuse = (ctx, err) => writeProblem(ctx, problemOf(err));

/** @internal What every API key secret starts with. */
export const API_KEY_MARK = 'tak_';

/** @internal The answer to an API key on a route that does not take one. */
export const keyRefused = () =>
  new TenantAuthError('forbidden', 'API keys are not accepted here; this route is for a signed-in user.');

/**
 * @internal Verifies the request's credential: `undefined` when the request has none, else the principal
 * (rejecting with a `TenantAuthError`: 401, 403, 503). A malformed Authorization header throws at once.
 * An API key counts in the Authorization header only: one in a cookie is an invalid token, never a key.
 */
export function authenticate(
  auth: TenantAuth,
  ctx: Context,
  settings: GuardSettings,
): Promise<PrincipalContext> | undefined {
  const found = findToken(ctx, settings.tokenPlaces);
  if (found === undefined) return undefined;
  if (found.token.startsWith(API_KEY_MARK)) {
    if (found.via !== 'header')
      return Promise.reject(invalidToken('API keys are read from the Authorization header only.'));
    return auth.verifyApiKey(found.token).then((key): ApiKeyAuthContext => ({ ...key, via: 'header' }));
  }
  return Promise.resolve(auth.verifyAccessToken(found.token)).then((claims) => {
    // A cookie travels with cross-site requests; only an allowed origin may use it to change state.
    if (found.via === 'cookie') assertSameOriginRequest(ctx, settings.origins);
    return { ...claims, actorType: 'user' as const, via: found.via === 'cookie' ? 'cookie' : 'header' };
  });
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
  /**
   * Also accepts an API key (`Authorization: Bearer tak_…`, never a cookie): `ctx.state.auth` is then a
   * {@link PrincipalContext} whose `actorType` says a user or a key. Without it (the default), a key is
   * answered `403 forbidden`, so an application decides route by route where keys are welcome.
   */
  apiKeys?: boolean;
}

/**
 * What {@link TenantAuthKoa.requireRecentAuth} checks besides a valid access token.
 *
 * @example
 * router.post('/billing/card', tenantAuth.requireRecentAuth({ maxAgeSeconds: 300 }), changeCard);
 */
export interface RequireRecentAuthOptions {
  /**
   * How old the token's `auth_time` may be, in seconds. Default: the `TenantAuth`'s `reauthMaxAgeSeconds`
   * (600 unless configured).
   */
  maxAgeSeconds?: number;
}

/** @internal What a guard checks besides a valid access token. */
export type GuardOptions = RequireAuthOptions & {
  role?: Role;
  recent?: RequireRecentAuthOptions;
  /** The request's API key, already known from the Authorization header (`auth.peekApiKey`). */
  knownKey?: ApiKeyClaims | undefined;
};

/**
 * @internal The check of `requireAuth()`: the caller, from a valid access token, or `undefined` once it has
 * answered the refusal itself (401 `invalid_token` with `WWW-Authenticate`, 403 `forbidden` or
 * `csrf_rejected`, 503 `unavailable`). An error that is not a `TenantAuthError` is thrown.
 */
export async function admit(
  auth: TenantAuth,
  ctx: Context,
  settings: GuardSettings,
  options: GuardOptions = {},
  refuse: Refuse = asProblem,
): Promise<PrincipalContext | undefined> {
  try {
    let caller: PrincipalContext;
    if (options.knownKey !== undefined) {
      markTokenPresented(ctx);
      caller = { ...options.knownKey, via: 'header' };
    } else {
      const verified = authenticate(auth, ctx, settings);
      if (verified === undefined) throw invalidToken('An access token is required.');
      caller = await verified;
    }
    if (caller.actorType === 'api_key') {
      // A key is never a recent authentication: the *recent* routes refuse it as every route about a user.
      if (!options.apiKeys || options.recent) throw keyRefused();
      if (options.role === undefined) return caller;
      const key = await auth.authorize(caller, options.role);
      return { ...caller, role: key.role };
    }
    if (options.requireVerifiedEmail && !caller.emailVerified) {
      throw new TenantAuthError('forbidden', 'Verify your email address to continue.');
    }
    // The factor state as the stores know it now: a user who enrolled since needs `mfa` in `amr`.
    if (options.recent) await auth.requireRecentAuth(caller, options.recent);
    if (options.role === undefined) return caller;
    // The role as the stores know it now, not as the token says: one read per request.
    const member = await auth.authorize(caller, options.role);
    return { ...caller, role: member.role };
  } catch (err) {
    if (!isTenantAuthError(err)) throw err;
    refuse(ctx, err);
    return undefined;
  }
}

/**
 * @internal `requireAuth()`: {@link admit}, then the claims on `ctx.state.auth` and the route, so a host
 * route needs no error middleware of ours. Errors of the route after it pass through untouched.
 */
export function requireAuthMiddleware<S extends AuthState | PrincipalState = AuthState>(
  auth: TenantAuth,
  settings: GuardSettings,
  options: GuardOptions = {},
): Middleware<S> {
  return async (ctx: Context, next: Next) => {
    const caller = await admit(auth, ctx, settings, options);
    if (caller === undefined) return;
    ctx.state.auth = caller;
    await next();
  };
}

/**
 * @internal The API key of the request's Authorization header if this process verified it recently
 * (`auth.peekApiKey`: no look-up), else `undefined`: what its rate budget is keyed on.
 */
export function knownApiKey(auth: TenantAuth, ctx: Context): ApiKeyClaims | undefined {
  const secret = presentedApiKey(ctx);
  return secret === undefined ? undefined : auth.peekApiKey(secret);
}

/** @internal The API key secret (`tak_…`) of the request's Authorization header, else `undefined`. */
export function presentedApiKey(ctx: Context): string | undefined {
  const bearer = readBearerToken(ctx);
  return typeof bearer === 'string' && bearer.startsWith(API_KEY_MARK) ? bearer : undefined;
}

/**
 * @internal For the routes about a user that take no access token through a guard (every `/auth/*` route
 * without one: login, refresh, logout, ...): a request bearing an API key is answered `403 forbidden`
 * here, before anything reads it (the key is not looked up: nothing there could accept it). Returns
 * whether it answered.
 */
export function refuseApiKey(ctx: Context, refuse: Refuse = asProblem): boolean {
  const bearer = readBearerToken(ctx);
  if (typeof bearer !== 'string' || !bearer.startsWith(API_KEY_MARK)) return false;
  refuse(ctx, keyRefused());
  return true;
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
      const principal = await authenticate(auth, ctx, settings);
      // Keys are welcome only where a route opts in (requireAuth({ apiKeys: true })).
      if (principal?.actorType === 'api_key') throw keyRefused();
      ctx.state.auth = principal;
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
