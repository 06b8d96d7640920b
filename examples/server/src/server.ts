import { Redis } from 'ioredis';
import type Koa from 'koa';
import type { Clock, Mailer, TenantAuth } from 'tenant-auth-core';
import { openTelemetrySpan } from 'tenant-auth-koa';
import { createMikroOrmStores } from 'tenant-auth-mikro-orm';
import { RedisRateLimitStore } from 'tenant-auth-redis';
import { loadAccessKeys } from './access-keys.js';
import { createApp } from './app.js';
import { createAuth, outboundClientOf } from './auth.js';
import { authEventLogger } from './auth-log.js';
import type { ServerConfig } from './config.js';
import { createDatabase, type Database } from './database.js';
import { resolveEncryptionKey } from './encryption-key.js';
import { listen } from './http-server.js';
import type { Logger } from './logger.js';
import { createMailer } from './mailer.js';
import { createServerMetrics } from './metrics.js';
import { createReadiness } from './readiness.js';
import { resolveSecrets } from './secrets.js';

/** A started server. */
export interface RunningServer {
  port: number;
  app: Koa;
  auth: TenantAuth;
  database: Database;
  /**
   * Graceful shutdown: marks the server not ready (`/readyz` answers 503 from then on), stops
   * accepting, lets in-flight requests finish within the configured deadline
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
const CLEANUP_INTERVAL_SECONDS = 600;

/**
 * Wires the server together from a validated configuration. Everything is composed and validated
 * first (secrets, keys, tenant-auth, the Koa app: a bad value stops the server naming its variable before
 * any database or network I/O); then the database is opened and migrated, Redis connected (when
 * configured), the HTTP listener started and the cleanup scheduled. `overrides.clock` lets tests move time.
 *
 * @example
 * const server = await startServer(parseConfig(process.env), createLogger({ level: 'info' }));
 * process.once('SIGTERM', () => server.close());
 */
export async function startServer(
  config: ServerConfig,
  logger: Logger,
  overrides: { clock?: Clock; mailer?: Mailer } = {},
): Promise<RunningServer> {
  const secrets = await resolveSecrets(config, logger);
  const encryption = await resolveEncryptionKey(config, logger);
  const accessToken = await loadAccessKeys(config, secrets.secret);
  if (config.passkeysUnavailable !== undefined)
    logger.warn({ variable: 'APP_URL', appUrl: config.mail.appUrl }, config.passkeysUnavailable);
  const database = createDatabase(config.database, { logger, production: config.production });
  // Connects only when told (below), so nothing talks to Redis before the configuration is known good.
  const redis = config.redisUrl
    ? new Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: true })
    : undefined;
  const rateLimitStore = redis ? new RedisRateLimitStore({ redis }) : undefined;
  const metrics = createServerMetrics();
  const outbound = outboundClientOf(config);
  const logEvent = authEventLogger(logger);
  const auth = createAuth(config, {
    stores: createMikroOrmStores(database.orm),
    accessToken,
    refreshSecret: secrets.refreshSecret,
    encryptionKey: encryption.key,
    rateLimitStore,
    onEvent: (event) => {
      logEvent(event);
      metrics.onEvent(event);
    },
    mailer: overrides.mailer ?? createMailer(config, logger),
    instrumentation: {
      span: openTelemetrySpan(),
      onPasswordHashing: metrics.onPasswordHashing,
      onMailDelivery: metrics.onMailDelivery,
      onApiKeyCheck: metrics.onApiKeyCheck,
      onWebhookDelivery: metrics.onWebhookDelivery,
    },
    logger,
    outbound,
    ...(overrides.clock ? { clock: overrides.clock } : {}),
  });
  metrics.observe(auth);
  const readiness = createReadiness({
    ping: redis ? () => Promise.all([database.ping(), redis.ping()]) : database.ping,
  });
  const { app } = createApp({
    config,
    auth,
    logger,
    ping: database.ping,
    operations: { readiness, metrics },
    ...(rateLimitStore ? { rateLimitStore } : {}),
  });

  try {
    await secrets.keep();
    await encryption.keep();
    await database.open();
    await database.migrate();
    if (redis) await connectRedis(redis, logger);
    const http = await listen(app, config.port, config.host);
    if (!config.production && !isLoopback(config.host)) {
      logger.warn(
        { host: config.host, nodeEnv: config.nodeEnv },
        'DEVELOPMENT MODE IS REACHABLE FROM OTHER MACHINES: development CORS origins, unprefixed cookie names and generated secrets are exposed; set NODE_ENV=production, or HOST=127.0.0.1',
      );
    }
    const cleanup = auth.startCleanup({ intervalSeconds: CLEANUP_INTERVAL_SECONDS });
    // Every instance delivers the shared outbox; each message goes to one of them.
    const delivery = auth.startMailDelivery();
    // And the webhook deliveries: each attempt is claimed by one instance (FOR UPDATE SKIP LOCKED).
    const webhookDelivery = auth.startWebhookDelivery();

    let closing: Promise<{ forced: boolean }> | undefined;
    return {
      port: http.port,
      app,
      auth,
      database,
      close() {
        closing ??= (async () => {
          // First, so /readyz tells load balancers to stop sending traffic before anything stops.
          readiness.shutDown();
          // The drain: still serving, /readyz saying 503, for as long as load balancers take to notice.
          if (config.shutdownDrainMs > 0)
            await new Promise((resolve) => setTimeout(resolve, config.shutdownDrainMs));
          const result = await http.close(config.shutdownTimeoutMs);
          // Work the requests started (a reset email being written) finishes before the database closes;
          // a message already in the outbox is delivered by another instance, or by this one on restart.
          await auth.whenIdle();
          await Promise.all([cleanup.stop(), delivery.stop(), webhookDelivery.stop()]);
          await outbound.close();
          // No QUIT handshake: a Redis that stopped answering would never reply to it, and the
          // rate-limit counters need nothing flushed.
          redis?.disconnect();
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

/** Whether a listening address is reachable from this machine only. */
function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}

/**
 * Connects the Redis client and reports its outages once each. Start-up does not wait for a Redis that
 * is down: the strict budget then answers 503 until it is back, and ioredis reconnects by itself.
 */
async function connectRedis(client: Redis, logger: Logger): Promise<void> {
  let reported = false;
  client.on('error', (err: Error) => {
    if (!reported) logger.warn({ err: { message: err.message } }, 'redis connection error; retrying');
    reported = true;
  });
  client.on('ready', () => {
    if (reported) logger.info({}, 'redis connection restored');
    reported = false;
  });
  client.connect().catch(() => {
    // Reported by the error handler; ioredis keeps retrying.
  });
  if (!(await waitForReady(client, 5000))) {
    logger.warn({}, 'redis is not reachable yet; auth routes answer 503 until it is');
  }
}
