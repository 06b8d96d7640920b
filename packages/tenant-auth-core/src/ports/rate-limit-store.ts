/**
 * Options of {@link RateLimitStore.hit}.
 *
 * @example
 * const options: RateLimitHitOptions = { windowMs: 60_000, now: Date.now(), cost: 1, limit: 10 };
 */
export interface RateLimitHitOptions {
  /** Length of the sliding window in ms. */
  windowMs: number;
  /** The time of the hit in ms (the caller's clock). */
  now: number;
  /** Hits to record. Default 1; 0 only reads. */
  cost?: number;
  /**
   * When given, the hits are recorded only if the count stays within `limit`: a refused attempt then
   * extends nothing (the per-account login budgets use it, so an attacker cannot keep an account locked).
   * Without it every hit is recorded, refused ones too (a client that ignores 429s stays limited).
   */
  limit?: number;
}

/**
 * Thrown by a store that holds a bounded number of keys (`MemoryRateLimitStore`) when a hit would add
 * a key to a partition that is full. tenant-auth then falls back to a coarser key of the same client
 * (a /56 or /48 for IPv6, a /24 for IPv4), and at last to one shared bucket: never to refusing everyone.
 * Matched by `name`, so it holds across copies of the package.
 *
 * @example
 * if (partition.size >= cap && !partition.has(key)) throw new RateLimitStoreFullError(partitionName);
 */
export class RateLimitStoreFullError extends Error {
  override readonly name = 'RateLimitStoreFullError';
  constructor(readonly partition: string) {
    super(`The rate-limit store holds as many keys of ${partition} as it may.`);
  }
}

/**
 * Result of recording a hit in a rate-limit window.
 *
 * @example
 * const { count, resetMs }: RateLimitHit = await store.hit(key, { windowMs: 60_000, now: Date.now() });
 */
export interface RateLimitHit {
  /**
   * The count this hit makes: the hits in the sliding window, this one included (when its cost is not
   * 0), whether or not a `limit` let it be recorded.
   */
  count: number;
  /** Milliseconds until the window frees a slot (until the count drops by at least one). */
  resetMs: number;
}

/**
 * Storage for sliding-window rate limits (`MemoryRateLimitStore`, tenant-auth-redis's
 * `RedisRateLimitStore`). Its one operation is atomic: it records `cost` hits (1 by default, 0 to only
 * read) for a key, unless a `limit` forbids it, and returns the count. Keys are `<partition>:<rest>`;
 * a store that bounds its size does so per partition and throws `RateLimitStoreFullError`. Every
 * implementation runs `runRateLimitStoreConformance` of `tenant-auth-core/testing`.
 *
 * @example
 * const auth = createTenantAuth({ ..., rateLimit: { store: new RedisRateLimitStore({ redis }) } });
 */
export interface RateLimitStore {
  /** What tenant-auth's start-up line calls the store (`"store":"redis"`); `custom` when absent. */
  readonly name?: string;
  hit(key: string, options: RateLimitHitOptions): Promise<RateLimitHit>;
  /** Releases timers and connections the store owns. */
  close?(): Promise<void>;
}
