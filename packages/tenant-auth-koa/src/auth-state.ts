import type { AccessClaims } from 'tenant-auth-core';

/** Where the access token of an authenticated request came from. */
export type TokenSource = 'header' | 'cookie';

/**
 * What `requireAuth()` / `optionalAuth()` put on `ctx.state.auth`: the verified access-token claims
 * and where the token came from (`'cookie'` requests are the ones CSRF rules apply to).
 *
 * @example
 * router.get('/me', requireAuth(auth), (ctx) => {
 *   const { userId, tenantId, via } = ctx.state.auth;
 *   ctx.body = { userId, tenantId, via };
 * });
 */
export interface AuthContext extends AccessClaims {
  via: TokenSource;
}

/**
 * Koa state after `requireAuth()`.
 *
 * @example
 * const mw: Koa.Middleware<AuthState> = async (ctx) => { ctx.body = ctx.state.auth.userId; };
 */
export interface AuthState {
  auth: AuthContext;
}

/**
 * Koa state after `optionalAuth()`.
 *
 * @example
 * const mw: Koa.Middleware<OptionalAuthState> = async (ctx) => { ctx.body = ctx.state.auth?.userId ?? null; };
 */
export interface OptionalAuthState {
  auth?: AuthContext | undefined;
}

declare module 'koa' {
  interface DefaultState {
    /** Set by tenant-auth-koa's `requireAuth()` / `optionalAuth()`. */
    auth?: AuthContext | undefined;
  }
}
