import { createHash, timingSafeEqual } from 'node:crypto';
import type Koa from 'koa';
import { TenantAuthError } from 'tenant-auth-core';
import { respondWithProblem, UNMATCHED_ROUTE } from 'tenant-auth-koa';
import type { ServerMetrics } from './metrics.js';
import type { Readiness } from './readiness.js';

/** Options of {@link operationsRoutes}. */
export interface OperationsOptions {
  readiness: Readiness;
  metrics: ServerMetrics;
  /** `METRICS_TOKEN`: required as a bearer token by `/metrics` when set. */
  metricsToken: string | undefined;
  /** Without a token, `/metrics` is open in development and absent (404) in production. */
  production: boolean;
  /** tenant-auth-koa's prefix: its requests are measured by its `onResponse` hook, not here. */
  prefix: string;
}

/** Whether `path` is tenant-auth-koa's (the prefix or below it); builds no string, as it runs on every request. */
function isUnder(path: string, prefix: string): boolean {
  return (
    prefix === '' ||
    (path.startsWith(prefix) && (path.length === prefix.length || path.charCodeAt(prefix.length) === 0x2f))
  );
}

/** Compares in constant time whatever the lengths (both sides are hashed first). */
function sameToken(presented: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(presented), digest(expected));
}

function bearerToken(header: string): string | undefined {
  return /^Bearer +(\S+) *$/i.exec(header)?.[1];
}

/**
 * The operator's routes at the root, outside the API prefix, with no authentication (but `/metrics`'s
 * token), no rate limit and no request log line: `GET /livez` (the process serves), `GET /readyz` (the
 * dependencies answer and shutdown has not begun) and `GET /metrics` (Prometheus). Also counts every
 * request outside the prefix in the HTTP metrics, by these routes' names or `unmatched`. Put it first.
 *
 * @example
 * app.use(operationsRoutes({ readiness, metrics, metricsToken: config.metricsToken, production: config.production, prefix: '/api/v1' }));
 */
export function operationsRoutes(options: OperationsOptions): Koa.Middleware {
  const { readiness, metrics, metricsToken, prefix } = options;

  const routes = new Map<string, (ctx: Koa.Context) => Promise<void>>();
  routes.set('/livez', async (ctx) => {
    ctx.body = { status: 'ok' };
  });
  routes.set('/readyz', async (ctx) => {
    const ready = await readiness.check();
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ready' : 'not_ready' };
  });
  if (metricsToken !== undefined || !options.production) {
    routes.set('/metrics', async (ctx) => {
      if (metricsToken !== undefined) {
        const presented = bearerToken(ctx.get('authorization'));
        if (presented === undefined || !sameToken(presented, metricsToken)) {
          respondWithProblem(ctx, new TenantAuthError('invalid_token', 'A valid metrics token is required.'));
          return;
        }
      }
      const { contentType, body } = await metrics.scrape();
      ctx.type = contentType;
      ctx.body = body;
    });
  }

  const outsidePrefix = async (ctx: Koa.Context, next: Koa.Next): Promise<void> => {
    const started = performance.now();
    const handler = ctx.method === 'GET' || ctx.method === 'HEAD' ? routes.get(ctx.path) : undefined;
    let failed = false;
    try {
      if (handler) {
        ctx.set('Cache-Control', 'no-store');
        await handler(ctx);
      } else {
        await next();
      }
    } catch (err) {
      failed = true;
      throw err;
    } finally {
      metrics.onResponse({
        route: handler ? ctx.path : UNMATCHED_ROUTE,
        method: ctx.method,
        status: failed ? 500 : ctx.status,
        durationSeconds: (performance.now() - started) / 1000,
      });
    }
  };
  // tenant-auth-koa's requests pass straight through, without an asynchronous step of their own here.
  return (ctx, next) => (isUnder(ctx.path, prefix) ? next() : outsidePrefix(ctx, next));
}
