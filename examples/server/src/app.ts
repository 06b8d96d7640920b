import Koa from 'koa';
import { type Clock, createRateLimiter, type RateLimitStore, type TenantAuth } from 'tenant-auth-core';
import { corsMiddleware, createAuthRouter, errorHandler, rateLimit } from 'tenant-auth-koa';
import type { ServerConfig } from './config.js';
import type { Logger } from './logger.js';
import { requestLog } from './request-log.js';

export interface AppOptions {
  config: ServerConfig;
  auth: TenantAuth;
  logger: Logger;
  rateLimitStore: RateLimitStore;
  /** Resolves when the database answers; `/health` calls it on every request. */
  ping: () => Promise<unknown>;
  clock?: Clock;
}

/** Seconds a client is told to wait when `/health` answers 503. */
const HEALTH_RETRY_AFTER_SECONDS = 5;

/**
 * The Koa app of the reference server: request log, problem+json errors, CORS, rate limits and the
 * `/api/v1` routes of tenant-auth-koa, configured per environment as API.md says.
 *
 * @example const app = createApp({ config, auth, logger, rateLimitStore, ping: db.ping });
 */
export function createApp(options: AppOptions): Koa {
  const { config, auth, logger } = options;
  const app = new Koa({ env: config.nodeEnv });
  // X-Forwarded-For is honoured only when proxies are trusted, and then only for exactly that many hops.
  app.proxy = config.trustProxy > 0;
  app.maxIpsCount = config.trustProxy;
  app.silent = true;

  const windowMs = config.rateLimit.windowSeconds * 1000;
  const clock = options.clock ? { clock: options.clock } : {};
  const authLimiter = createRateLimiter({
    store: options.rateLimitStore,
    limit: config.rateLimit.authMax,
    windowMs,
    keyPrefix: 'auth:',
    name: 'auth',
    // The budget that guards credentials fails closed when its store is down.
    onStoreError: 'fail-closed',
    logger,
    ...clock,
  });
  const generalLimiter = createRateLimiter({
    store: options.rateLimitStore,
    limit: config.rateLimit.max,
    windowMs,
    keyPrefix: 'general:',
    name: 'general',
    onStoreError: 'fail-open',
    logger,
    ...clock,
  });

  const router = createAuthRouter({
    auth,
    prefix: '/api/v1',
    cookies: { secureNames: config.production },
    allowedOrigins: config.corsOrigins,
    health: {
      retryAfterSeconds: HEALTH_RETRY_AFTER_SECONDS,
      ping: async () => {
        try {
          await options.ping();
        } catch (err) {
          logger.warn({ event: 'health_degraded', err: errorSummary(err) }, 'database unavailable');
          throw err;
        }
      },
    },
    openapi: { title: 'tenant-auth reference server', version: '1.0.0' },
  });

  app.use(requestLog(logger));
  app.use(async (ctx, next) => {
    // An API answers JSON only: no sniffing, no framing, no referrer leaking ids from URLs.
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Referrer-Policy', 'no-referrer');
    await next();
  });
  app.use(errorHandler({ logger }));
  app.use(corsMiddleware({ origins: config.corsOrigins }));
  app.use(rateLimit({ auth: authLimiter, general: generalLimiter, prefix: '/api/v1' }));
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}

/** Name, code and message of an error for the log; no stack, no parameters. */
function errorSummary(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error)) return { message: String(err) };
  return { name: err.name, code: (err as { code?: unknown }).code, message: err.message.slice(0, 300) };
}
