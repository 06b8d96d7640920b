import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import {
  isTenantAuthError,
  loginInputSchema,
  parseInput,
  refreshInputSchema,
  registerInputSchema,
  type TenantAuth,
  TenantAuthError,
} from 'tenant-auth-core';
import { requireAuth } from './auth-middleware.js';
import type { AuthState } from './auth-state.js';
import {
  type CookieOptions,
  clearTokenCookies,
  type ResolvedCookieOptions,
  readCookie,
  resolveCookieOptions,
  setTokenCookies,
} from './cookies.js';
import { assertSameOriginRequest } from './csrf.js';
import { jsonBody } from './json-body.js';
import { buildOpenApiDocument, type OpenApiInfo } from './openapi.js';
import { DEV_ORIGINS, normalizeOrigins } from './origins.js';
import { requestContext } from './request-context.js';
import { markTokenPresented } from './request-marks.js';
import { MAX_TOKEN_LENGTH, readBearerToken } from './request-tokens.js';
import { revokeAllQuerySchema } from './response-schemas.js';
import { toRegisterResponse, toSessionJson, toTenantJson, toTokenResponse } from './serialize.js';

/** A database (or other dependency) check for `GET /health`. */
export interface HealthCheckOptions {
  /** Resolves when the dependency answers; rejecting (or resolving `false`) means degraded. */
  ping: () => Promise<unknown>;
  /** How long to wait for `ping` before answering degraded. Default 2000 ms. */
  timeoutMs?: number;
  /** Whether `/health` requires an access token (API.md: yes). Default `true`. */
  requireAuth?: boolean;
  /** `Retry-After` of a degraded (503) answer. Default 5. */
  retryAfterSeconds?: number;
}

/** Options of {@link createAuthRouter}. */
export interface AuthRouterOptions {
  auth: TenantAuth;
  /** Prefix of every route. Default `/api/v1`. */
  prefix?: string;
  /** Cookie names and behaviour; see {@link CookieOptions}. */
  cookies?: CookieOptions;
  /**
   * Origins allowed to send cookie-authenticated unsafe requests (CSRF). Use the same list as CORS.
   * Default: the development origins `http://localhost:5173`, `http://localhost:3000`.
   */
  allowedOrigins?: Iterable<string>;
  /** JSON body limit in bytes. Default 16 KiB. */
  bodyLimitBytes?: number;
  /** Adds `GET <prefix>/health` answering `{ status, database }`. Left out: no health route. */
  health?: HealthCheckOptions;
  /** `info` of the OpenAPI document. */
  openapi?: OpenApiInfo;
}

function noStore(ctx: Context): void {
  ctx.set('Cache-Control', 'no-store');
}

function pingWithTimeout(ping: () => Promise<unknown>, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    timer.unref?.();
    Promise.resolve()
      .then(ping)
      .then(
        (value) => resolve(value !== false),
        () => resolve(false),
      )
      .finally(() => clearTimeout(timer));
  });
}

type Found = { token: string; via: 'header' | 'body' | 'cookie' };

/**
 * The refresh token of `POST /auth/refresh`: `Authorization: Bearer` first, then the `refreshToken`
 * body field, then the refresh cookie (which is subject to the CSRF origin rule).
 */
function findRefreshToken(
  ctx: Context,
  body: { refreshToken?: string | undefined },
  cookies: ResolvedCookieOptions,
): Found | undefined {
  const bearer = readBearerToken(ctx);
  if (bearer === null) {
    markTokenPresented(ctx);
    throw new TenantAuthError('invalid_token', 'The Authorization header is not a valid Bearer credential.');
  }
  if (bearer !== undefined) return { token: bearer, via: 'header' };
  if (body.refreshToken !== undefined && body.refreshToken !== '')
    return { token: body.refreshToken, via: 'body' };
  if (!cookies.read) return undefined;
  const cookie = readCookie(ctx, cookies.refreshName);
  return cookie === undefined ? undefined : { token: cookie, via: 'cookie' };
}

