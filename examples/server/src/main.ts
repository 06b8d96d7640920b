import { ConfigError, describeDatabase, loadConfigOrExit } from './config.js';
import { DataFolderInUseError } from './data-folder-lock.js';
import { DatabaseMissingError } from './database.js';
import { createLogger, stdoutDestination } from './logger.js';
import type { RunningServer } from './server.js';
import { lowerThreadPoolPriority } from './thread-pool-priority.js';

/** How long a start-up interrupted by a signal may still take (migrations, waiting for the database) before the process gives up. */
const STARTUP_GRACE_MS = 120_000;

/**
 * `pnpm start`: reads the environment, runs the migrations, listens, and shuts down gracefully on
 * SIGTERM / SIGINT (exit code 0). A bad configuration exits with code 1 and names the variables.
 */
async function main(): Promise<void> {
  const config = loadConfigOrExit('tenant-auth reference server');
  const destination = stdoutDestination();
  const logger = createLogger({ level: config.logLevel, destination });
  // First, before anything slow (loading the packages, opening the database, the migrations), so a start
  // that takes seconds does not look hung.
  logger.info(
    { nodeEnv: config.nodeEnv, database: config.database.kind },
    `tenant-auth reference server starting… (database: ${describeDatabase(config.database)})`,
  );
  // Log lines are written asynchronously: whatever is still buffered goes out before the process ends.
  const exit: (code: number) => never = (code) => {
    destination.flushSync();
    process.exit(code);
  };
  let server: RunningServer | undefined;
  let stopping: NodeJS.Signals | undefined;
  const shutDown = (running: RunningServer, signal: NodeJS.Signals) => {
    // close() stops accepting synchronously, so by the time this line is read the port is closed.
    const closed = running.close();
    logger.info(
      { signal, deadlineMs: config.shutdownTimeoutMs },
      'shutting down: finishing in-flight requests',
    );
    closed.then(
      ({ forced }) => {
        logger.info({ forced }, forced ? 'shut down (connections closed at the deadline)' : 'shut down');
        exit(0);
      },
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        exit(1);
      },
    );
  };
  // Last resort: whatever hangs (a database or Redis that stopped answering), the process ends.
  const shutdownBudgetMs = config.shutdownDrainMs + config.shutdownTimeoutMs + 5000;
  const lastResort = (signal: NodeJS.Signals, ms: number) =>
    setTimeout(() => {
      logger.error({ signal }, 'shutdown did not finish in time: exiting');
      exit(1);
    }, ms).unref();
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      exit(1);
    }
    stopping = signal;
    if (server) {
      lastResort(signal, shutdownBudgetMs);
      shutDown(server, signal);
    } else {
      // During start-up: let it finish (migrations, the database folder's lock) and close at once then;
      // the shutdown's own budget starts then (a first migration on a busy machine takes 15 s and more).
      lastResort(signal, STARTUP_GRACE_MS + shutdownBudgetMs);
      logger.info({ signal }, 'signal during start-up: shutting down once started');
    }
  };
  // Installed before start-up, so a signal during the migrations does not kill the process mid-way.
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  // Loaded after the configuration is known to be valid, so a bad one is reported at once.
  const { startServer } = await import('./server.js');
  try {
    server = await startServer(config, logger);
  } catch (err) {
    if (
      err instanceof ConfigError ||
      err instanceof DataFolderInUseError ||
      err instanceof DatabaseMissingError
    ) {
      process.stderr.write(`tenant-auth reference server: ${err.message}\n`);
    } else {
      logger.fatal({ err }, 'start-up failed');
    }
    exit(1);
  }
  if (stopping) {
    lastResort(stopping, shutdownBudgetMs);
    shutDown(server, stopping);
    return;
  }
  // After start-up, which has used the pool (migrations, the database folder), so its threads exist.
  await lowerThreadPoolPriority(config.threadPoolNice).then(
    (threads) => {
      if (config.threadPoolNice > 0 && threads === 0 && process.platform === 'linux') {
        logger.warn('no libuv-worker thread found: the thread pool priority (THREAD_POOL_NICE) is unchanged');
      }
    },
    (err: unknown) => {
      logger.warn({ err }, 'could not lower the thread pool priority (THREAD_POOL_NICE)');
    },
  );
  logger.info(
    {
      port: server.port,
      url: `http://localhost:${server.port}`,
      database: config.database.kind,
      nodeEnv: config.nodeEnv,
    },
    `tenant-auth reference server listening on http://localhost:${server.port} (database: ${describeDatabase(config.database)})`,
  );
  // Ready is news for whoever waits for it (an operator, a supervisor, a test): not held for the next batch.
  destination.flush();
}

await main();
