import { Redis } from 'ioredis';
import type Koa from 'koa';
import {
  type Clock,
  createTenantAuth,
  MemoryRateLimitStore,
  type RateLimitStore,
  type TenantAuth,
} from 'tenant-auth-core';
import { createMikroOrmStores } from 'tenant-auth-mikro-orm';
import { RedisRateLimitStore } from 'tenant-auth-redis';
import { loadAccessKeys } from './access-keys.js';
import { createApp } from './app.js';
import { authEventLogger } from './auth-log.js';
import type { ServerConfig } from './config.js';
import { type Database, openDatabase } from './database.js';
import { listen } from './http-server.js';
import type { Logger } from './logger.js';
import { resolveSecrets } from './secrets.js';

/** A started server. */
export interface RunningServer {
  port: number;
  app: Koa;
  auth: TenantAuth;
  database: Database;
  /**
   * Graceful shutdown: stops accepting, lets in-flight requests finish within the configured deadline
   * (then closes the connections), stops the session cleanup, closes Redis and the database.
   */
  close(): Promise<{ forced: boolean }>;
}

/** Resolves `true` once the client is ready, `false` after `timeoutMs`. */
function waitForReady(client: Redis, timeoutMs: number): Promise<boolean> {
  if (client.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      client.off('ready', onReady);
      resolve(false);
    }, timeoutMs);
    const onReady = () => {
      clearTimeout(timer);
      resolve(true);
    };
    client.once('ready', onReady);
  });
}

/** How long shutdown waits for the database to close before abandoning it (it may not answer). */
const DATABASE_CLOSE_TIMEOUT_MS = 3000;

/** How often expired and long-revoked sessions are deleted. */
const SESSION_CLEANUP_INTERVAL_MS = 10 * 60_000;

/**
 * Wires the server together from a validated configuration: secrets, database and migrations, stores,
 * Redis (when configured), the auth service, the Koa app, the HTTP listener and the session cleanup.
 * `overrides.clock` lets tests move time.
 *
 * @example
 * const server = await startServer(parseConfig(process.env), createLogger({ level: 'info' }));
 * process.once('SIGTERM', () => server.close());
 */
export async function startServer(
  config: ServerConfig,
  logger: Logger,
  overrides: { clock?: Clock } = {},
): Promise<RunningServer> {
  const secrets = await resolveSecrets(config, logger);
  const accessToken = await loadAccessKeys(config, secrets.secret);
  const database = await openDatabase(config.database, logger);
  let redis: Redis | undefined;
  try {
    const applied = await database.migrate();
    if (applied.length > 0) logger.info({ migrations: applied }, 'migrations applied');

    let rateLimitStore: RateLimitStore;
    if (config.redisUrl) {
      const client = new Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
      redis = client;
      let reported = false;
      client.on('error', (err: Error) => {
        // ioredis reconnects by itself; one line per outage, not one per retry.
        if (!reported) logger.warn({ err: { message: err.message } }, 'redis connection error; retrying');
        reported = true;
      });
      client.on('ready', () => {
        if (reported) logger.info({}, 'redis connection restored');
        reported = false;
      });
      // Start even when Redis is down: the auth budget then answers 503 until it is back.
      const ready = await waitForReady(client, 5000);
      if (!ready) logger.warn({}, 'redis is not reachable yet; auth routes answer 503 until it is');
      rateLimitStore = new RedisRateLimitStore({ redis: client });
    } else {
      rateLimitStore = new MemoryRateLimitStore();
    }

    const { tenantAuthStore, sessionStore } = createMikroOrmStores(database.orm);
    const auth = createTenantAuth({
      store: tenantAuthStore,
      sessionStore,
      accessToken,
      refreshSecret: secrets.refreshSecret,
      refreshReuseGraceSeconds: config.refreshReuseGraceSeconds,
      passwordHashing: { cost: config.bcryptCost },
      loginThrottle: {
        store: rateLimitStore,
        maxFailures: config.rateLimit.loginFailuresPerAccount,
        windowSeconds: config.rateLimit.windowSeconds,
      },
      checkSessionOnVerify: config.checkSessionOnVerify,
      onEvent: authEventLogger(logger),
      ...(overrides.clock ? { clock: overrides.clock } : {}),
    });

    const app = createApp({ config, auth, logger, rateLimitStore, ping: database.ping, ...overrides });
    const http = await listen(app, config.port);
    const cleanup = auth.startSessionCleanup({
      intervalMs: SESSION_CLEANUP_INTERVAL_MS,
      onError: (err) => logger.warn({ err }, 'session cleanup failed'),
    });
    const redisClient = redis;

    let closing: Promise<{ forced: boolean }> | undefined;
    return {
      port: http.port,
      app,
      auth,
      database,
      close() {
        closing ??= (async () => {
          const result = await http.close(config.shutdownTimeoutMs);
          cleanup.stop();
          await rateLimitStore.close?.();
          // No QUIT handshake: a Redis that stopped answering would never reply to it, and the
          // rate-limit counters need nothing flushed.
          redisClient?.disconnect();
          let timer: NodeJS.Timeout | undefined;
          const closed = await Promise.race([
            database.close().then(() => true),
            new Promise<false>((resolve) => {
              timer = setTimeout(() => resolve(false), DATABASE_CLOSE_TIMEOUT_MS);
            }),
          ]).finally(() => clearTimeout(timer));
          if (!closed) {
            logger.warn(
              { timeoutMs: DATABASE_CLOSE_TIMEOUT_MS },
              'the database did not close in time; abandoning its connections',
            );
          }
          return result;
        })();
        return closing;
      },
    };
  } catch (err) {
    redis?.disconnect();
    await database.close().catch(() => {});
    throw err;
  }
}
