import Router from '@koa/router';
import type { MikroORM } from '@mikro-orm/core';
import Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import { createTenantAuth, type Logger, type TenantAuth } from 'tenant-auth-core';
import { createTenantAuthKoa } from 'tenant-auth-koa';
import { createMikroOrmStores } from 'tenant-auth-mikro-orm';
import { projectsRouter } from './projects-router.js';

export interface AppOptions {
  /** The application's one ORM (src/database.ts); it need not be connected yet. */
  orm: MikroORM;
  /** Signing secret of access tokens (at least 32 bytes). */
  jwtSecret: string;
  /** Signing secret of refresh tokens (at least 32 bytes, different from `jwtSecret`). */
  jwtRefreshSecret: string;
  /** Production: `__Host-` / `__Secure-` cookie names, and `origins` required. */
  production: boolean;
  /** The exact origins of the web clients (CORS, and the CSRF check of cookie-authenticated requests). */
  origins?: string[];
  /** bcrypt work factor; tenant-auth's default (12) when unset. Tests lower it. */
  bcryptCost?: number;
  /** Where tenant-auth logs; default JSON lines on stderr. */
  logger?: Logger;
}

/**
 * The application: its own routes, plus tenant-auth under `/api/v1`. No I/O happens here, so a bad
 * option (a short secret, production without origins) throws `TenantAuthError` with code
 * `invalid_configuration`, naming the option, before anything touches the database.
 */
export function createApp(options: AppOptions): { app: Koa; auth: TenantAuth } {
  const { orm, logger } = options;

  const auth = createTenantAuth({
    stores: createMikroOrmStores(orm),
    accessToken: { secret: options.jwtSecret },
    refreshSecret: options.jwtRefreshSecret,
    ...(options.bcryptCost === undefined ? {} : { passwordHashing: { cost: options.bcryptCost } }),
    ...(logger ? { logger } : {}),
  });
  const tenantAuth = createTenantAuthKoa({
    auth,
    prefix: '/api/v1',
    production: options.production,
    ...(options.origins ? { origins: options.origins } : {}),
    health: { ping: () => orm.em.getConnection().execute('select 1') },
    ...(logger ? { logger } : {}),
  });

  const app = new Koa();
  // Everything tenant-auth installs (problem+json errors, CORS, rate limits, JSON-only bodies, its
  // /auth, /sessions and /tenants routes) applies under /api/v1 only.
  app.use(tenantAuth.middleware());
  // The application's routes under the prefix: they get all of the above, and `requireAuth()`.
  const projects = projectsRouter(orm, tenantAuth);
  app.use(projects.routes());
  app.use(projects.allowedMethods());
  // The application's other routes keep their own behaviour: this one takes a form-encoded body,
  // which tenant-auth would refuse (415) under its prefix.
  app.use(billingWebhookRouter().routes());
  return { app, auth };
}

/** A stand-in for the routes an application already has outside the API prefix. */
function billingWebhookRouter(): Router {
  const router = new Router();
  router.post('/webhooks/billing', bodyParser({ enableTypes: ['form'] }), (ctx) => {
    const { event } = ctx.request.body as { event?: unknown };
    ctx.body = { received: typeof event === 'string' ? event : null };
  });
  return router;
}
