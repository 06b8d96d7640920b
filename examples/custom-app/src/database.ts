import type { MikroORM } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { MikroORM as PgliteORM } from '@mikro-orm/pglite';
import { MikroORM as PostgresORM } from '@mikro-orm/postgresql';
import { runTenantAuthMigrations, tenantAuthEntities } from 'tenant-auth-mikro-orm';
import { appMigrations } from './migrations/index.js';
import { Project } from './project.js';

/**
 * The application's one ORM, shared by tenant-auth's stores and the application's own code: PostgreSQL
 * for a `postgres://` URL, embedded PGlite in that folder for any other value, PGlite in memory when
 * `databaseUrl` is undefined. Constructing it does no I/O; it connects on first use.
 */
export function createOrm(databaseUrl: string | undefined): MikroORM {
  const options = {
    entities: [...tenantAuthEntities, Project],
    // The application's migrations, recorded in MikroORM's own table (mikro_orm_migrations). They are
    // written by hand here; `snapshot: false` keeps the migrator from writing a snapshot file at run time,
    // and `silent: true` leaves the logging to main (tenant-auth's migrator inherits it too).
    extensions: [Migrator],
    migrations: { migrationsList: appMigrations, snapshot: false, silent: true },
    // tenant-auth records its migrations in a table of its own, which is no entity of the application:
    // schema diffs (migration:create, schema:update) must leave it alone.
    schemaGenerator: { skipTables: ['tenant_auth_migrations'] },
  };
  if (databaseUrl !== undefined && /^postgres(ql)?:\/\//.test(databaseUrl)) {
    // MikroORM would create a missing database on connect (and its migrator does too), so a mistyped
    // DATABASE_URL would start the application on a new, empty database. It must exist: `migrate` checks
    // first, and `missingDatabase` names it.
    return new PostgresORM({ ...options, clientUrl: databaseUrl, ensureDatabase: false });
  }
  return new PgliteORM({ ...options, dbName: databaseUrl ?? 'memory://' });
}

/**
 * Applies the pending migrations, in the one order that works: tenant-auth's first (its own tracking
 * table, under an advisory lock), then the application's, whose `project` table references
 * `tenant_auth_tenant`. Safe at every start: returns the names applied, `[]` when up to date. A PostgreSQL
 * database that does not exist is not created: the error says so (`missingDatabase`).
 */
export async function migrate(orm: MikroORM): Promise<string[]> {
  // First a plain query: on a PostgreSQL database that does not exist it fails (see `missingDatabase`),
  // where the migrators would create the database.
  await orm.em.getConnection().execute('select 1');
  const tenantAuth = await runTenantAuthMigrations(orm);
  const app = await orm.migrator.up();
  return [...tenantAuth, ...app.map((migration) => migration.name)];
}

/**
 * The name of the database when `err` is PostgreSQL's "invalid catalog name" (the database of
 * `DATABASE_URL` does not exist), `undefined` for any other error.
 *
 * @example
 * try { await migrate(orm); } catch (err) { const name = missingDatabase(err, orm); if (name) ... }
 */
export function missingDatabase(err: unknown, orm: MikroORM): string | undefined {
  const e = err as { code?: unknown; message?: unknown };
  const missing =
    e?.code === '3D000' || (typeof e?.message === 'string' && /database ".*" does not exist/.test(e.message));
  return missing ? String(orm.config.get('dbName') ?? '') : undefined;
}
