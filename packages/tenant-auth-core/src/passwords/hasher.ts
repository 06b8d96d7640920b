import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import bcrypt from 'bcrypt';
import { TenantAuthError } from '../errors.js';

/**
 * Default HMAC key of the pre-hash when no pepper is configured. It is not a secret: it only separates
 * this use of SHA-256 from any other (domain separation). Changing it invalidates every stored hash.
 */
export const DEFAULT_PREHASH_KEY = 'tenant-auth/password-prehash/v1';

/** bcrypt's own bounds for the cost (log2 of the rounds). */
export const MIN_BCRYPT_COST = 4;
export const MAX_BCRYPT_COST = 31;

/** A surrogate code unit outside a pair: the string is not well-formed Unicode. */
const LONE_SURROGATE = /\p{Cs}/u;

/** A stored bcrypt hash: `$2a$`/`$2b$`/`$2y$`, a two-digit cost 04..31, 22 salt and 31 hash characters. */
const BCRYPT_HASH = /^\$2[aby]\$(?:0[4-9]|[12]\d|3[01])\$[./A-Za-z0-9]{53}$/;

export interface PasswordHasherOptions {
  /** bcrypt cost, an integer from 4 to 31. Default 12. Tests use 4. */
  cost?: number;
  /**
   * Secret key of the HMAC-SHA256 pre-hash (a pepper kept outside the database). Default:
   * {@link DEFAULT_PREHASH_KEY}. Changing it invalidates every stored hash.
   */
  pepper?: string | Uint8Array;
  /**
   * Most bcrypt operations at once. Default `max(1, UV_THREADPOOL_SIZE - 1)` (libuv's default pool
   * size is 4), so one thread-pool thread stays free for the WebCrypto work of token verification.
   */
  maxConcurrent?: number;
  /** Most operations waiting for a slot; beyond it calls fail fast with `unavailable`. Default 100. */
  maxQueue?: number;
}

export interface PasswordHasherStats {
  /** bcrypt operations running now. */
  active: number;
  /** Operations waiting for a slot. */
  queued: number;
}

export interface PasswordHasher {
  /**
   * Hashes a password for storage. Rejects with `unavailable` (retry after 1 s) when the wait queue is
   * full, and with `validation_failed` for a string that is not well-formed Unicode (a lone surrogate).
   */
  hash(password: string): Promise<string>;
  /**
   * Whether `password` matches `hash`. A malformed hash gives `false`, never a driver error. Rejects
   * with `unavailable` when the wait queue is full.
   */
  verify(password: string, hash: string): Promise<boolean>;
  /** The pool's current load. */
  stats(): PasswordHasherStats;
}

function configError(message: string): TenantAuthError {
  return new TenantAuthError('internal_error', `Invalid password hasher option: ${message}`);
}

/**
 * Checks a bcrypt cost (an integer from 4 to 31) and returns it; throws `internal_error` otherwise.
 *
 * @example
 * const cost = validateCost(Number(process.env.BCRYPT_COST ?? 12));
 */
export function validateCost(cost: number): number {
  if (
    typeof cost !== 'number' ||
    !Number.isInteger(cost) ||
    cost < MIN_BCRYPT_COST ||
    cost > MAX_BCRYPT_COST
  ) {
    throw configError(
      `cost must be an integer from ${MIN_BCRYPT_COST} to ${MAX_BCRYPT_COST}, got ${String(cost)}.`,
    );
  }
  return cost;
}

/**
 * The default cap of concurrent bcrypt operations: one less than libuv's thread pool
 * (`UV_THREADPOOL_SIZE`, default 4, at most 1024), and at least 1.
 *
 * @example
 * defaultMaxConcurrent({ UV_THREADPOOL_SIZE: '8' }); // 7
 */
export function defaultMaxConcurrent(env: Record<string, string | undefined> = process.env): number {
  const raw = env.UV_THREADPOOL_SIZE;
  const parsed = raw !== undefined && /^\s*\d+\s*$/.test(raw) ? Number(raw) : Number.NaN;
  const poolSize = parsed >= 1 ? Math.min(parsed, 1024) : 4;
  return Math.max(1, poolSize - 1);
}

