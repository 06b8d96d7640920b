import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import bcrypt from 'bcrypt';
import { type ResolvedInstrumentation, resolveInstrumentation } from '../../ports/instrumentation.js';
import { configurationError, fieldError, TenantAuthError, validationError } from '../../vocabulary/errors.js';

/**
 * Default HMAC key of the pre-hash when no pepper is configured. It is not a secret: it only separates
 * this use of SHA-256 from any other (domain separation). Changing it invalidates every stored hash.
 */
export const DEFAULT_PREHASH_KEY = 'tenant-auth/password-prehash/v1';

/** @internal bcrypt's own bounds for the cost (log2 of the rounds). */
export const MIN_BCRYPT_COST = 4;
/** @internal */
export const MAX_BCRYPT_COST = 31;

/** A surrogate code unit outside a pair: the string is not well-formed Unicode. */
const LONE_SURROGATE = /\p{Cs}/u;

/** A stored bcrypt hash: `$2a$`/`$2b$`/`$2y$`, a two-digit cost 04..31, 22 salt and 31 hash characters. */
const BCRYPT_HASH = /^\$2[aby]\$(?:0[4-9]|[12]\d|3[01])\$[./A-Za-z0-9]{53}$/;

/**
 * @internal Whether a stored password hash is a bcrypt hash this hasher can compare against. An account
 * without a password (an SSO-provisioned user) stores something else, and its login compares against
 * the dummy hash instead, at the same cost.
 */
export function isPasswordHash(hash: unknown): hash is string {
  return typeof hash === 'string' && BCRYPT_HASH.test(hash);
}

/**
 * How passwords are hashed (the `passwordHashing` option of `createTenantAuth`).
 *
 * @example
 * const passwordHashing: PasswordHasherOptions = { cost: 12, pepper: process.env.PASSWORD_PEPPER };
 */
export interface PasswordHasherOptions {
  /** bcrypt cost, an integer from 4 to 31. Default 12. Tests use 4. */
  cost?: number;
  /**
   * Secret key of the HMAC-SHA256 pre-hash (a pepper kept outside the database). Default: a fixed,
   * public domain-separation key. Changing it invalidates every stored hash.
   */
  pepper?: string | Uint8Array;
  /**
   * Most bcrypt operations at once. Default `max(1, UV_THREADPOOL_SIZE - 1)` (libuv's default pool
   * size is 4), so one thread-pool thread stays free for the WebCrypto work of token verification.
   */
  maxConcurrent?: number;
  /** Most operations waiting for a slot; beyond it calls fail fast with `unavailable`. Default 100. */
  maxQueue?: number;
  /**
   * Most operations one client network (an IPv4 /24, an IPv6 /48) may have running or waiting at once,
   * so no single network holds more than its share of the pool; waiting ones are served round-robin
   * across networks. Beyond it a call fails with `rate_limited` (retry after 1 s; a full pool is
   * `unavailable`). Default a tenth of `maxQueue` (10), at least 1. Raise it for offices whose people
   * all come from one address.
   */
  maxPerClient?: number;
}

/**
 * The load of the bounded password-hashing pool, for gauges (`auth.stats().hashing`).
 *
 * @example
 * const { active, queued }: PasswordHasherStats = auth.stats().hashing;
 */
export interface PasswordHasherStats {
  /** bcrypt operations running now. */
  active: number;
  /** Operations waiting for a slot. */
  queued: number;
}

/** @internal Who a hashing operation is for: the client network, for the fair share. */
export interface HashingOwner {
  owner?: string | undefined;
}

/** @internal */
export interface PasswordHasher {
  /**
   * Hashes a password for storage. Rejects with `unavailable` (retry after 1 s) when the wait queue is
   * full, with `rate_limited` (retry after 1 s) when the owner holds its share, and with
   * `validation_failed` for a string that is not well-formed Unicode (a lone surrogate).
   */
  hash(password: string, by?: HashingOwner): Promise<string>;
  /**
   * Whether `password` matches `hash`. A malformed hash gives `false`, never a driver error. Rejects
   * with `unavailable` when the wait queue is full, `rate_limited` when the owner holds its share.
   */
  verify(password: string, hash: string, by?: HashingOwner): Promise<boolean>;
  /** Whether a stored hash was made with a lower cost than the configured one. */
  needsRehash(hash: string): boolean;
  /** The pool's current load. */
  stats(): PasswordHasherStats;
}

function configError(option: string, message: string) {
  return configurationError('createTenantAuth', `passwordHashing.${option}`, message);
}

/**
 * @internal Checks a bcrypt cost (an integer from 4 to 31) and returns it; throws
 * `invalid_configuration` otherwise.
 */
