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