/** The token of `POST /auth/logout`: Bearer (access or refresh), then the refresh cookie, then the access cookie. */
function findLogoutToken(ctx: Context, cookies: ResolvedCookieOptions): Found | undefined {
  const bearer = readBearerToken(ctx);
  if (bearer === null) {
    markTokenPresented(ctx);
    throw new TenantAuthError('invalid_token', 'The Authorization header is not a valid Bearer credential.');
  }
  if (bearer !== undefined) return { token: bearer, via: 'header' };
  if (!cookies.read) return undefined;
  const cookie = readCookie(ctx, cookies.refreshName) ?? readCookie(ctx, cookies.accessName);
  return cookie === undefined ? undefined : { token: cookie, via: 'cookie' };
}

function checkPresented(ctx: Context, found: Found | undefined, allowedOrigins: ReadonlySet<string>): Found {
  if (found === undefined) throw new TenantAuthError('invalid_token', 'A token is required.');
  if (found.via === 'cookie') assertSameOriginRequest(ctx, allowedOrigins);
  markTokenPresented(ctx);
  if (found.token.length > MAX_TOKEN_LENGTH)
    throw new TenantAuthError('invalid_token', 'The token is invalid.');
  return found;
}

/**
 * The routes of API.md on `@koa/router` (strict and case-sensitive paths), under `prefix`:
 *
 * | route | |
 * |---|---|
 * | `POST /auth/register`, `POST /auth/login` | `201` / `200` token response, cookies set |
 * | `POST /auth/refresh` | token from Bearer, then body `refreshToken`, then cookie |
 * | `POST /auth/logout` | `204`, cookies cleared; Bearer (access or refresh), then refresh cookie, then access cookie |
 * | `GET /tenants/me`, `GET /tenants/:id` | own tenant; any other id `404` |
 * | `GET /sessions`, `DELETE /sessions/:id`, `DELETE /sessions?except=current` | the caller's sessions |
 * | `GET /.well-known/jwks.json`, `GET /openapi.json` | public |
 * | `GET /health` | only with the `health` option |
 *
 * Bodies are parsed and validated here (zod schemas of core; unknown keys dropped). Errors are thrown
 * as `TenantAuthError`: install {@link errorHandler} in front (or use {@link mountTenantAuth}).
 *
 * @example
 * const router = createAuthRouter({ auth, allowedOrigins: ['https://app.example.com'] });
 * app.use(errorHandler()).use(corsMiddleware({ origins: ['https://app.example.com'] })).use(router.routes());
 */