export function validateCost(cost: number): number {
  if (
    typeof cost !== 'number' ||
    !Number.isInteger(cost) ||
    cost < MIN_BCRYPT_COST ||
    cost > MAX_BCRYPT_COST
  ) {
    throw configError(
      'cost',
      `must be an integer from ${MIN_BCRYPT_COST} to ${MAX_BCRYPT_COST} (got ${String(cost)})`,
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

const busy = () =>
  new TenantAuthError('unavailable', 'The service is busy. Retry shortly.', { retryAfterSeconds: 1 });

/**
 * One network holds its share of the pool: the service is not down, that network is over its share, so
 * `rate_limited` (docs/http-api.md, "Errors added in 1.2"), described as the network's budget (its share, none of it left) so that the
 * `RateLimit-*` headers of the refusal tell the truth.
 */
const overShare = (perOwner: number) =>
  new TenantAuthError('rate_limited', 'Too many password checks from your network at once. Retry shortly.', {
    retryAfterSeconds: 1,
    rateLimit: {
      budget: 'network',
      allowed: false,
      limit: perOwner,
      remaining: 0,
      resetSeconds: 1,
      retryAfterSeconds: 1,
    },
  });

/**
 * A counting semaphore with a bounded wait queue that is fair across owners: each owner waits in its own
 * FIFO line, a released slot goes to the next owner in turn (round-robin), and no owner may hold more
 * than `perOwner` operations (running and waiting). A released slot is handed straight to a waiter, so
 * `active` never exceeds the cap. Operations without an owner share no line limit.
 */
class FairPool {
  #active = 0;
  #queued = 0;
  /** Waiting lines by owner, in turn order: the next to be served first. */
  readonly #lines = new Map<string, Array<() => void>>();
  readonly #held = new Map<string, number>();

  constructor(
    private readonly maxConcurrent: number,
    private readonly maxQueue: number,
    private readonly perOwner: number,
  ) {}

  stats(): PasswordHasherStats {
    return { active: this.#active, queued: this.#queued };
  }

  async run<T>(owner: string | undefined, task: () => Promise<T>): Promise<T> {
    const line = owner ?? '';
    const held = this.#held.get(line) ?? 0;
    if (owner !== undefined && held >= this.perOwner) throw overShare(this.perOwner);
    if (this.#active < this.maxConcurrent) {
      this.#active++;
    } else if (this.#queued < this.maxQueue) {
      this.#held.set(line, held + 1);
      this.#queued++;
      // The releaser hands its slot over without decrementing `active`.
      await new Promise<void>((resolve) => {
        const waiting = this.#lines.get(line);
        if (waiting) waiting.push(resolve);
        else this.#lines.set(line, [resolve]);
      });
      this.#held.set(line, (this.#held.get(line) ?? 1) - 1);
    } else {
      throw busy();
    }
    this.#held.set(line, (this.#held.get(line) ?? 0) + 1);
    try {
      return await task();
    } finally {
      const left = (this.#held.get(line) ?? 1) - 1;
      if (left === 0) this.#held.delete(line);
      else this.#held.set(line, left);
      this.#handOver();
    }
  }

  #handOver(): void {
    const first = this.#lines.entries().next();
    if (first.done) {
      this.#active--;
      return;
    }
    const [owner, waiting] = first.value;
    const next = waiting.shift();
    // Round-robin: an owner that still waits goes to the back of the turn order.
    this.#lines.delete(owner);
    if (waiting.length > 0) this.#lines.set(owner, waiting);
    this.#queued--;
    next?.();
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
export function createPasswordHasher(
  options: PasswordHasherOptions = {},
  instrumentation: Pick<ResolvedInstrumentation, 'span' | 'onPasswordHashing'> = resolveInstrumentation(
    undefined,
  ),
): PasswordHasher {
  const cost = validateCost(options.cost ?? 12);
  const maxConcurrent = options.maxConcurrent ?? defaultMaxConcurrent();
  const maxQueue = options.maxQueue ?? 100;
  if (!Number.isInteger(maxConcurrent) || maxConcurrent < 1) {
    throw configError('maxConcurrent', `must be a positive integer (got ${String(maxConcurrent)})`);
  }
  if (!Number.isInteger(maxQueue) || maxQueue < 0) {
    throw configError('maxQueue', `must be a non-negative integer (got ${String(maxQueue)})`);
  }
  const maxPerClient = options.maxPerClient ?? Math.max(1, Math.ceil(maxQueue / 10));
  if (!Number.isInteger(maxPerClient) || maxPerClient < 1) {
    throw configError('maxPerClient', `must be a positive integer (got ${String(maxPerClient)})`);
  }
  const pepper = options.pepper ?? DEFAULT_PREHASH_KEY;
  const keyBytes = typeof pepper === 'string' ? Buffer.from(pepper, 'utf8') : Buffer.from(pepper);
  if (keyBytes.length === 0) throw configError('pepper', 'must not be empty');
  // Imported once, not per call.
  const key: KeyObject = createSecretKey(keyBytes);
  const pool = new FairPool(maxConcurrent, maxQueue, maxPerClient);

  const prehash = (password: string): string =>
    createHmac('sha256', key).update(password, 'utf8').digest('base64');

  /** Runs bcrypt work in the pool, inside a span, measuring the wait for a slot and the work. */
  const measured = <T>(operation: 'hash' | 'verify', owner: string | undefined, work: () => Promise<T>) =>
    instrumentation.span(`tenant-auth.password.${operation}`, () => {
      const queuedAt = performance.now();
      return pool.run(owner, async () => {
        const startedAt = performance.now();
        try {
          return await work();
        } finally {
          instrumentation.onPasswordHashing({
            operation,
            waitSeconds: (startedAt - queuedAt) / 1000,
            durationSeconds: (performance.now() - startedAt) / 1000,
          });
        }
      });
    });

  return {
    async hash(password, by = {}) {
      // A lone surrogate would be encoded as U+FFFD, so distinct strings could share a hash: refuse.
      if (typeof password !== 'string' || LONE_SURROGATE.test(password)) {
        throw validationError([fieldError('password', 'invalid_value', 'The password is not valid text.')]);
      }
      const input = prehash(password);
      return measured('hash', by.owner, () => bcrypt.hash(input, cost));
    },

    async verify(password, hash, by = {}) {
      if (typeof password !== 'string' || LONE_SURROGATE.test(password)) return false;
      if (typeof hash !== 'string' || !BCRYPT_HASH.test(hash)) return false;
      const input = prehash(password);
      return measured('verify', by.owner, async () => {
        try {
          return await bcrypt.compare(input, hash);
        } catch {
          return false;
        }
      });
    },

    needsRehash: (hash) =>
      typeof hash === 'string' && BCRYPT_HASH.test(hash) && Number(hash.slice(4, 6)) < cost,

    stats: () => pool.stats(),
  };
}
