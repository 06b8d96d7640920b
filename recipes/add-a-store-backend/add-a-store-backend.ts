// Recipe: a store backend of your own. tenant-auth-mikro-orm/sql holds every statement the stores send;
// a backend is the few lines that carry them to PostgreSQL: here node-postgres (`pg`) and PGlite, each a
// driver of three methods. The tables are the ones the tenant-auth migrations create (see the test).
// docs/extending.md, "Add a store backend", walks through it.
import type pg from 'pg';
import type { TenantAuthStores } from 'tenant-auth-core';
import { createSqlStores, numberParameters, type SqlDriver } from 'tenant-auth-mikro-orm/sql';

/** What a driver needs of a client: a statement with numbered parameters, answered with its rows and count. */
export interface Queryable {
  query(
    text: string,
    values: unknown[],
  ): Promise<{ rows: unknown[]; rowCount?: number | null; affectedRows?: number }>;
}

/**
 * The driver over `client`, whose statements run where the client runs them; `begin` opens a transaction,
 * absent when the client is in one already (a transaction then runs in it).
 */
function driverOn(
  client: Queryable,
  begin?: <T>(fn: (tx: SqlDriver) => Promise<T>) => Promise<T>,
): SqlDriver {
  const query = (sql: string, params: readonly unknown[]) => client.query(numberParameters(sql), [...params]);
  const driver: SqlDriver = {
    rows: async <T>(sql: string, params: readonly unknown[]) => (await query(sql, params)).rows as T[],
    async execute(sql, params) {
      const result = await query(sql, params);
      return result.rowCount ?? result.affectedRows ?? 0;
    },
    transaction: (fn) => (begin ? begin(fn) : fn(driver)),
  };
  return driver;
}

/**
 * A driver on a `pg` pool: a statement on any pooled connection, a transaction on one connection held
 * from `begin` to `commit` (or `rollback`).
 *
 * @example
 * const stores = createSqlStores(pgDriver(new pg.Pool({ connectionString: process.env.DATABASE_URL })));
 */
export function pgDriver(pool: pg.Pool): SqlDriver {
  return driverOn(pool, async (fn) => {
    const connection = await pool.connect();
    let broken: Error | undefined;
    try {
      await connection.query('begin');
      const result = await fn(driverOn(connection));
      await connection.query('commit');
      return result;
    } catch (err) {
      // A connection that cannot even roll back goes back to the pool as broken, and the pool drops it.
      await connection.query('rollback').catch((rollbackError: Error) => {
        broken = rollbackError;
      });
      throw err;
    } finally {
      connection.release(broken);
    }
  });
}

/** What the PGlite driver needs of a PGlite database: its queries and its own transactions. */
export interface PgliteDatabase extends Queryable {
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
}

/**
 * A driver on PGlite (PostgreSQL in WebAssembly, in the process). PGlite has one connection: its
 * `transaction` holds it, and other statements wait for the transaction to end.
 *
 * @example
 * const stores = createSqlStores(pgliteDriver(await PGlite.create('./data/pglite')));
 */
export function pgliteDriver(db: PgliteDatabase): SqlDriver {
  return driverOn(db, (fn) => db.transaction((tx) => fn(driverOn(tx))));
}

/**
 * The backend: every tenant-auth store on a `pg` pool, for `createTenantAuth({ stores })`.
 *
 * @example
 * const auth = createTenantAuth({ stores: createPgStores(pool), accessToken: { secret }, refreshSecret });
 */
export function createPgStores(pool: pg.Pool): TenantAuthStores {
  return createSqlStores(pgDriver(pool));
}
