import type { AccessClaims } from 'tenant-auth-core';

/**
 * Where the access token of an authenticated request came from.
 *
 * @example
 * if (ctx.state.auth.via === 'cookie') ctx.set('Vary', 'Cookie');
 */
export type TokenSource = 'header' | 'cookie';

/**
 * What `requireAuth()` / `optionalAuth()` put on `ctx.state.auth`: the verified access-token claims
 * and where the token came from (`'cookie'` requests are the ones the CSRF rule applies to).
 *
 * @example
 * router.get('/me', tenantAuth.requireAuth(), (ctx) => {
 *   const { userId, tenantId, via }: AuthContext = ctx.state.auth;
 *   ctx.body = { userId, tenantId, via };
 * });
 */
export interface AuthContext extends AccessClaims {
  via: TokenSource;
}

/**
 * Koa state after `requireAuth()`: `ctx.state.auth` is always set.
 *
 * @example
 * const listProjects: Koa.Middleware<AuthState> = async (ctx) => {
 *   ctx.body = await projects.list(ctx.state.auth.tenantId);
 * };
 */
export interface AuthState {
  auth: AuthContext;
}

/**
 * Koa state after `optionalAuth()`: `ctx.state.auth` is set when a valid token came with the request.
 *
 * @example
 * const listPosts: Koa.Middleware<OptionalAuthState> = async (ctx) => {
 *   ctx.body = await posts.list({ viewer: ctx.state.auth?.userId });
 * };
 */
export interface OptionalAuthState {
  auth?: AuthContext | undefined;
}
