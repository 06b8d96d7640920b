import { isUuid } from 'tenant-auth-core';
import type { SqlDriver } from './sql-driver.js';

/** @internal Refuses a batch size or limit that is not a positive integer, as the memory stores do. */
export function checkBatchSize(batchSize: number, name = 'batchSize'): void {
  if (!Number.isInteger(batchSize) || batchSize < 1)
    throw new TypeError(`${name} must be a positive integer`);
}

/**
 * @internal A `text[]` parameter as the literal `{a,b}` (cast with `::text[]` in the statement), for words
 * that need no quoting in it (the callers check them: methods, transports, base64url hashes).
 */
export const textArrayLiteral = (words: readonly string[]): string => `{${words.join(',')}}`;

/**
 * @internal The ids that can be rows' ids, as a `uuid[]` literal (cast with `::uuid[]` in the statement);
 * anything else matches no row, so it is left out.
 */
export const uuidArray = (ids: readonly string[]): string => textArrayLiteral(ids.filter(isUuid));

/** @internal A nullable timestamp parameter (cast with `::timestamptz` in the statement). */
export const isoOrNull = (at: Date | null | undefined): string | null => at?.toISOString() ?? null;

/**
 * @internal Deletes at most `batchSize` rows of `table` matching `where`, first in `orderBy`: one statement
 * that picks the batch through the index `where` and `orderBy` name, skipping rows another cleaner has
 * locked (`FOR UPDATE SKIP LOCKED`, so two cleaners do not wait for each other), and deletes it by `key`
 * (the batch becomes an array, so the `DELETE` finds its rows by primary key whatever the table's size).
 * Resolves to the number deleted.
 */
export async function deleteBatch(
  driver: SqlDriver,
  batch: { table: string; key: string; where: string; orderBy: string; params: readonly unknown[] },
  batchSize: number,
): Promise<number> {
  checkBatchSize(batchSize);
  const { table, key, where, orderBy } = batch;
  return driver.execute(
    `delete from ${table} where ${key} = any(array(select ${key} from ${table}
  where ${where} order by ${orderBy} limit ? for update skip locked))`,
    [...batch.params, batchSize],
  );
}

/**
 * @internal Consumes the row of `table` whose `match` columns equal their values and that has not expired at
 * `now`: one `DELETE ... RETURNING`, so of concurrent callers one gets the row and the others nothing.
 */
export async function consumeUnexpired<Row>(
  driver: SqlDriver,
  consumed: { table: string; match: Readonly<Record<string, string>>; columns: string },
  now: Date,
): Promise<Row | undefined> {
  const conditions = Object.keys(consumed.match).map((column) => `${column} = ?`);
  const [row] = await driver.rows<Row>(
    `delete from ${consumed.table} where ${conditions.join(' and ')} and expires_at > ?::timestamptz
returning ${consumed.columns}`,
    [...Object.values(consumed.match), now.toISOString()],
  );
  return row;
}
