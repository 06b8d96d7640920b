import type { Logger } from '../../ports/logger.js';
import type { RateLimitStore } from '../../ports/rate-limit-store.js';
import { type SlidingLog, slidingLogHit } from '../../ports/sliding-log.js';
import type { Clock } from '../../vocabulary/clock.js';
import { errorOf, TenantAuthError } from '../../vocabulary/errors.js';
import type { RateLimitBudget, RateLimitResult } from '../../vocabulary/rate-limit-result.js';

/**
 * @internal What to do when the store throws: refuse with `unavailable` (503), or let the request
 * through and warn once per outage.
 */
export type StoreErrorPolicy = 'fail-closed' | 'fail-open';

/** @internal */
export interface RateLimiterOptions {
  store: RateLimitStore;
  budget: RateLimitBudget;
  /** Hits allowed per key within any span of `windowMs`. */
  limit: number;
  windowMs: number;
  clock: Clock;
  onStoreError: StoreErrorPolicy;
  logger: Logger;
  /**
   * Whether refused hits are counted too (a client that ignores 429s stays limited: the per-client
   * budgets), or extend nothing (the per-account ones, so an attacker cannot keep an account locked).
   */
  countRefused: boolean;
  /**
   * When every level of the store is full: count in one bucket shared by all such clients of this
   * process (`'shared'`, the per-client budgets), or let the hit through uncounted (`'allow'`, the
   * per-account budgets: a bucket shared by every account would let a flood of fresh emails lock
   * everyone out; the per-client and network budgets still hold).
   */
  overflow: 'shared' | 'allow';
}

/** @internal The outcome of one `consume`, and the key it was counted under (for a refund). */
export interface Consumed extends RateLimitResult {
  /** The store key the hit was counted under; `undefined` in the shared overflow bucket. */
  key: string | undefined;
}

/** @internal One sliding-window budget over a store. */
export interface RateLimiter {
  readonly limit: number;
  /**
   * Counts `cost` hits for a client and says whether they fit. `keys` go from the client's own to
   * coarser ones: when the store's partition for one level is full, the next level counts the hit, and
   * when every level is full, one bucket shared by all such clients in this process does. Throws
   * `unavailable` when the store fails and the policy is `'fail-closed'`.
   */
  consume(keys: readonly string[], cost?: number): Promise<Consumed>;
  /** Gives one hit back on the key a `consume` counted it under (best effort; a failure is logged). */
  refund(key: string | undefined): Promise<void>;
}

/** Seconds a client is told to wait when a fail-closed budget's store is down. */
const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

const isStoreFull = (err: unknown) =>
  typeof err === 'object' && err !== null && (err as { name?: unknown }).name === 'RateLimitStoreFullError';

/** @internal Creates a sliding-window budget. Options are validated by the caller. */
export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const { store, budget, limit, windowMs, clock, onStoreError, logger, countRefused, overflow } = options;
  /** The overflow bucket: counted in this process when every level of the store is full. */
  const shared: SlidingLog = [];
  let outageSince: number | undefined;

  const result = (count: number, resetMs: number, cost: number, key: string | undefined): Consumed => {
    const allowed = cost === 0 ? count < limit : count <= limit;
    const resetSeconds = Math.ceil(resetMs / 1000);
    return {
      budget,
      allowed,
      limit,
      remaining: Math.max(0, limit - count),
      resetSeconds,
      retryAfterSeconds: allowed ? 0 : Math.max(1, resetSeconds),
      key,
    };
  };

  const keyOf = (keys: readonly string[], level: number) =>
    keys.length === 1 ? `${budget}:${keys[0]}` : `${budget}.${level}:${keys[level]}`;
  // The store keys of the frozen key lists (`clientKeys` keeps one per recent address and freezes it):
  // a request of a known client builds no key string, and the store hashes a string it has seen before.
  const storeKeys = new WeakMap<readonly string[], readonly string[]>();
  const storeKeysOf = (keys: readonly string[]): readonly string[] => {
    if (!Object.isFrozen(keys)) return keys.map((_, level) => keyOf(keys, level));
    let known = storeKeys.get(keys);
    if (known === undefined) {
      known = keys.map((_, level) => keyOf(keys, level));
      storeKeys.set(keys, known);
    }
    return known;
  };

  return {
    limit,
    async consume(keys, cost = 1) {
      const now = clock.now().getTime();
      try {
        const levels = storeKeysOf(keys);
        for (let level = 0; level < levels.length; level++) {
          const key = levels[level] as string;
          try {
            const hit = await store.hit(
              key,
              countRefused ? { windowMs, now, cost } : { windowMs, now, cost, limit },
            );
            if (outageSince !== undefined) {
              logger.info({ budget, outageMs: now - outageSince }, 'rate-limit store recovered');
              outageSince = undefined;
            }
            return result(hit.count, hit.resetMs, cost, key);
          } catch (err) {
            if (!isStoreFull(err)) throw err;
          }
        }
        if (overflow === 'allow') return result(0, 0, 0, undefined);
        const hit = slidingLogHit(shared, { windowMs, now, cost, limit: countRefused ? -1 : limit });
        return result(hit.count, hit.resetMs, cost, undefined);
      } catch (err) {
        if (outageSince === undefined) {
          outageSince = now;
          logger.warn(
            { err, budget, policy: onStoreError },
            onStoreError === 'fail-open'
              ? 'rate-limit store failed; allowing requests until it recovers'
              : 'rate-limit store failed; refusing requests until it recovers',
          );
        }
        if (onStoreError === 'fail-open') return result(cost, windowMs, cost, undefined);
        throw errorOf('unavailable', {
          cause: err,
          retryAfterSeconds: UNAVAILABLE_RETRY_AFTER_SECONDS,
        });
      }
    },
    async refund(key) {
      const now = clock.now().getTime();
      if (key === undefined) {
        if (overflow === 'shared') slidingLogHit(shared, { windowMs, now, cost: -1, limit: -1 });
        return;
      }
      try {
        await store.hit(key, { windowMs, now, cost: -1 });
      } catch (err) {
        logger.warn({ err, budget }, 'rate-limit store failed to give back a hit');
      }
    },
  };
}

/** @internal The `rate_limited` error of a refused result, carrying it for the response headers. */
export function rateLimited(consumed: Consumed, message: string): TenantAuthError {
  const { key: _key, ...rateLimit } = consumed;
  return new TenantAuthError('rate_limited', message, {
    retryAfterSeconds: consumed.retryAfterSeconds,
    rateLimit,
  });
}
