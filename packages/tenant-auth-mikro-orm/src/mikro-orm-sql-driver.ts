import type { EntityManager } from '@mikro-orm/core';
import { tenantAuthTenantSchema } from './entities/tenant.js';
import { schemaOf } from './entity-manager-source.js';
import { type PgPool, pgPoolDriver } from './pg-pool-driver.js';
import type { SqlDriver } from './sql/sql-driver.js';
import { toStoreError } from './to-store-error.js';

/**
 * @internal The SQL stores' driver on MikroORM. On PostgreSQL, statements go as prepared statements
 * straight to the `pg` pool the ORM holds ({@link pgPoolDriver}), unless `preparedStatements` is `false` or
 * the ORM is configured to see each query itself ({@link observedByOrm}, {@link connectionHooks});
 * otherwise, and on PGlite, each statement runs through the ORM's connection (`execute`), in its
 * transaction when in one, else in no transaction (a pooled connection, as on a fresh fork: never the
 * application's ambient transaction). Errors come as MikroORM's exception classes (as its entity API
 * reports them) mapped to `TenantAuthError`s; the schema is the one the ORM would write (all tenant-auth
 * entities share the tenant's).
 */
export function mikroOrmSqlDriver(em: EntityManager, options: { preparedStatements: boolean }): SqlDriver {
  const viaOrm = ormDriver(em);
  if (!options.preparedStatements) return viaOrm;
  const direct = directDriver(em);
  const pick = (forTransaction: boolean): SqlDriver | Promise<SqlDriver> => {
    const found = direct(forTransaction);
    return found === undefined ? viaOrm : found instanceof Promise ? found.then((d) => d ?? viaOrm) : found;
  };
  return {
    get schema() {
      return viaOrm.schema;
    },
    rows: async <T>(sql: string, params: readonly unknown[]) => (await pick(false)).rows<T>(sql, params),
    execute: async (sql, params) => (await pick(false)).execute(sql, params),
    transaction: async (fn) => (await pick(true)).transaction(fn),
  };
}

/**
 * Whether this statement or transaction takes the ORM's own path because the application asked the ORM to
 * see its queries or to shape its transactions: query logging (`debug`), the slow-query log, and, for
 * transactions, event subscribers (which hear of transactions begun and committed) and a session context
 * of the entity manager in use now (a request's or a transaction's: the ORM sets its variables and role in
 * each transaction it begins). Asked at every call, since both can change while the process runs. `onQuery`
 * is honoured on both paths.
 */
function observedByOrm(em: EntityManager, forTransaction: boolean): boolean {
  const { config } = em;
  return (
    config.getLogger().isEnabled('query') ||
    config.get('slowQueryThreshold') != null ||
    (forTransaction &&
      (em.getEventManager().getSubscribers().size > 0 || em.getSessionContext() !== undefined))
  );
}

/** Hooks that run when the ORM hands out a connection, which the pool's own clients would skip. */
function connectionHooks(em: EntityManager): boolean {
  const { config } = em;
  return (
    config.get('onCreateConnection') !== undefined ||
    config.get('onReserveConnection') !== undefined ||
    config.get('sessionContext') === 'connection'
  );
}

/** The `pg` pool of MikroORM's PostgreSQL connection, by its shape (`undefined` on PGlite and others). */
function asPgPool(client: unknown): PgPool | undefined {
  const pool = client as
    | (Partial<PgPool> & { query?: unknown; totalCount?: unknown; waitingCount?: unknown })
    | undefined;
  return typeof pool?.connect === 'function' &&
    typeof pool.query === 'function' &&
    typeof pool.totalCount === 'number' &&
    typeof pool.waitingCount === 'number'
    ? (pool as PgPool)
    : undefined;
}

/**
 * The prepared-statement driver on `em`'s pool, when a call may take it (`undefined`: the ORM's path).
 * Found once (a promise the first time), and again when the ORM has closed the pool it had (a reconnect).
 */
function directDriver(
  em: EntityManager,
): (forTransaction: boolean) => SqlDriver | undefined | Promise<SqlDriver | undefined> {
  let found: { pool: PgPool; driver: SqlDriver } | null | undefined;
  let finding: Promise<SqlDriver | undefined> | undefined;
  const connection = em.getConnection() as ReturnType<EntityManager['getConnection']> & {
    getNativeClient?: () => Promise<unknown>;
  };

  async function find(): Promise<SqlDriver | undefined> {
    if (typeof connection.getNativeClient !== 'function' || connectionHooks(em)) {
      found = null;
      return undefined;
    }
    // A database that does not answer yet fails here as on the ORM's path; the next statement tries again.
    await connection.ensureConnection();
    let pool: PgPool | undefined;
    try {
      pool = asPgPool(await connection.getNativeClient());
    } catch {
      // A client the application handed the ORM ready-made (a Kysely instance or dialect): no pool of ours.
    }
    if (pool === undefined) {
      found = null;
      return undefined;
    }
    const driver = pgPoolDriver(pool, {
      get schema() {
        return schemaOf(em, tenantAuthTenantSchema);
      },
      onQuery: (sql, params) => em.config.get('onQuery')(sql, [...params]),
      storeError: (err) => toStoreError(err instanceof Error ? em.getDriver().convertException(err) : err),
    });
    found = { pool, driver };
    return driver;
  }

  return (forTransaction) => {
    if (found === null || observedByOrm(em, forTransaction)) return undefined;
    if (found !== undefined && !found.pool.ending) return found.driver;
    finding ??= find().finally(() => {
      finding = undefined;
    });
    return finding;
  };
}

/** Each statement through the ORM's connection (`execute`), in `transaction` when given. */
function ormDriver(em: EntityManager, transaction?: unknown): SqlDriver {
  const run = async <T>(sql: string, params: readonly unknown[], method: 'all' | 'run'): Promise<T> => {
    try {
      return (await em.getConnection().execute(sql, [...params], method, transaction as never)) as T;
    } catch (err) {
      throw toStoreError(err instanceof Error ? em.getDriver().convertException(err) : err);
    }
  };
  const driver: SqlDriver = {
    get schema() {
      return schemaOf(em, tenantAuthTenantSchema);
    },
    rows: <T>(sql: string, params: readonly unknown[]) => run<T[]>(sql, params, 'all'),
    async execute(sql, params) {
      const result = await run<{ affectedRows?: unknown }>(sql, params, 'run');
      return Number(result.affectedRows ?? 0);
    },
    transaction: (fn) => (transaction === undefined ? inNewTransaction(em, fn) : fn(driver)),
  };
  return driver;
}

/** Runs `fn` in a transaction of a fork of `em`; what `fn` throws passes unchanged, what committing throws is mapped. */
async function inNewTransaction<T>(em: EntityManager, fn: (tx: SqlDriver) => Promise<T>): Promise<T> {
  let failedInside = false;
  try {
    return await em.fork().transactional(async (tx) => {
      try {
        return await fn(ormDriver(tx, tx.getTransactionContext()));
      } catch (err) {
        failedInside = true;
        throw err;
      }
    });
  } catch (err) {
    throw failedInside ? err : toStoreError(err);
  }
}
