import { createHash, createHmac } from 'node:crypto';
import type { Clock } from '../clock.js';
import { TenantAuthError } from '../errors.js';
import type { RateLimitStore } from '../stores/types.js';
import { createRateLimiter, type RateLimitLogger, type StoreErrorPolicy } from './rate-limiter.js';

/**
 * Options of `createLoginThrottle`.
 *
 * @example createLoginThrottle({ store, maxFailures: 5, windowMs: 5 * 60_000, secret: process.env.THROTTLE_SECRET });
 */
export interface LoginThrottleOptions {
  store: RateLimitStore;
  /** Failed logins per email within the window before that email is refused. Default 10. */
  maxFailures?: number;
  /** Default 60 000 ms. */
  windowMs?: number;
  clock?: Clock;
  /** Default `'fail-closed'`: with the store down, logins are refused with `unavailable`. */
  onStoreError?: StoreErrorPolicy;
  logger?: RateLimitLogger;
  /** Default `'login-fail:'`. */
  keyPrefix?: string;
  /**
   * Optional secret: keys become HMAC-SHA256 of the email instead of SHA-256, so someone who can read the
   * store cannot confirm a guessed address by hashing it. Every instance sharing the store needs the same one.
   */
  secret?: string | Uint8Array;
}

/**
 * Per-account throttling of failed logins, on top of the per-IP budgets (made by `createLoginThrottle`).
 *
 * @example
 * await throttle.assertAllowed(email); // throws rate_limited when locked
 * await throttle.recordFailure(email); // after an invalid_credentials
 */
export interface LoginThrottle {
  /**
   * Throws `TenantAuthError('rate_limited')` (with `retryAfterSeconds`) when the email has `maxFailures`
   * failures in the window; counts nothing. Call it before checking the password.
   */
  assertAllowed(normalisedEmail: string): Promise<void>;
  /** Counts one failure. Call it after every `invalid_credentials`, for unknown emails too. */
  recordFailure(normalisedEmail: string): Promise<void>;
  /**
   * Counts one login attempt and refuses it with `rate_limited` when the email already had `maxFailures`
   * attempts in the window, in ONE atomic store operation. Call it before checking the password.
   * Prefer it to `assertAllowed` + `recordFailure`: those are two operations, and concurrent requests
   * all pass the check before any failure is recorded (100 parallel guesses against a limit of 10).
   * Successful logins count as attempts too; a person rarely logs in ten times a minute.
   */
  attempt(normalisedEmail: string): Promise<void>;
}

/**
 * Creates the per-account login throttle. Failures are counted per normalised email whether or not an
 * account exists, so the answer reveals nothing; the key is a hash, so the store holds no address. A
 * locked email unlocks by itself as its failures leave the sliding window (a success does not clear them).
 *
 * @example
 * const throttle = createLoginThrottle({ store, maxFailures: 10, windowMs: 60_000 });
 * await throttle.assertAllowed(email);
 * const user = await verify(email, password).catch(async (err) => {
 *   if (isTenantAuthError(err, 'invalid_credentials')) await throttle.recordFailure(email);
 *   throw err;
 * });
 */
export function createLoginThrottle(options: LoginThrottleOptions): LoginThrottle {
  const { maxFailures = 10, windowMs = 60_000, keyPrefix = 'login-fail:', secret } = options;
  const limiter = createRateLimiter({
    store: options.store,
    limit: maxFailures,
    windowMs,
    keyPrefix,
    name: 'login-failures',
    onStoreError: options.onStoreError ?? 'fail-closed',
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  });
  // 128 bits of the digest: collisions are out of reach, and the key stays short.
  const keyOf = (email: string) =>
    (secret === undefined ? createHash('sha256') : createHmac('sha256', secret))
      .update(email)
      .digest('hex')
      .slice(0, 32);

  /** Consumes `cost` (0: only reads) and refuses with `rate_limited` when the email is over its budget. */
  async function consume(normalisedEmail: string, cost: 0 | 1): Promise<void> {
    const result = await limiter.consume(keyOf(normalisedEmail), cost);
    if (!result.allowed) {
      throw new TenantAuthError(
        'rate_limited',
        'Too many login attempts for this account; try again later.',
        {
          retryAfterSeconds: result.retryAfterSeconds,
        },
      );
    }
  }

  return {
    assertAllowed: (normalisedEmail) => consume(normalisedEmail, 0),
    async recordFailure(normalisedEmail) {
      await limiter.consume(keyOf(normalisedEmail), 1);
    },
    attempt: (normalisedEmail) => consume(normalisedEmail, 1),
  };
}
