import type { EntityManager } from '@mikro-orm/core';
import { tenantAuthTenantSchema } from './entities/tenant.js';
import { schemaOf } from './entity-manager-source.js';
import type { SqlDriver } from './sql/sql-driver.js';
import { toStoreError } from './to-store-error.js';

/**
 * @internal The SQL stores' driver on MikroORM: each statement on the entity manager's connection, in
 * `transaction` when given, else in no transaction (a pooled connection, as on a fresh fork: never the
 * application's ambient transaction). Errors come as MikroORM's exception classes (as its entity API
 * reports them) mapped to `TenantAuthError`s; the schema is the one the ORM would write (all tenant-auth
 * entities share the tenant's).
 */
export function mikroOrmSqlDriver(em: EntityManager, transaction?: unknown): SqlDriver {
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
        return await fn(mikroOrmSqlDriver(tx, tx.getTransactionContext()));
      } catch (err) {
        failedInside = true;
        throw err;
      }
    });
  } catch (err) {
    throw failedInside ? err : toStoreError(err);
  }
}
