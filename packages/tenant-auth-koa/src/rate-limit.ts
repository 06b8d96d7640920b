import type { Context, Middleware, Next } from 'koa';
import { clientIpKey, type RateLimiter, type RateLimitResult, TenantAuthError } from 'tenant-auth-core';

/** Options of {@link rateLimit}. */
export interface RateLimitMiddlewareOptions {
  /** The strict budget, for the paths in `authPaths` (login, registration, refresh). */
  auth?: RateLimiter;
  /** The looser budget, for every other request. */
  general?: RateLimiter;
  /**
   * Paths that use the `auth` budget (compared case-insensitively, percent-decoded, without trailing
   * slashes). Default: `<prefix>/auth/login`, `<prefix>/auth/register`, `<prefix>/auth/refresh`.
   */
  authPaths?: string[];
  /** Route prefix for the default `authPaths`. Default `/api/v1`. */
  prefix?: string;
  /** The client key. Default `clientIpKey(ctx.ip)` (Koa's `ctx.ip`, proxy trust per `app.proxy`). */
  key?: (ctx: Context) => string;
}

function normalizePath(path: string): string {
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // Undecodable paths are compared as they are.
  }
  return decoded.toLowerCase().replace(/\/+$/, '') || '/';
}

/**
 * Writes the `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` headers of a result.
 *
 * @example
 * setRateLimitHeaders(ctx, await limiter.consume(clientIpKey(ctx.ip)));
 */
export function setRateLimitHeaders(ctx: Context, result: RateLimitResult): void {
  ctx.set('RateLimit-Limit', String(result.limit));
  ctx.set('RateLimit-Remaining', String(result.remaining));
  ctx.set('RateLimit-Reset', String(result.resetSeconds));
}

/**
 * Per-client sliding-window rate limiting over core's `createRateLimiter`: the `auth` budget on the
 * login, registration and refresh paths, the `general` budget everywhere else (either may be left out).
 * Every limited response carries the `RateLimit-*` headers; a refused request fails with
 * `429 rate_limited` and `Retry-After`. Install it before body parsing, so refused bodies are not read.
 *
 * @example
 * const store = new MemoryRateLimitStore();
 * app.use(rateLimit({
 *   auth: createRateLimiter({ store, ...RATE_LIMIT_DEFAULTS.auth }),
 *   general: createRateLimiter({ store, ...RATE_LIMIT_DEFAULTS.general }),
 * }));
 */
export function rateLimit(options: RateLimitMiddlewareOptions): Middleware {
  const prefix = (options.prefix ?? '/api/v1').replace(/\/+$/, '');
  const authPaths = new Set(
    (options.authPaths ?? [`${prefix}/auth/login`, `${prefix}/auth/register`, `${prefix}/auth/refresh`]).map(
      normalizePath,
    ),
  );
  const key = options.key ?? ((ctx: Context) => clientIpKey(ctx.ip));
  return async (ctx: Context, next: Next) => {
    const limiter = authPaths.has(normalizePath(ctx.path)) ? options.auth : options.general;
    if (limiter === undefined) return next();
    const result = await limiter.consume(key(ctx));
    setRateLimitHeaders(ctx, result);
    if (!result.allowed) {
      throw new TenantAuthError('rate_limited', 'Too many requests. Retry later.', {
        retryAfterSeconds: result.retryAfterSeconds,
      });
    }
    return next();
  };
}
