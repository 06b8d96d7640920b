import type { EntityManager } from '@mikro-orm/core';

/**
 * @internal Where a store's SQL runs: an entity manager (for its connection, metadata and schema) and the
 * transaction to run in, `undefined` outside one. Outside a transaction the stores need no fork of their
 * own for SQL: a fork's connection is its parent's, and a fresh fork is in no transaction, which is what
 * `undefined` says (never the application's ambient transaction).
 */
export interface SqlScope {
  readonly em: EntityManager;
  readonly transaction: unknown;
}

/** @internal The scope of an entity manager: its connection, in its transaction if it has one. */
export function sqlScopeOf(em: EntityManager): SqlScope {
  return { em, transaction: em.getTransactionContext() };
}

/**
 * @internal Runs SQL on the scope's connection, in its transaction when it has one (the connection's own
 * `execute` uses a pooled connection unless it is given the transaction). Placeholders are `?`.
 */
export async function executeSql<T>(
  scope: SqlScope,
  sql: string,
  params: readonly unknown[],
  method: 'all' | 'run',
): Promise<T> {
  return (await scope.em.getConnection().execute(sql, [...params], method, scope.transaction as never)) as T;
}

/** @internal The rows a statement returned (`method` `all`). */
export function selectRows<T>(scope: SqlScope, sql: string, params: readonly unknown[]): Promise<T[]> {
  return executeSql<T[]>(scope, sql, params, 'all');
}

/** @internal How many rows a statement changed (`method` `run`). */
export async function affectedRows(
  scope: SqlScope,
  sql: string,
  params: readonly unknown[],
): Promise<number> {
  const result = await executeSql<{ affectedRows?: unknown }>(scope, sql, params, 'run');
  return Number(result.affectedRows ?? 0);
}

/** @internal Refuses a batch size or limit that is not a positive integer, as the memory stores do. */
export function checkBatchSize(batchSize: number, name = 'batchSize'): void {
  if (!Number.isInteger(batchSize) || batchSize < 1)
    throw new TypeError(`${name} must be a positive integer`);
}
