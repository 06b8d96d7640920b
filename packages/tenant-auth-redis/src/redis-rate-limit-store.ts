import { configurationError, TenantAuthError } from 'tenant-auth-core';
import {
  checkHitOptions,
  SLIDING_LOG_ENTRY_CAP as ENTRY_CAP,
  type RateLimitHit,
  type RateLimitHitOptions,
  type RateLimitStore,
  slidingLogSlotMs as slotMs,
} from 'tenant-auth-core/store-kit';
import { SLIDING_LOG_LUA, SLIDING_LOG_SHA } from './sliding-log-script.js';

/**
 * What the store needs of an ioredis client (`Redis` or `Cluster`, ioredis 5 or 6): its status and
 * `EVALSHA`/`EVAL`.
 *
 * @example const client: RedisScriptClient = new Redis(process.env.REDIS_URL!);
 */
export interface RedisScriptClient {
  readonly status: string;
  evalsha(sha1: string, numkeys: number, ...args: (string | number)[]): Promise<unknown>;
  eval(script: string, numkeys: number, ...args: (string | number)[]): Promise<unknown>;
}

/**
 * Options of `RedisRateLimitStore`.
 *
 * @example new RedisRateLimitStore({ redis, keyPrefix: 'my-app:rl:', commandTimeoutMs: 250 });
 */
export interface RedisRateLimitStoreOptions {
  /** An ioredis client. The caller owns it: the store never connects, quits or changes it. */
  redis: RedisScriptClient;
  /** Prepended to every key (after ioredis's own `keyPrefix`, if the client has one). Default `'tenant-auth:rl:'`. */
  keyPrefix?: string;
  /**
   * How long a hit may wait for Redis before it rejects with `unavailable`, in ms (default 500). Bounds the
   * wait even when the connection hangs without closing; a healthy Redis answers in about a millisecond.
   */
  commandTimeoutMs?: number;
}

/**
 * Between the prefix and the key: the version of the stored layout. tenant-auth 1.0 kept a list under the
 * bare key; 1.1 keeps a string with a header, read and written in place, under `s2:` (`s:` held an
 * earlier packed string that was never released), so an instance of either version never meets the
 * other's keys during a rolling upgrade (each counts only the hits it sees until the rollout is done; the
 * old keys expire within a window).
 */
const LAYOUT = 's2:';

// A client in these states is known to be disconnected: ioredis would park the command in its offline
// queue until it reconnects, so the hit fails at once instead. `wait` (lazyConnect) and `connecting` are
// let through: the first command connects, and the timeout bounds the wait.
const DOWN = new Set(['reconnecting', 'close', 'end', 'disconnecting']);

/**
 * A `RateLimitStore` on Redis, for several instances sharing one budget: one round trip per hit
 * (`EVALSHA` of a Lua script, `EVAL` once after a script flush or a Redis restart), atomic, usually two
 * to five Redis commands per hit on a few bytes each however much a key holds (see sliding-log-script.ts),
 * a TTL on every key and at most 63 entries per key (a string of at most ~1.6 KiB under
 * `<keyPrefix>s2:<key>`). When Redis is down or slow, `hit` rejects with `TenantAuthError('unavailable')`
 * within `commandTimeoutMs`, and works again as soon as ioredis has reconnected by itself.
 *
 * @example
 * import { Redis } from 'ioredis';
 * import { createTenantAuth } from 'tenant-auth-core';
 * import { RedisRateLimitStore } from 'tenant-auth-redis';
 *
 * const redis = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
 * const auth = createTenantAuth({ ...options, rateLimit: { store: new RedisRateLimitStore({ redis }) } });
 */
export class RedisRateLimitStore implements RateLimitStore {
  /** What tenant-auth's start-up line calls this store. */
  readonly name = 'redis';
  readonly keyPrefix: string;
  readonly commandTimeoutMs: number;
  readonly #redis: RedisScriptClient;

  constructor(options: RedisRateLimitStoreOptions) {
    const { redis, keyPrefix = 'tenant-auth:rl:', commandTimeoutMs = 500 } = options;
    if (typeof redis?.evalsha !== 'function') {
      throw configurationError(
        'RedisRateLimitStore',
        'redis',
        'must be an ioredis client (Redis or Cluster)',
      );
    }
    if (!Number.isSafeInteger(commandTimeoutMs) || commandTimeoutMs < 1) {
      throw configurationError('RedisRateLimitStore', 'commandTimeoutMs', 'must be a positive integer');
    }
    this.#redis = redis;
    this.keyPrefix = keyPrefix;
    this.commandTimeoutMs = commandTimeoutMs;
  }

  async hit(key: string, options: RateLimitHitOptions): Promise<RateLimitHit> {
    const { windowMs, now, cost, limit } = checkHitOptions(options);
    if (DOWN.has(this.#redis.status)) {
      throw new TenantAuthError('unavailable', 'The rate-limit store is unavailable.', {
        cause: new Error(`Redis connection is ${this.#redis.status}`),
      });
    }
    const args = [
      this.keyPrefix + LAYOUT + key,
      now,
      windowMs,
      cost,
      slotMs(windowMs),
      ENTRY_CAP,
      limit,
    ] as const;
    let reply: unknown;
    try {
      reply = await this.#withTimeout(
        this.#redis.evalsha(SLIDING_LOG_SHA, 1, ...args).catch((err: unknown) => {
          if (!(err instanceof Error) || !err.message.includes('NOSCRIPT')) throw err;
          return this.#redis.eval(SLIDING_LOG_LUA, 1, ...args);
        }),
      );
    } catch (err) {
      throw new TenantAuthError('unavailable', 'The rate-limit store is unavailable.', { cause: err });
    }
    if (!Array.isArray(reply) || typeof reply[0] !== 'number' || typeof reply[1] !== 'number') {
      throw new TenantAuthError('unavailable', 'The rate-limit store answered unexpectedly.');
    }
    return { count: reply[0], resetMs: reply[1] };
  }

  #withTimeout<T>(promise: Promise<T>): Promise<T> {
    // One wrapping promise and one timer per hit (no Promise.race, no finally): this runs on every request.
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`Redis did not answer within ${this.commandTimeoutMs} ms`)),
        this.commandTimeoutMs,
      );
      // A late answer or error after the timeout settles nothing and is not an unhandled rejection.
      promise.then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (err: unknown) => {
          clearTimeout(timer);
          reject(err);
        },
      );
    });
  }
}
