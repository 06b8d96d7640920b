import type { RateLimitHit, RateLimitHitOptions } from './rate-limit-store.js';

/*
 * The algorithm: a sliding log whose entries are coalesced per 1/60 of the window.
 *
 * Why a log and not a weighted two-window counter: the weighted counter assumes the hits of the previous
 * fixed window were spread evenly over it. A client that sends its whole budget at the very end of one
 * window is then counted as if part of it had already expired, and can send nearly twice the limit within
 * one real window. For a limit whose job is to stop password guessing that is not acceptable; a log never
 * under-counts.
 *
 * Why coalesced: an exact log keeps one entry per hit, so its size per key grows with the request rate an
 * attacker chooses (every hit is recorded, refused ones included, because the store's one operation must be
 * atomic and cannot know the limit). Hits that fall into the same slot of `windowMs / 60` are merged into
 * one entry `(latest timestamp, count)`, so a key holds at most `ENTRY_CAP` entries whatever the rate.
 * The merged entry expires with its *latest* hit: a hit may be counted up to one slot (1/60 of the window,
 * one second of a minute) longer than an exact log would, never shorter. Memory is bounded and the limit is
 * never exceeded within any span of `windowMs`.
 *
 * The Redis store runs the same algorithm in Lua (tenant-auth-redis); the conformance suite
 * (`runRateLimitStoreConformance`) checks that both give the same answers.
 */

/** Slots per window: the resolution of the log. */
export const SLOTS_PER_WINDOW = 60;

/**
 * Entries a key can hold: one per slot the window spans (61 when the window is not a multiple of the slot,
 * plus one for a hit that lands in a new slot before the oldest is dropped) and one of headroom. Stores
 * that run the sliding log elsewhere (tenant-auth-redis, in Lua) cap their lists with it.
 *
 * @example
 * await redis.evalsha(sha, 1, key, now, windowMs, cost, slidingLogSlotMs(windowMs), SLIDING_LOG_ENTRY_CAP);
 */
export const ENTRY_CAP = SLOTS_PER_WINDOW + 3;

/**
 * The width of one slot of the log for a window.
 *
 * @example slotMs(60_000); // 1000
 */
export function slotMs(windowMs: number): number {
  return Math.max(1, Math.ceil(windowMs / SLOTS_PER_WINDOW));
}

/**
 * Validates the arguments of `RateLimitStore.hit` the same way for every store; throws a `RangeError`
 * (a programming error, not a store failure). `limit` comes back as -1 when absent (no condition).
 *
 * @example const { windowMs, now, cost, limit } = checkHitOptions({ windowMs: 60_000, now: Date.now() });
 */
export function checkHitOptions(options: RateLimitHitOptions): {
  windowMs: number;
  now: number;
  cost: number;
  limit: number;
} {
  const { windowMs, now, cost = 1, limit } = options;
  if (!Number.isSafeInteger(windowMs) || windowMs <= 0) {
    throw new RangeError(`windowMs must be a positive integer, got ${windowMs}`);
  }
  if (!Number.isFinite(now) || now < 0) throw new RangeError(`now must be a time in ms, got ${now}`);
  if (!Number.isSafeInteger(cost)) throw new RangeError(`cost must be an integer, got ${cost}`);
  if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 0)) {
    throw new RangeError(`limit must be an integer >= 0, got ${limit}`);
  }
  return { windowMs, now: Math.floor(now), cost, limit: limit ?? -1 };
}

/**
 * A log of one key: a flat array `[timestamp0, count0, timestamp1, count1, ...]`, oldest first, with
 * strictly increasing slots. Flat to keep ~100k keys cheap in memory.
 */
export type SlidingLog = number[];

/**
 * Records `cost` hits at `now` in `log` (mutating it) and returns the count this hit makes (this one
 * included) and the ms until the oldest entry leaves the window. With `cost` 0 it only drops expired
 * entries and reads; a negative `cost` gives hits back, newest first (a login that succeeded returns
 * the attempt it reserved). With `limit` >= 0 the hits are recorded only when the count stays within it
 * (a refused attempt then extends nothing); the count returned is the one the hit would have made.
 *
 * @example
 * const log: SlidingLog = [];
 * slidingLogHit(log, { windowMs: 60_000, now: 0, cost: 1, limit: -1 }); // { count: 1, resetMs: 60000 }
 */
export function slidingLogHit(
  log: SlidingLog,
  options: { windowMs: number; now: number; cost: number; limit: number },
): RateLimitHit {
  const { windowMs, now, cost, limit } = options;
  // An entry at `ts` is in the window while `now < ts + windowMs`.
  const cutoff = now - windowMs;
  let drop = 0;
  while (drop < log.length && (log[drop] ?? 0) <= cutoff) drop += 2;
  if (drop > 0) log.splice(0, drop);

  let before = 0;
  for (let i = 1; i < log.length; i += 2) before += log[i] ?? 0;
  if (cost < 0) {
    let back = -cost;
    while (back > 0 && log.length > 0) {
      const last = log.length - 1;
      const take = Math.min(back, log[last] ?? 0);
      log[last] = (log[last] ?? 0) - take;
      back -= take;
      if (log[last] === 0) log.splice(last - 1, 2);
    }
  } else if (limit >= 0 && before + cost > limit) {
    const head = log[0];
    return { count: before + cost, resetMs: before > 0 && head !== undefined ? head + windowMs - now : 0 };
  }

  if (cost > 0) {
    const slot = slotMs(windowMs);
    const tailTs = log[log.length - 2];
    // A `now` older than the tail (clock skew between instances) merges into the tail: counted longer, not less.
    if (tailTs !== undefined && Math.floor(now / slot) <= Math.floor(tailTs / slot)) {
      log[log.length - 2] = Math.max(tailTs, now);
      log[log.length - 1] = (log[log.length - 1] ?? 0) + cost;
    } else {
      log.push(now, cost);
    }
    // Only reachable when the window of a key changes (a configuration change rolling out); merging the
    // oldest entry into the next keeps the bound without dropping a hit.
    while (log.length > ENTRY_CAP * 2) {
      const [, oldestCount = 0] = log.splice(0, 2);
      log[1] = (log[1] ?? 0) + oldestCount;
    }
  }

  let count = 0;
  for (let i = 1; i < log.length; i += 2) count += log[i] ?? 0;
  const headTs = log[0];
  return { count, resetMs: count > 0 && headTs !== undefined ? headTs + windowMs - now : 0 };
}
