import cors from '@koa/cors';
import type { Context, Middleware } from 'koa';

/**
 * CORS settings other than the origins (the `cors` option of `createTenantAuthKoa`; the origins are its
 * `origins` option, shared with the CSRF rule).
 *
 * @example
 * const cors: CorsOptions = { allowHeaders: ['Authorization', 'Content-Type', 'X-Client-Version'] };
 */
export interface CorsOptions {
  /** Default `GET, HEAD, POST, PUT, PATCH, DELETE`. */
  allowMethods?: string[];
  /** Default `Authorization, Content-Type`. */
  allowHeaders?: string[];
  /** Response headers scripts may read. Default: the rate-limit headers, `Retry-After`, `WWW-Authenticate`. */
  exposeHeaders?: string[];
  /** Whether browsers may send cookies (`Access-Control-Allow-Credentials`). Default `true`. */
  credentials?: boolean;
  /** Preflight cache lifetime in seconds. Default 3600. */
  maxAgeSeconds?: number;
}

/**
 * @internal CORS on `@koa/cors` with an origin function over an exact-match whitelist: an allowed origin is
 * echoed back (never `*`, never `null`, no substring or pattern matching); any other origin gets no
 * `Access-Control-Allow-Origin` at all, so the browser blocks the response.
 */
export function corsMiddleware(options: CorsOptions, allowed: ReadonlySet<string>): Middleware {
  return cors({
    origin: (ctx: Context) => {
      const origin = ctx.get('origin');
      return allowed.has(origin) ? origin : '';
    },
    allowMethods: options.allowMethods ?? ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowHeaders: options.allowHeaders ?? ['Authorization', 'Content-Type'],
    exposeHeaders: options.exposeHeaders ?? [
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
      'Retry-After',
      'WWW-Authenticate',
    ],
    credentials: options.credentials ?? true,
    maxAge: options.maxAgeSeconds ?? 3600,
    keepHeadersOnError: true,
  });
}
