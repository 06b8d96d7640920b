import { type Clock, systemClock } from '../clock.js';
import { TenantAuthError } from '../errors.js';
import type { RateLimitStore } from '../stores/types.js';

/**
 * What to do when the store throws: refuse with `unavailable` (503), or let the request through and warn.
 *
 * @example const policy: StoreErrorPolicy = route.guardsCredentials ? 'fail-closed' : 'fail-open';
 */
export type StoreErrorPolicy = 'fail-closed' | 'fail-open';

/**
 * Where store outages are reported (pino-compatible).
 *
 * @example const logger: RateLimitLogger = pino(); // or { warn: (obj, msg) => console.warn(msg, obj) }
 */
export interface RateLimitLogger {
  warn(obj: object, msg: string): void;
  info?(obj: object, msg: string): void;
}

/**
 * Options of `createRateLimiter`.
 *
 * @example
 * const options: RateLimiterOptions = { store, limit: 300, windowMs: 60_000, keyPrefix: 'general:', onStoreError: 'fail-open' };
 */
export interface RateLimiterOptions {
  store: RateLimitStore;
  /** Hits allowed per key within any span of `windowMs`. */
  limit: number;
  /** Length of the sliding window in ms. */
  windowMs: number;
  clock?: Clock;
  /** Prepended to every key, so several budgets can share one store (e.g. `'auth:'`, `'general:'`). */
  keyPrefix?: string;
  /**
   * When the store throws: `'fail-closed'` throws `TenantAuthError('unavailable')` (use it for budgets that
   * guard credentials), `'fail-open'` allows the request and warns once per outage. Default `'fail-closed'`.
   */
  onStoreError?: StoreErrorPolicy;
  /** Receives one warning when an outage starts (and `info` when it ends). Default: `console.warn`. */
  logger?: RateLimitLogger;
  /** `Retry-After` of the `unavailable` error thrown on a failed-closed outage. Default 5 seconds. */
  unavailableRetryAfterSeconds?: number;
  /** Shown in log lines to tell budgets apart, e.g. `'auth'`. Default: the key prefix. */
  name?: string;
}

/**
 * The outcome of one `consume`. Maps onto the `RateLimit-*` and `Retry-After` headers.
 *
 * @example
 * const result: RateLimitResult = await limiter.consume(key);
 * ctx.set('RateLimit-Remaining', String(result.remaining));
 * if (!result.allowed) ctx.set('Retry-After', String(result.retryAfterSeconds));
 */
export interface RateLimitResult {
  /** Whether the request is within the budget. */
  allowed: boolean;
  /** The budget: hits per window. */
  limit: number;
  /** Hits left in the window now. */
  remaining: number;
  /** Seconds until the window frees a slot (0 when nothing is counted). */
  resetSeconds: number;
  /** Seconds to wait before retrying; 0 when `allowed`. */
  retryAfterSeconds: number;
}

/**
 * A sliding-window budget over a `RateLimitStore` (made by `createRateLimiter`).
 *
 * @example const { allowed } = await limiter.consume(clientIpKey(ip));
 */
export interface RateLimiter {
  readonly limit: number;
  readonly windowMs: number;
  /**
   * Counts `cost` hits (default 1) for `key` and says whether they fit. Refused hits are counted too, so a
   * client that ignores 429s keeps itself limited. `cost` 0 only reads: `allowed` then says whether one
   * more hit would fit.
   * Throws `TenantAuthError('unavailable')` when the store fails and the policy is `'fail-closed'`.
   */
  consume(key: string, cost?: number): Promise<RateLimitResult>;
}

const consoleLogger: RateLimitLogger = {
  warn: (obj, msg) => console.warn(msg, obj),
  info: (obj, msg) => console.info(msg, obj),
};

/**
 * Creates a sliding-window rate limiter.
 *
 * @example
 * const authLimiter = createRateLimiter({
 *   store: new MemoryRateLimitStore(),
 *   limit: 10,
 *   windowMs: 60_000,
 *   keyPrefix: 'auth:',
 *   onStoreError: 'fail-closed',
 * });
 * const result = await authLimiter.consume(clientIpKey(ctx.ip));
 * if (!result.allowed) throw new TenantAuthError('rate_limited', 'Too many requests.', {
 *   retryAfterSeconds: result.retryAfterSeconds,
 * });
 */
export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const {
    store,
    limit,
    windowMs,
    clock = systemClock,
    keyPrefix = '',
    onStoreError = 'fail-closed',
    logger = consoleLogger,
    unavailableRetryAfterSeconds = 5,
  } = options;
  const name = options.name ?? keyPrefix;
  if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError('limit must be a positive integer');
  if (!Number.isSafeInteger(windowMs) || windowMs < 1)
    throw new RangeError('windowMs must be a positive integer');
  if (onStoreError !== 'fail-closed' && onStoreError !== 'fail-open') {
    throw new RangeError("onStoreError must be 'fail-closed' or 'fail-open'");
  }
  let outageSince: number | undefined;

  return {
    limit,
    windowMs,
    async consume(key, cost = 1) {
      if (!Number.isSafeInteger(cost) || cost < 0) throw new RangeError('cost must be an integer >= 0');
      const now = clock.now().getTime();
      let hit: { count: number; resetMs: number };
      try {
        hit = await store.hit(keyPrefix + key, { windowMs, now, cost });
      } catch (err) {
        if (outageSince === undefined) {
          outageSince = now;
          logger.warn(
            { err, limiter: name, policy: onStoreError },
            onStoreError === 'fail-open'
              ? 'rate-limit store failed; allowing requests until it recovers'
              : 'rate-limit store failed; refusing requests until it recovers',
          );
        }
        if (onStoreError === 'fail-open') {
          return {
            allowed: true,
            limit,
            remaining: Math.max(0, limit - cost),
            resetSeconds: Math.ceil(windowMs / 1000),
            retryAfterSeconds: 0,
          };
        }
        throw new TenantAuthError('unavailable', 'The service is temporarily unavailable.', {
          cause: err,
          retryAfterSeconds: unavailableRetryAfterSeconds,
        });
      }
      if (outageSince !== undefined) {
        logger.info?.({ limiter: name, outageMs: now - outageSince }, 'rate-limit store recovered');
        outageSince = undefined;
      }
      const allowed = cost === 0 ? hit.count < limit : hit.count <= limit;
      const resetSeconds = Math.ceil(hit.resetMs / 1000);
      return {
        allowed,
        limit,
        remaining: Math.max(0, limit - hit.count),
        resetSeconds,
        retryAfterSeconds: allowed ? 0 : Math.max(1, resetSeconds),
      };
    },
  };
}
