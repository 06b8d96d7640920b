import type { EntityManager } from '@mikro-orm/core';

/**
 * @internal Runs SQL on the entity manager's connection, in its transaction when it is the entity manager
 * of one (the connection's own `execute` uses a pooled connection unless it is given the transaction).
 * Placeholders are `?`.
 */
export async function executeSql<T>(
  em: EntityManager,
  sql: string,
  params: readonly unknown[],
  method: 'all' | 'run',
): Promise<T> {
  return (await em.getConnection().execute(sql, [...params], method, em.getTransactionContext())) as T;
}

/** @internal The rows a statement returned (`method` `all`). */
export function selectRows<T>(em: EntityManager, sql: string, params: readonly unknown[]): Promise<T[]> {
  return executeSql<T[]>(em, sql, params, 'all');
}

/** @internal How many rows a statement changed (`method` `run`). */
export async function affectedRows(
  em: EntityManager,
  sql: string,
  params: readonly unknown[],
): Promise<number> {
  const result = await executeSql<{ affectedRows?: unknown }>(em, sql, params, 'run');
  return Number(result.affectedRows ?? 0);
}

/** @internal Refuses a batch size or limit that is not a positive integer, as the memory stores do. */
export function checkBatchSize(batchSize: number, name = 'batchSize'): void {
  if (!Number.isInteger(batchSize) || batchSize < 1)
    throw new TypeError(`${name} must be a positive integer`);
}
