import {
  type RateLimitHit,
  type RateLimitHitOptions,
  type RateLimitStore,
  RateLimitStoreFullError,
} from '../ports/rate-limit-store.js';
import { checkHitOptions, type SlidingLog, slidingLogHit } from '../ports/sliding-log.js';
import { configurationError, TenantAuthError } from '../vocabulary/errors.js';

/**
 * Options of `MemoryRateLimitStore`.
 *
 * @example
 * new MemoryRateLimitStore({ maxKeys: 50_000, sweepIntervalSeconds: 30 } satisfies MemoryRateLimitStoreOptions);
 */
export interface MemoryRateLimitStoreOptions {
  /**
   * Most keys held at once per partition (the text of a key before its first `:`; tenant-auth writes one
   * partition per budget and key level), default 100 000; a key holds at most ~63 small entries. At the
   * cap, expired keys are dropped first; if every key is still live, a hit on a NEW key throws
   * `RateLimitStoreFullError` and tenant-auth counts the client under a coarser key instead (a /56, a /48
   * or a /24, then one shared bucket). Existing counters are never evicted to make room: evicting would
   * let a flood of fresh keys reset an attacker's counter, and one partition filling up never affects
   * another.
   */
  maxKeys?: number;
  /** How often expired keys are dropped, in seconds (default 60). The timer does not keep the process alive. */
  sweepIntervalSeconds?: number;
}

interface Entry {
  log: SlidingLog;
  /** When the newest hit leaves the window: past this the key counts nothing. */
  expiresAt: number;
}

const partitionOf = (key: string) => {
  const colon = key.indexOf(':');
  return colon === -1 ? '' : key.slice(0, colon);
};

/**
 * An in-process `RateLimitStore`: a sliding log per key in a `Map`, with a cap per partition. For a
 * single instance and for tests; several instances need a shared store (tenant-auth-redis). It is what
 * `createTenantAuth` uses when no `rateLimit.store` is given.
 *
 * @example
 * const store = new MemoryRateLimitStore({ maxKeys: 50_000 });
 * const auth = createTenantAuth({ ...options, rateLimit: { store } });
 * await store.close(); // on shutdown
 */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly maxKeys: number;
  // Per partition. Insertion order is the order of the last write (a write deletes and re-inserts), so
  // the keys that expire first are at the front in the common case of one window length.
  readonly #partitions = new Map<string, Map<string, Entry>>();
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(options: MemoryRateLimitStoreOptions = {}) {
    const { maxKeys = 100_000, sweepIntervalSeconds = 60 } = options;
    const problem = (option: string, text: string) =>
      configurationError('MemoryRateLimitStore', option, text);
    if (!Number.isSafeInteger(maxKeys) || maxKeys < 1) throw problem('maxKeys', 'must be a positive integer');
    if (!Number.isSafeInteger(sweepIntervalSeconds) || sweepIntervalSeconds < 1) {
      throw problem('sweepIntervalSeconds', 'must be a positive integer');
    }
    this.maxKeys = maxKeys;
    this.#timer = setInterval(() => this.prune(), sweepIntervalSeconds * 1000);
    this.#timer.unref();
  }

  /** Number of keys held, every partition together (expired ones included until the next sweep). */
  get size(): number {
    let size = 0;
    for (const entries of this.#partitions.values()) size += entries.size;
    return size;
  }

  async hit(key: string, options: RateLimitHitOptions): Promise<RateLimitHit> {
    const { windowMs, now, cost, limit } = checkHitOptions(options);
    if (this.#timer === undefined) {
      throw new TenantAuthError('unavailable', 'The rate-limit store is closed.');
    }
    const partition = partitionOf(key);
    let entries = this.#partitions.get(partition);
    const entry = entries?.get(key);
    if (entry === undefined) {
      // Nothing to read or give back, or a first hit already over its limit: nothing is created.
      if (cost <= 0) return { count: 0, resetMs: 0 };
      if (limit >= 0 && cost > limit) return { count: cost, resetMs: 0 };
      if (entries === undefined) {
        entries = new Map();
        this.#partitions.set(partition, entries);
      }
      if (entries.size >= this.maxKeys) this.#makeRoom(entries, partition, now);
      const log: SlidingLog = [];
      const result = slidingLogHit(log, { windowMs, now, cost, limit });
      entries.set(key, { log, expiresAt: (log[log.length - 2] ?? now) + windowMs });
      return result;
    }
    const result = slidingLogHit(entry.log, { windowMs, now, cost, limit });
    if (entry.log.length === 0) {
      entries?.delete(key);
    } else if (cost > 0) {
      entry.expiresAt = (entry.log[entry.log.length - 2] ?? now) + windowMs;
      entries?.delete(key);
      entries?.set(key, entry);
    }
    return result;
  }

  /**
   * Drops every key whose hits have all left their window. Runs on the timer; callable directly.
   * Returns how many keys it dropped.
   *
   * @example store.prune(); // 0 when nothing expired
   */
  prune(now: number = Date.now()): number {
    let dropped = 0;
    for (const entries of this.#partitions.values()) {
      for (const [key, entry] of entries) {
        if (entry.expiresAt <= now) {
          entries.delete(key);
          dropped++;
        }
      }
    }
    return dropped;
  }

  /** Stops the sweep timer and forgets every key; later hits reject with `unavailable`. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#partitions.clear();
  }

  // Amortised O(1): drops expired keys from the front only, so a flood at the cap cannot make every hit
  // scan 100k keys. The timer's full sweep catches expired keys behind a live one.
  #makeRoom(entries: Map<string, Entry>, partition: string, now: number): void {
    for (const [key, entry] of entries) {
      if (entry.expiresAt > now) break;
      entries.delete(key);
    }
    if (entries.size >= this.maxKeys) throw new RateLimitStoreFullError(partition);
  }
}