export function createAuthRouter(options: AuthRouterOptions): Router {
  const { auth } = options;
  const prefix = (options.prefix ?? '/api/v1').replace(/\/+$/, '');
  const cookies = resolveCookieOptions(options.cookies, prefix);
  const allowedOrigins = normalizeOrigins(options.allowedOrigins ?? DEV_ORIGINS);
  const body = jsonBody(options.bodyLimitBytes === undefined ? {} : { limitBytes: options.bodyLimitBytes });
  const authenticated = requireAuth(auth, {
    accessCookieName: cookies.read ? cookies.accessName : false,
    allowedOrigins,
  }) as Middleware;
  const document = buildOpenApiDocument({
    prefix,
    cookies,
    health: options.health !== undefined,
    ...(options.openapi ? { info: options.openapi } : {}),
  });
  const documentJson = JSON.stringify(document);

  const router = new Router({ prefix, strict: true, sensitive: true });

  router.post('/auth/register', body, async (ctx: Context) => {
    const input = parseInput(registerInputSchema, ctx.request.body);
    const result = await auth.register(input, requestContext(ctx));
    setTokenCookies(ctx, cookies, result);
    noStore(ctx);
    ctx.status = 201;
    ctx.body = toRegisterResponse(result);
  });

  router.post('/auth/login', body, async (ctx: Context) => {
    const input = parseInput(loginInputSchema, ctx.request.body);
    const result = await auth.login(input, requestContext(ctx));
    setTokenCookies(ctx, cookies, result);
    noStore(ctx);
    ctx.body = toTokenResponse(result);
  });

  router.post('/auth/refresh', body, async (ctx: Context) => {
    const input = parseInput(refreshInputSchema, ctx.request.body);
    const found = checkPresented(ctx, findRefreshToken(ctx, input, cookies), allowedOrigins);
    noStore(ctx);
    try {
      const result = await auth.refresh(found.token, requestContext(ctx));
      setTokenCookies(ctx, cookies, result);
      ctx.body = toTokenResponse(result);
    } catch (err) {
      // A refresh cookie that no longer works (expired, revoked, replayed) is useless to the browser.
      if (found.via === 'cookie' && isTenantAuthError(err, 'invalid_token')) clearTokenCookies(ctx, cookies);
      throw err;
    }
  });

  router.post('/auth/logout', body, async (ctx: Context) => {
    const found = checkPresented(ctx, findLogoutToken(ctx, cookies), allowedOrigins);
    noStore(ctx);
    // Cleared whatever happens next: a client asking to log out must not keep its cookies.
    clearTokenCookies(ctx, cookies);
    await auth.logout(found.token, requestContext(ctx));
    ctx.status = 204;
  });

  router.get('/tenants/me', authenticated, async (ctx: Context) => {
    const { auth: claims } = ctx.state as AuthState;
    noStore(ctx);
    ctx.body = toTenantJson(await auth.getMyTenant(claims));
  });

  router.get('/tenants/:id', authenticated, async (ctx: Context) => {
    const { auth: claims } = ctx.state as AuthState;
    const id = (ctx as Context & { params: Record<string, string> }).params.id ?? '';
    noStore(ctx);
    ctx.body = toTenantJson(await auth.getTenant(claims, id));
  });

  router.get('/sessions', authenticated, async (ctx: Context) => {
    const { auth: claims } = ctx.state as AuthState;
    noStore(ctx);
    ctx.body = { sessions: (await auth.listSessions(claims)).map(toSessionJson) };
  });

  router.delete('/sessions/:id', body, authenticated, async (ctx: Context) => {
    const { auth: claims } = ctx.state as AuthState;
    const id = (ctx as Context & { params: Record<string, string> }).params.id ?? '';
    await auth.revokeSession(claims, id);
    noStore(ctx);
    ctx.status = 204;
  });

  router.delete('/sessions', body, authenticated, async (ctx: Context) => {
    const { auth: claims } = ctx.state as AuthState;
    const query = parseInput(revokeAllQuerySchema, { ...ctx.query });
    const revoked = await auth.revokeAllSessions(claims, { exceptCurrent: query.except === 'current' });
    noStore(ctx);
    ctx.body = { revoked };
  });

  router.get('/.well-known/jwks.json', async (ctx: Context) => {
    const jwks = await auth.jwks();
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = { keys: jwks.keys };
  });

  router.get('/openapi.json', async (ctx: Context) => {
    ctx.type = 'application/json';
    ctx.body = documentJson;
  });

  const { health } = options;
  if (health) {
    const timeoutMs = health.timeoutMs ?? 2000;
    const handler = async (ctx: Context) => {
      const ok = await pingWithTimeout(health.ping, timeoutMs);
      noStore(ctx);
      if (!ok) ctx.set('Retry-After', String(health.retryAfterSeconds ?? 5));
      ctx.status = ok ? 200 : 503;
      ctx.body = ok ? { status: 'ok', database: 'ok' } : { status: 'degraded', database: 'unavailable' };
    };
    if (health.requireAuth === false) router.get('/health', handler);
    else router.get('/health', authenticated, handler);
  }

  return router;
}
