import type { AccessClaims, ApiKeyClaims } from 'tenant-auth-core';

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

/**
 * What `requireAuth({ apiKeys: true })` puts on `ctx.state.auth` for a request authenticated with an API
 * key (`Authorization: Bearer tak_…`, never a cookie): the key, its tenant and its role.
 *
 * @example
 * if (ctx.state.auth.actorType === 'api_key') log.info({ apiKeyId: ctx.state.auth.apiKeyId }, 'machine call');
 */
export interface ApiKeyAuthContext extends ApiKeyClaims {
  via: 'header';
}

/**
 * Who a request acts as, on routes that accept API keys: a user ({@link AuthContext}, `actorType`
 * `'user'`) or an API key ({@link ApiKeyAuthContext}, `actorType` `'api_key'`).
 *
 * @example
 * const who = (p: PrincipalContext) => (p.actorType === 'api_key' ? p.apiKeyId : p.userId);
 */
export type PrincipalContext = (AuthContext & { actorType: 'user' }) | ApiKeyAuthContext;

/**
 * Koa state after `requireAuth({ apiKeys: true })` or `requireRole(role, { apiKeys: true })`.
 *
 * @example
 * const listProjects: Koa.Middleware<PrincipalState> = async (ctx) => {
 *   ctx.body = await projects.list(ctx.state.auth.tenantId);
 * };
 */
export interface PrincipalState {
  auth: PrincipalContext;
}
