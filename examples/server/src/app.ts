import Koa from 'koa';
import { type RateLimitStore, type TenantAuth, TenantAuthError } from 'tenant-auth-core';
import { createTenantAuthKoa, respondWithProblem, type TenantAuthKoa } from 'tenant-auth-koa';
import { asConfigError } from './auth.js';
import type { ServerConfig } from './config.js';
import { type Logger, withoutRedaction } from './logger.js';
import type { ServerMetrics } from './metrics.js';
import { operationsRoutes } from './operations.js';
import { passkeysUnavailable } from './passkeys-unavailable.js';
import type { Readiness } from './readiness.js';
import { requestLog } from './request-log.js';
import { onlyTrustedProxies, parseTrustedProxies } from './trusted-proxies.js';

export interface AppOptions {
  config: ServerConfig;
  auth: TenantAuth;
  logger: Logger;
  /** Resolves when the database answers; `/health` calls it. */
  ping: () => Promise<unknown>;
  /** `/livez`, `/readyz`, `/metrics` at the root and the HTTP request metrics; none without. */
  operations?: { readiness: Readiness; metrics: ServerMetrics };
  /** Where the SCIM budget counts (Redis with `REDIS_URL`); unset: in this process's memory. */
  rateLimitStore?: RateLimitStore;
}

/**
 * The Koa app of the reference server: the operator's routes at the root (`/livez`, `/readyz`,
 * `/metrics`, with `operations`), a request log, `404 not_found` problems for unknown routes, and tenant-auth through its one composition path
 * under `/api/v1`, configured per environment as docs/http-api.md says. Configuration only.
 *
 * @example const { app } = createApp({ config, auth, logger, ping: db.ping });
 */
export function createApp(options: AppOptions): { app: Koa; tenantAuth: TenantAuthKoa } {
  const { config, auth, logger, operations } = options;
  // X-Forwarded-For is honoured only when proxies are trusted, and then only for exactly that many hops.
  const app = new Koa({ env: config.nodeEnv, proxy: config.trustProxy > 0, maxIpsCount: config.trustProxy });
  app.silent = true;
  const tenantAuth = asConfigError(() =>
    createTenantAuthKoa({
      auth,
      prefix: '/api/v1',
      production: config.production,
      origins: config.origins,
      logger,
      health: {
        retryAfterSeconds: 5,
        ping: async () => {
          try {
            await options.ping();
          } catch (err) {
            logger.warn({ event: 'health_degraded', err: errorSummary(err) }, 'database unavailable');
            throw err;
          }
        },
      },
      openapi: { title: 'tenant-auth reference server', version: '1.1.0' },
      // SCIM 2.0 at PUBLIC_URL + /scim/v2 (its path mounted here), each tenant's budget in the shared store.
      scim: {
        baseUrl: `${config.sso.publicUrl}/scim/v2`,
        rateLimit: {
          ...(config.rateLimit.scim === undefined ? {} : { max: config.rateLimit.scim }),
          ...(config.rateLimit.windowSeconds === undefined
            ? {}
            : { windowSeconds: config.rateLimit.windowSeconds }),
          ...(options.rateLimitStore ? { store: options.rateLimitStore } : {}),
        },
      },
      ...(operations ? { onResponse: operations.metrics.onResponse } : {}),
    }),
  );
  // Outermost: a request nothing answered gets the problem tenant-auth answers under its prefix.
  app.use(notFoundAsProblem);
  // Then the probes, answered before anything else runs, and not in the request log.
  if (operations) {
    app.use(
      operationsRoutes({
        ...operations,
        metricsToken: config.metricsToken,
        production: config.production,
        prefix: tenantAuth.prefix,
      }),
    );
  }
  if (config.trustedProxies !== undefined) {
    const parsed = parseTrustedProxies(config.trustedProxies);
    // parseConfig refused a bad list already; one that got here unchecked stops the server, fail closed.
    if (!parsed.ok)
      throw new Error(
        `TRUSTED_PROXIES holds entries that are not addresses or CIDRs: ${parsed.bad.join(', ')}`,
      );
    app.use(onlyTrustedProxies(parsed.list));
  }
  // Request lines carry only fields the request log sets (no header, body or token).
  app.use(requestLog(withoutRedaction(logger)));
  if (config.passkeysUnavailable !== undefined) app.use(passkeysUnavailable(tenantAuth.prefix));
  app.use(tenantAuth.middleware());
  return { app, tenantAuth };
}

/**
 * `404 not_found` problem details for every unknown route of the server, outside the prefix too (docs/http-api.md,
 * "Rules that change in 1.2 (closing holes found in 1.1)"), instead of Koa's `text/plain` "Not Found". Under the prefix tenant-auth has answered already.
 */
const notFoundAsProblem: Koa.Middleware = async (ctx, next) => {
  await next();
  if (ctx.body == null && ctx.status === 404) {
    respondWithProblem(ctx, new TenantAuthError('not_found', 'No route matches the request.'));
  }
};

/** Name, code and message of an error for the log; no stack, no parameters. */
function errorSummary(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error)) return { message: String(err) };
  return { name: err.name, code: (err as { code?: unknown }).code, message: err.message.slice(0, 300) };
}