/**
 * A counting semaphore with a bounded FIFO wait queue. A released slot is handed straight to the
 * oldest waiter, so `active` never exceeds the cap and no newcomer can overtake the queue.
 */
class BoundedPool {
  #active = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(
    private readonly maxConcurrent: number,
    private readonly maxQueue: number,
  ) {}

  stats(): PasswordHasherStats {
    return { active: this.#active, queued: this.#waiting.length };
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#active < this.maxConcurrent) {
      this.#active++;
    } else if (this.#waiting.length < this.maxQueue) {
      // The releaser hands its slot over without decrementing `active`.
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else {
      throw new TenantAuthError('unavailable', 'The service is busy. Retry shortly.', {
        retryAfterSeconds: 1,
      });
    }
    try {
      return await task();
    } finally {
      const next = this.#waiting.shift();
      if (next === undefined) this.#active--;
      else next();
    }
  }
}

/**
 * Builds the bcrypt password hasher. Passwords are first reduced with HMAC-SHA256 (keyed by the pepper)
 * and base64-encoded, so bcrypt always sees 44 ASCII characters: no silent truncation at 72 bytes and no
 * NUL bytes, whatever the password's length or characters. The stored value is a standard bcrypt hash
 * of that digest. All bcrypt work goes through a bounded pool (see {@link PasswordHasherOptions}).
 *
 * @example
 * const hasher = createPasswordHasher({ cost: 12, pepper: process.env.PASSWORD_PEPPER });
 * const stored = await hasher.hash('Vt7#pLq2!mZr');
 * await hasher.verify('Vt7#pLq2!mZr', stored); // true
 */
export function createPasswordHasher(options: PasswordHasherOptions = {}): PasswordHasher {
  const cost = validateCost(options.cost ?? 12);
  const maxConcurrent = options.maxConcurrent ?? defaultMaxConcurrent();
  const maxQueue = options.maxQueue ?? 100;
  if (!Number.isInteger(maxConcurrent) || maxConcurrent < 1) {
    throw configError(`maxConcurrent must be a positive integer, got ${String(maxConcurrent)}.`);
  }
  if (!Number.isInteger(maxQueue) || maxQueue < 0) {
    throw configError(`maxQueue must be a non-negative integer, got ${String(maxQueue)}.`);
  }
  const pepper = options.pepper ?? DEFAULT_PREHASH_KEY;
  const keyBytes = typeof pepper === 'string' ? Buffer.from(pepper, 'utf8') : Buffer.from(pepper);
  if (keyBytes.length === 0) throw configError('pepper must not be empty.');
  // Imported once, not per call.
  const key: KeyObject = createSecretKey(keyBytes);
  const pool = new BoundedPool(maxConcurrent, maxQueue);

  const prehash = (password: string): string =>
    createHmac('sha256', key).update(password, 'utf8').digest('base64');

  return {
    async hash(password) {
      // A lone surrogate would be encoded as U+FFFD, so distinct strings could share a hash: refuse.
      if (typeof password !== 'string' || LONE_SURROGATE.test(password)) {
        throw new TenantAuthError('validation_failed', 'The request is invalid.', {
          errors: [{ field: 'password', code: 'invalid_value', message: 'The password is not valid text.' }],
        });
      }
      const input = prehash(password);
      return pool.run(() => bcrypt.hash(input, cost));
    },

    async verify(password, hash) {
      if (typeof password !== 'string' || LONE_SURROGATE.test(password)) return false;
      if (typeof hash !== 'string' || !BCRYPT_HASH.test(hash)) return false;
      const input = prehash(password);
      return pool.run(async () => {
        try {
          return await bcrypt.compare(input, hash);
        } catch {
          return false;
        }
      });
    },

    stats: () => pool.stats(),
  };
}
