import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { consoleLogger, isTenantAuthError } from 'tenant-auth-core';
import { createApp } from './app.js';
import { createOrm, migrate, missingDatabase } from './database.js';

// `pnpm start`. Your application's own logger (pino, for instance) fits where `consoleLogger` is used.
const logger = consoleLogger;
const env = process.env;
const production = env.NODE_ENV === 'production';

function exitWith(message: string): never {
  process.stderr.write(`custom-app: ${message}\n`);
  process.exit(1);
}

/** tenant-auth's `invalid_configuration` names the option and what is wrong with it: said, then exit. */
function reportingConfigurationErrors<T>(create: () => T): T {
  try {
    return create();
  } catch (err) {
    if (isTenantAuthError(err, 'invalid_configuration')) exitWith(err.message);
    throw err;
  }
}

/** A secret from the environment. Development only: a random one, valid until the process ends. */
function secret(variable: string): string {
  const value = env[variable];
  if (value) return value;
  if (production) exitWith(`${variable} is required in production (a random secret of at least 32 bytes)`);
  logger.warn({ variable }, `${variable} is not set: using a random secret, tokens stop working at restart`);
  return randomBytes(32).toString('base64url');
}

const port = Number(env.PORT ?? 8080);
if (!Number.isInteger(port) || port < 0 || port > 65_535)
  exitWith(`PORT must be a port number, not ${env.PORT}`);

// 1. Compose everything, with no I/O yet: a bad setting stops here, naming it, before the database
//    is touched. The ORM is constructed but not connected.
const orm = createOrm(env.DATABASE_URL || undefined);
const { app, auth } = reportingConfigurationErrors(() =>
  createApp({
    orm,
    jwtSecret: secret('JWT_SECRET'),
    jwtRefreshSecret: secret('JWT_REFRESH_SECRET'),
    production,
    // Comma-separated exact origins of the web clients; required in production.
    ...(env.CORS_ORIGINS ? { origins: env.CORS_ORIGINS.split(',').map((origin) => origin.trim()) } : {}),
    logger,
  }),
);

// 2. Connect and migrate: tenant-auth's migrations, then the application's.
try {
  const applied = await migrate(orm);
  logger.info({ applied }, applied.length > 0 ? 'migrations applied' : 'database up to date');
} catch (err) {
  await orm.close(true).catch(() => {});
  const missing = missingDatabase(err, orm);
  if (missing !== undefined)
    exitWith(
      `database "${missing}" does not exist: create it first (createdb ${missing}) and start again, or correct DATABASE_URL`,
    );
  exitWith(`migrations failed: ${err instanceof Error ? err.message : String(err)}`);
}

// 3. Serve, and delete expired sessions now and then.
const server = app.listen(port);
await once(server, 'listening');
const cleanup = auth.startCleanup();
const address = server.address();
const listening = typeof address === 'object' && address ? address.port : port;
logger.info({ port: listening }, `custom-app listening on http://localhost:${listening}`);

// 4. On SIGTERM (or Ctrl-C): stop accepting, let in-flight requests finish, close the database.
const shutDown = async (signal: NodeJS.Signals) => {
  logger.info({ signal }, 'shutting down');
  // Whatever hangs (a request that never ends, a database that stopped answering), the process ends.
  setTimeout(() => process.exit(1), 10_000).unref();
  cleanup.stop();
  await new Promise((resolve) => server.close(resolve));
  await orm.close();
  logger.info({}, 'shut down');
};
process.once('SIGTERM', shutDown);
process.once('SIGINT', shutDown);
