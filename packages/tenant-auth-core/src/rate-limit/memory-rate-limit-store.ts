import { type Clock, systemClock } from '../clock.js';
import { TenantAuthError } from '../errors.js';
import type { RateLimitHit, RateLimitStore } from '../stores/types.js';
import { checkHitOptions, type SlidingLog, slidingLogHit } from './sliding-log.js';

/**
 * Options of `MemoryRateLimitStore`.
 *
 * @example new MemoryRateLimitStore({ maxKeys: 50_000, sweepIntervalMs: 30_000 } satisfies MemoryRateLimitStoreOptions);
 */
export interface MemoryRateLimitStoreOptions {
  /**
   * Most keys held at once (default 100 000; a key holds at most ~63 small entries). At the cap, expired
   * keys are dropped first; if every key is still live, a hit on a NEW key is refused with
   * `TenantAuthError('unavailable')` (keys already counted keep counting), and the limiter's
   * `onStoreError` decides: the auth budget refuses (503), the general budget lets it through with a
   * warning. Existing counters are never evicted to make room: evicting would let a flood of fresh keys
   * reset an attacker's counter.
   */
  maxKeys?: number;
  /** How often expired keys are dropped, in ms (default 60 000). The timer does not keep the process alive. */
  sweepIntervalMs?: number;
  /** Time source of the sweep timer (hits carry their own `now`). Default: the system clock. */
  clock?: Clock;
}

interface Entry {
  log: SlidingLog;
  /** When the newest hit leaves the window: past this the key counts nothing. */
  expiresAt: number;
}

/**
 * An in-process `RateLimitStore`: a sliding log per key in a `Map`. For a single instance and for tests;
 * several instances need a shared store (tenant-auth-redis).
 *
 * @example
 * const store = new MemoryRateLimitStore({ maxKeys: 50_000 });
 * const { count, resetMs } = await store.hit('auth:ip:203.0.113.7', { windowMs: 60_000, now: Date.now() });
 * await store.close(); // on shutdown
 */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly maxKeys: number;
  // Insertion order is the order of the last write (a write deletes and re-inserts), so the keys that
  // expire first are at the front in the common case of one window length.
  readonly #entries = new Map<string, Entry>();
  readonly #clock: Clock;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(options: MemoryRateLimitStoreOptions = {}) {
    const { maxKeys = 100_000, sweepIntervalMs = 60_000, clock = systemClock } = options;
    if (!Number.isSafeInteger(maxKeys) || maxKeys < 1)
      throw new RangeError('maxKeys must be a positive integer');
    if (!Number.isSafeInteger(sweepIntervalMs) || sweepIntervalMs < 1) {
      throw new RangeError('sweepIntervalMs must be a positive integer');
    }
    this.maxKeys = maxKeys;
    this.#clock = clock;
    this.#timer = setInterval(() => this.prune(), sweepIntervalMs);
    this.#timer.unref();
  }

  /** Number of keys held (expired ones included until the next sweep). */
  get size(): number {
    return this.#entries.size;
  }

  async hit(key: string, options: { windowMs: number; now: number; cost?: number }): Promise<RateLimitHit> {
    const { windowMs, now, cost } = checkHitOptions(options);
    if (this.#timer === undefined) {
      throw new TenantAuthError('unavailable', 'The rate-limit store is closed.');
    }
    const entry = this.#entries.get(key);
    if (entry === undefined) {
      if (cost === 0) return { count: 0, resetMs: 0 };
      if (this.#entries.size >= this.maxKeys) this.#makeRoom(now);
      const log: SlidingLog = [];
      const result = slidingLogHit(log, { windowMs, now, cost });
      this.#entries.set(key, { log, expiresAt: (log[log.length - 2] ?? now) + windowMs });
      return result;
    }
    const result = slidingLogHit(entry.log, { windowMs, now, cost });
    if (entry.log.length === 0) {
      this.#entries.delete(key);
    } else if (cost > 0) {
      entry.expiresAt = (entry.log[entry.log.length - 2] ?? now) + windowMs;
      this.#entries.delete(key);
      this.#entries.set(key, entry);
    }
    return result;
  }

  /**
   * Drops every key whose hits have all left their window. Runs on the timer; callable directly.
   * Returns how many keys it dropped.
   *
   * @example store.prune(); // 0 when nothing expired
   */
  prune(now: number = this.#clock.now().getTime()): number {
    let dropped = 0;
    for (const [key, entry] of this.#entries) {
      if (entry.expiresAt <= now) {
        this.#entries.delete(key);
        dropped++;
      }
    }
    return dropped;
  }

  /** Stops the sweep timer and forgets every key; later hits reject with `unavailable`. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#entries.clear();
  }

  // Amortised O(1): drops expired keys from the front only, so a flood at the cap cannot make every hit
  // scan 100k keys. The timer's full sweep catches expired keys behind a live one.
  #makeRoom(now: number): void {
    for (const [key, entry] of this.#entries) {
      if (entry.expiresAt > now) break;
      this.#entries.delete(key);
    }
    if (this.#entries.size >= this.maxKeys) {
      throw new TenantAuthError('unavailable', 'The rate-limit store is full.');
    }
  }
}
