import type Router from '@koa/router';
import type Koa from 'koa';
import type { Middleware } from 'koa';
import type { TenantAuth } from 'tenant-auth-core';
import { type AuthMiddlewareOptions, optionalAuth, requireAuth } from './auth-middleware.js';
import { type AuthRouterOptions, createAuthRouter, type HealthCheckOptions } from './auth-router.js';
import type { AuthState, OptionalAuthState } from './auth-state.js';
import { type CookieOptions, type ResolvedCookieOptions, resolveCookieOptions } from './cookies.js';
import { type CorsOptions, corsMiddleware } from './cors.js';
import { errorHandler } from './error-handler.js';
import { jsonBody } from './json-body.js';
import type { TenantAuthLogger } from './logger.js';
import type { OpenApiInfo } from './openapi.js';
import { DEV_ORIGINS, normalizeOrigins } from './origins.js';
import { type RateLimitMiddlewareOptions, rateLimit } from './rate-limit.js';

/** Runs middleware in order, like `koa-compose`. */
function compose(stack: Middleware[]): Middleware {
  return (ctx, next) => {
    let last = -1;
    const dispatch = (i: number): Promise<unknown> => {
      if (i <= last) return Promise.reject(new Error('next() called multiple times'));
      last = i;
      const fn = i === stack.length ? next : stack[i];
      if (!fn) return Promise.resolve();
      try {
        return Promise.resolve(fn(ctx, () => dispatch(i + 1) as Promise<void>));
      } catch (err) {
        return Promise.reject(err);
      }
    };
    return dispatch(0);
  };
}

/** Options of {@link createTenantAuthKoa} / {@link mountTenantAuth}. */
export interface TenantAuthKoaOptions {
  auth: TenantAuth;
  /** Prefix of every route. Default `/api/v1`. */
  prefix?: string;
  /**
   * Production mode: prefixed cookie names (`__Host-access_token`, `__Secure-refresh_token`) and
   * `origins` required. Default `false`.
   */
  production?: boolean;
  /**
   * Exact origins allowed by CORS and by the CSRF rule. Default (development only):
   * `http://localhost:5173`, `http://localhost:3000`.
   */
  origins?: Iterable<string>;
  /** Cookie settings; `secureNames` defaults to `production`. */
  cookies?: CookieOptions;
  /** CORS settings other than the origins, or `false` to leave CORS out. */
  cors?: Omit<CorsOptions, 'origins'> | false;
  /** Rate-limit budgets (`auth`, `general`, `key`); left out: no rate limiting. */
  rateLimit?: Omit<RateLimitMiddlewareOptions, 'prefix'>;
  /** JSON body limit in bytes. Default 16 KiB. */
  bodyLimitBytes?: number;
  /** Receives unexpected errors. Default: JSON lines on stderr. A pino logger fits. */
  logger?: TenantAuthLogger;
  /** Adds `GET <prefix>/health`. */
  health?: HealthCheckOptions;
  /** `info` of the OpenAPI document. */
  openapi?: OpenApiInfo;
}

/** The Koa side of tenant-auth, configured once. */
export interface TenantAuthKoa {
  /** The router of API.md's routes (see {@link createAuthRouter}). */
  readonly router: Router;
  /** The resolved cookie names and paths. */
  readonly cookies: ResolvedCookieOptions;
  /** The normalised allowed origins (CORS and CSRF). */
  readonly origins: ReadonlySet<string>;
  /**
   * Everything in order, as one middleware: errors, CORS, rate limits, JSON bodies, routes.
   * Requests no route matches continue downstream (and end as `404 not_found` problems).
   */
  middleware(): Middleware;
  /** `app.use(this.middleware())`. */
  mount(app: Koa): void;
  /** {@link requireAuth} with this configuration's cookie name and origins. */
  requireAuth(): Middleware<AuthState>;
  /** {@link optionalAuth} with this configuration's cookie name and origins. */
  optionalAuth(): Middleware<OptionalAuthState>;
}

/**
 * Configures the whole Koa adapter at once: error handling (problem+json), CORS over an exact-origin
 * whitelist, rate limits, JSON body parsing (16 KiB, JSON only), CSRF checks for cookie-authenticated
 * requests, and the routes of API.md, installed in that order.
 *
 * @example
 * const store = new MemoryRateLimitStore();
 * const tenantAuth = createTenantAuthKoa({
 *   auth,
 *   production: process.env.NODE_ENV === 'production',
 *   origins: ['https://app.example.com'],
 *   logger,
 *   rateLimit: {
 *     auth: createRateLimiter({ store, ...RATE_LIMIT_DEFAULTS.auth }),
 *     general: createRateLimiter({ store, ...RATE_LIMIT_DEFAULTS.general }),
 *   },
 *   health: { ping: () => orm.em.getConnection().execute('select 1') },
 * });
 * tenantAuth.mount(app);
 * app.use(new Router().get('/api/v1/projects', tenantAuth.requireAuth(), listProjects).routes());
 */
export function createTenantAuthKoa(options: TenantAuthKoaOptions): TenantAuthKoa {
  const production = options.production ?? false;
  const prefix = (options.prefix ?? '/api/v1').replace(/\/+$/, '');
  if (production && options.origins === undefined) {
    throw new TypeError('origins are required in production (the exact origins of your web clients)');
  }
  const originList = [...(options.origins ?? DEV_ORIGINS)];
  const origins = normalizeOrigins(originList);
  const cookieOptions: CookieOptions = { secureNames: production, ...options.cookies };
  const cookies = resolveCookieOptions(cookieOptions, prefix);
  const routerOptions: AuthRouterOptions = {
    auth: options.auth,
    prefix,
    cookies: cookieOptions,
    allowedOrigins: originList,
  };
  if (options.bodyLimitBytes !== undefined) routerOptions.bodyLimitBytes = options.bodyLimitBytes;
  if (options.health) routerOptions.health = options.health;
  if (options.openapi) routerOptions.openapi = options.openapi;
  const router = createAuthRouter(routerOptions);

  const stack: Middleware[] = [errorHandler(options.logger ? { logger: options.logger } : {})];
  if (options.cors !== false) stack.push(corsMiddleware({ ...options.cors, origins: originList }));
  if (options.rateLimit) stack.push(rateLimit({ ...options.rateLimit, prefix }));
  stack.push(jsonBody(options.bodyLimitBytes === undefined ? {} : { limitBytes: options.bodyLimitBytes }));
  stack.push(router.routes() as Middleware);
  const composed = compose(stack);

  const authOptions: AuthMiddlewareOptions = {
    accessCookieName: cookies.read ? cookies.accessName : false,
    allowedOrigins: originList,
  };
  return {
    router,
    cookies,
    origins,
    middleware: () => composed,
    mount(app) {
      app.use(composed);
    },
    requireAuth: () => requireAuth(options.auth, authOptions),
    optionalAuth: () => optionalAuth(options.auth, authOptions),
  };
}

/**
 * {@link createTenantAuthKoa} and `mount(app)` in one call.
 *
 * @example
 * const tenantAuth = mountTenantAuth(app, { auth, origins: ['https://app.example.com'], production: true });
 */
export function mountTenantAuth(app: Koa, options: TenantAuthKoaOptions): TenantAuthKoa {
  const tenantAuth = createTenantAuthKoa(options);
  tenantAuth.mount(app);
  return tenantAuth;
}
