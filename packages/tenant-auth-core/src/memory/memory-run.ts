import type { SealedValuePage } from '../ports/sealed-value-page.js';
import type { MemoryState } from './memory-database.js';

/** @internal Runs a store operation against the state: alone at the top level, directly inside a transaction. */
export type Run = <T>(fn: (state: MemoryState) => T) => Promise<T>;

/** @internal Values go in and out as copies, as they would through a database. */
export const copy = <T>(value: T): T => structuredClone(value);

/** @internal */
export function copyOrNull<T>(value: T | undefined): T | null {
  return value === undefined ? null : copy(value);
}

/** @internal Checks the batch size of a cleanup verb. */
export function checkBatchSize(batchSize: number): void {
  if (!Number.isInteger(batchSize) || batchSize < 1) {
    throw new TypeError('batchSize must be a positive integer');
  }
}

/** @internal One keyset page of `rows`: those whose key comes after `page.after`, in key order, `limit` at most. */
export function pageOf<T>(rows: Iterable<T>, keyOf: (row: T) => string, page: SealedValuePage): T[] {
  checkBatchSize(page.limit);
  return [...rows]
    .filter((row) => page.after === null || keyOf(row) > page.after)
    .sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : 1))
    .slice(0, page.limit);
}
