import { mkdir } from 'node:fs/promises';
import type { MikroORM } from '@mikro-orm/core';
import { MikroORM as PgliteORM } from '@mikro-orm/pglite';
import { MikroORM as PostgresORM } from '@mikro-orm/postgresql';
import { runTenantAuthMigrations, tenantAuthEntities } from 'tenant-auth-mikro-orm';
import type { DatabaseConfig } from './config.js';
import { type DataFolderLock, lockDataFolder } from './data-folder-lock.js';
import type { Logger } from './logger.js';

/** How long a PostgreSQL query may wait for an answer before it fails (503 `unavailable`). */
export const QUERY_TIMEOUT_MS = 5000;

/** The server's database: the ORM the stores use, plus what `main` and `/health` need. */
export interface Database {
  /** Constructed, not yet connected: the stores can be built on it before any I/O. */
  orm: MikroORM;
  /** Locks a PGlite folder for this process and connects. */
  open(): Promise<void>;
  /** Applies pending migrations; returns the names applied. */
  migrate(): Promise<string[]>;
  /** `SELECT 1` through the ORM; throws when the database does not answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The configured database with tenant-auth's entities and migrations: embedded PGlite in a folder,
 * in-memory PGlite (`memory:`), or PostgreSQL. Nothing is opened until `open()`: a PGlite folder is then
 * locked for this process (`DataFolderInUseError` when another live process has it) until `close()`.
 *
 * @example const db = createDatabase(config.database, logger); await db.open(); await db.migrate();
 */
export function createDatabase(database: DatabaseConfig, logger?: Logger): Database {
  const common = {
    entities: [...tenantAuthEntities],
    debug: false,
    // The ORM's own messages (e.g. the migrator's) go to the JSON log, not as plain text to stdout.
    logger: (message: string) => logger?.debug({ orm: message }, 'orm'),
    colors: false,
  };
  const orm: MikroORM =
    database.kind === 'postgres'
      ? new PostgresORM({
          ...common,
          clientUrl: database.url,
          // A dead database should fail a request quickly (and /health answer 503), not hang it: a
          // connection that is not made in time, or a query with no answer in time (a stalled server),
          // fails; TCP keep-alive notices a peer that vanished without closing the connection.
          driverOptions: { connectionTimeoutMillis: 3000, query_timeout: QUERY_TIMEOUT_MS, keepAlive: true },
        })
      : new PgliteORM({ ...common, dbName: database.kind === 'memory' ? 'memory://' : database.dataDir });
  let lock: DataFolderLock | undefined;
  return {
    orm,
    async open() {
      if (database.kind === 'pglite') {
        await mkdir(database.dataDir, { recursive: true, mode: 0o700 });
        // Two processes on one PGlite folder silently lose writes: one at a time.
        lock = await lockDataFolder(database.dataDir);
      }
      try {
        await orm.connect();
      } catch (err) {
        await lock?.release();
        lock = undefined;
        throw err;
      }
    },
    // Concurrent instances wait for each other (advisory lock); applied migrations are recorded.
    migrate: () => runTenantAuthMigrations(orm),
    async ping() {
      await orm.em.getConnection().execute('select 1');
    },
    async close() {
      try {
        await orm.close(true);
      } finally {
        await lock?.release();
      }
    },
  };
}
