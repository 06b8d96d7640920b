import { mkdir } from 'node:fs/promises';
import type { MikroORM } from '@mikro-orm/core';
import { MikroORM as PgliteORM } from '@mikro-orm/pglite';
import { MikroORM as PostgresORM } from '@mikro-orm/postgresql';
import { runTenantAuthMigrations, tenantAuthEntities } from 'tenant-auth-mikro-orm';
import { type DatabaseConfig, describeDatabase } from './config.js';
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
  /** Applies pending migrations, logging before and after; returns the names applied. */
  migrate(): Promise<string[]>;
  /** `SELECT 1` through the ORM; throws when the database does not answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * `DATABASE_URL` names a PostgreSQL database that does not exist, in production: the server does not
 * create it (a typo, or another environment's name, would otherwise get an empty database, migrated,
 * and the server would run on it). `message` names the database and what to do.
 *
 * @example
 * try { await db.open(); } catch (err) { if (err instanceof DatabaseMissingError) console.error(err.message); }
 */
export class DatabaseMissingError extends Error {
  override readonly name = 'DatabaseMissingError';
  readonly database: string;
  constructor(database: string, where: string) {
    super(
      `database "${database}" does not exist (${where}). Create it first (CREATE DATABASE "${database}"; or createdb ${database}) and start again, or correct DATABASE_URL; a production server does not create its database`,
    );
    this.database = database;
  }
}

/** PostgreSQL's "invalid catalog name": the database of the connection does not exist. */
function isMissingDatabase(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  return (
    e?.code === '3D000' || (typeof e?.message === 'string' && /database ".*" does not exist/.test(e.message))
  );
}

/**
 * The configured database with tenant-auth's entities and migrations: embedded PGlite in a folder,
 * in-memory PGlite (`memory:`), or PostgreSQL. Nothing is opened until `open()`: a PGlite folder is then
 * locked for this process (`DataFolderInUseError` when another live process has it) until `close()`.
 * A PostgreSQL database that does not exist is created in development (with a warning) and refused in
 * production (`DatabaseMissingError`).
 *
 * @example const db = createDatabase(config.database, { logger, production: false }); await db.open(); await db.migrate();
 */
export function createDatabase(
  database: DatabaseConfig,
  options: { logger?: Logger; production: boolean },
): Database {
  const { logger, production } = options;
  const common = {
    entities: [...tenantAuthEntities],
    debug: false,
    // The ORM's own messages (e.g. the migrator's) go to the JSON log, not as plain text to stdout.
    logger: (message: string) => logger?.debug({ orm: message }, 'orm'),
    colors: false,
  };
  const postgres =
    database.kind === 'postgres'
      ? new PostgresORM({
          ...common,
          clientUrl: database.url,
          // MikroORM would create a missing database on connect; open() decides instead (below).
          ensureDatabase: false,
          // A dead database should fail a request quickly (and /health answer 503), not hang it: a
          // connection that is not made in time, or a query with no answer in time (a stalled server),
          // fails; TCP keep-alive notices a peer that vanished without closing the connection.
          driverOptions: { connectionTimeoutMillis: 3000, query_timeout: QUERY_TIMEOUT_MS, keepAlive: true },
        })
      : undefined;
  const orm: MikroORM =
    postgres ??
    new PgliteORM({ ...common, dbName: database.kind === 'pglite' ? database.dataDir : 'memory://' });

  /** Whether the PostgreSQL database exists; other connection failures are thrown. */
  async function postgresDatabaseExists(): Promise<boolean> {
    try {
      await orm.em.getConnection().execute('select 1');
      return true;
    } catch (err) {
      if (isMissingDatabase(err)) return false;
      throw err;
    }
  }
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
        if (postgres && !(await postgresDatabaseExists())) {
          const name = postgres.config.get('dbName') ?? '';
          const where = describeDatabase(database);
          if (production) throw new DatabaseMissingError(name, where);
          logger?.warn(
            { database: name },
            `database "${name}" does not exist: creating it (development only; in production the server refuses to start)`,
          );
          // Connects to the server's management database, creates ours, and reconnects to it.
          await postgres.schema.ensureDatabase();
        }
      } catch (err) {
        await lock?.release();
        lock = undefined;
        throw err;
      }
    },
    // Concurrent instances wait for each other (advisory lock); applied migrations are recorded. The first
    // run on PGlite takes many seconds: the lines before and after say it is not hung.
    async migrate() {
      logger?.info({}, 'running migrations…');
      const started = performance.now();
      const applied = await runTenantAuthMigrations(orm);
      const durationMs = Math.round(performance.now() - started);
      logger?.info(
        { migrations: applied, durationMs },
        `migrations done in ${durationMs} ms (${applied.length === 0 ? 'none pending' : `applied ${applied.join(', ')}`})`,
      );
      return applied;
    },
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
