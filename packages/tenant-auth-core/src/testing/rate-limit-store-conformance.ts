import { randomUUID } from 'node:crypto';
import type { RateLimitStore } from '../ports/rate-limit-store.js';
import { ManualClock } from './manual-clock.js';

import { resolveTestApi, type TestApi } from './test-api.js';

/**
 * Options of `runRateLimitStoreConformance`.
 *
 * @example runRateLimitStoreConformance({ name: 'redis', createStore: () => new RedisRateLimitStore({ redis }) });
 */
export interface RateLimitStoreConformanceOptions {
  /** Shown in the test names, e.g. `'redis'`. */
  name: string;
  /** Called before every test. Keys are random per test, so the storage need not be empty. */
  createStore: () => Promise<RateLimitStore> | RateLimitStore;
  /** Called after every test. Default: `store.close?.()`. */
  destroyStore?: (store: RateLimitStore) => Promise<void> | void;
  /** vitest's (or Jest's) `describe`, `it`, `expect`, `beforeEach`, `afterEach`; default: the globals. */
  test?: TestApi;
}

const MINUTE = 60_000;

/** What the cases of the suite share: the running test's store, clock and (random) key. */
interface RateLimitContext {
  test: TestApi;
  store: () => RateLimitStore;
  clock: () => ManualClock;
  key: () => string;
  /** Records `cost` hits (default 1) for `k` (default: the test's key) at the clock's time. */
  hit: (cost?: number, k?: string, windowMs?: number) => Promise<{ count: number; resetMs: number }>;
}

/**
 * Registers the `RateLimitStore` conformance suite with the given test functions (vitest's or Jest's): counting, the sliding window, expiry,
 * read-only hits, key isolation and atomicity under concurrency. Every store implementation runs it.
 * A rate-limit store takes no tenant id: what keeps tenants (and clients) apart is the key, and the
 * case `keeps keys apart` checks it.
 *
 * @example
 * // my-rate-limit-store.test.ts
 * import { afterEach, beforeEach, describe, expect, it } from 'vitest';
 * import { runRateLimitStoreConformance } from 'tenant-auth-core/testing';
 * runRateLimitStoreConformance({
 *   name: 'my store',
 *   createStore: () => new MyRateLimitStore(),
 *   test: { describe, it, expect, beforeEach, afterEach },
 * });
 */
export function runRateLimitStoreConformance(options: RateLimitStoreConformanceOptions): void {
  const test = resolveTestApi(options.test);
  test.describe(`rate-limit store conformance: ${options.name}`, () => {
    let store: RateLimitStore;
    let clock: ManualClock;
    let key: string;
    const hit = (
      cost?: number,
      k: string = key,
      windowMs = MINUTE,
    ): Promise<{ count: number; resetMs: number }> =>
      store.hit(k, { windowMs, now: clock.now().getTime(), ...(cost === undefined ? {} : { cost }) });

    test.beforeEach(async () => {
      store = await options.createStore();
      clock = new ManualClock(Date.UTC(2026, 0, 1));
      key = `conformance:${randomUUID()}`;
    });
    test.afterEach(async () => {
      await (options.destroyStore ? options.destroyStore(store) : store.close?.());
    });

    const context: RateLimitContext = { test, store: () => store, clock: () => clock, key: () => key, hit };
    windowCases(context);
    limitAndAtomicityCases(context);
  });
}

/** Counting, the sliding window, expiry, read-only hits and key isolation. */
function windowCases({ test, clock, key, hit }: RateLimitContext): void {
  const { it, expect } = test;

  it('counts hits in the window, this one included, and says when the oldest leaves it', async () => {
    expect(await hit()).toEqual({ count: 1, resetMs: MINUTE });
    clock().advance(10_000);
    expect(await hit()).toEqual({ count: 2, resetMs: 50_000 });
    expect(await hit(3)).toEqual({ count: 5, resetMs: 50_000 });
  });

  it('reads without counting when cost is 0, also for a key never seen', async () => {
    expect(await hit(0)).toEqual({ count: 0, resetMs: 0 });
    await hit();
    clock().advance(1_000);
    expect(await hit(0)).toEqual({ count: 1, resetMs: 59_000 });
    expect(await hit(0)).toEqual({ count: 1, resetMs: 59_000 });
  });

  it('slides: a burst at the end of one minute and the start of the next are counted together', async () => {
    clock().advance(59_000);
    for (let i = 0; i < 5; i++) await hit();
    clock().advance(2_000); // a fixed window would have reset here
    for (let i = 0; i < 5; i++) await hit();
    expect((await hit(0)).count).toBe(10);
    clock().advance(MINUTE - 2_000 - 1);
    expect((await hit(0)).count).toBe(10);
    clock().advance(1);
    expect(await hit(0)).toEqual({ count: 5, resetMs: 2_000 });
  });

  it('lets hits expire once the window has passed them, down to nothing', async () => {
    await hit();
    clock().advance(30_000);
    await hit();
    clock().advance(30_000);
    expect(await hit(0)).toEqual({ count: 1, resetMs: 30_000 });
    clock().advance(30_000);
    expect(await hit(0)).toEqual({ count: 0, resetMs: 0 });
    expect(await hit()).toEqual({ count: 1, resetMs: MINUTE });
  });

  it('waiting resetMs frees a slot', async () => {
    for (let i = 0; i < 3; i++) {
      await hit();
      clock().advance(7_000);
    }
    const before = await hit(0);
    clock().advance(before.resetMs);
    expect((await hit(0)).count).toBe(before.count - 1);
  });

  it('keeps keys apart', async () => {
    const other = `${key()}:other`;
    await hit(4);
    expect(await hit(1, other)).toEqual({ count: 1, resetMs: MINUTE });
    expect((await hit(0)).count).toBe(4);
  });

  it('uses the window it is given', async () => {
    await hit(1, key(), 1_000);
    clock().advance(1_000);
    expect(await hit(0, key(), 1_000)).toEqual({ count: 0, resetMs: 0 });
  });

  it('counts a hit stamped earlier than the last one (clocks of two instances differ)', async () => {
    await hit();
    clock().advance(-5_000);
    const result = await hit();
    expect(result.count).toBe(2);
    expect(result.resetMs).toBeGreaterThan(0);
  });
}

/** Atomicity under concurrency, limits, hits given back, and refused arguments. */
function limitAndAtomicityCases({ test, store, clock, key, hit }: RateLimitContext): void {
  const { it, expect } = test;

  it('is atomic: 200 concurrent hits on one key count exactly 200, each seeing a distinct count', async () => {
    const results = await Promise.all(Array.from({ length: 200 }, () => hit()));
    const counts = results.map((r) => r.count).sort((a, b) => a - b);
    expect(counts).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect((await hit(0)).count).toBe(200);
  });

  it('stays exact under a steady stream of hits across several windows', async () => {
    // One hit every 250 ms for three minutes: the count settles at exactly one window's worth
    // (give or take one slot of the log: hits may stay counted up to windowMs/60 longer, never shorter).
    let last = { count: 0, resetMs: 0 };
    for (let i = 0; i < 720; i++) {
      last = await hit();
      clock().advance(250);
    }
    expect(last.count).toBeGreaterThanOrEqual(240);
    expect(last.count).toBeLessThanOrEqual(244);
  });

  it('with a limit, records nothing that would exceed it, and says the count the hit would have made', async () => {
    const limited = (cost = 1) =>
      store().hit(key(), { windowMs: MINUTE, now: clock().now().getTime(), cost, limit: 3 });
    expect(await limited()).toEqual({ count: 1, resetMs: MINUTE });
    clock().advance(10_000);
    expect((await limited(2)).count).toBe(3);
    // Refused attempts extend nothing: the count stays, and the first hit still frees its slot on time.
    for (let i = 0; i < 5; i++) expect((await limited()).count).toBe(4);
    expect(await hit(0)).toEqual({ count: 3, resetMs: 50_000 });
    clock().advance(50_000);
    expect((await limited()).count).toBe(3);
    expect(
      await store().hit(`${key()}:new`, {
        windowMs: MINUTE,
        now: clock().now().getTime(),
        cost: 5,
        limit: 3,
      }),
    ).toEqual({
      count: 5,
      resetMs: 0,
    });
    expect((await hit(0, `${key()}:new`)).count).toBe(0);
  });

  it('is atomic with a limit: of 100 concurrent hits, exactly the limit are recorded', async () => {
    const results = await Promise.all(
      Array.from({ length: 100 }, () =>
        store().hit(key(), { windowMs: MINUTE, now: clock().now().getTime(), limit: 10 }),
      ),
    );
    expect(results.filter((r) => r.count <= 10)).toHaveLength(10);
    expect((await hit(0)).count).toBe(10);
  });

  it('gives hits back with a negative cost, newest first, never below zero', async () => {
    await hit(2);
    clock().advance(20_000);
    await hit(1);
    expect((await hit(-1)).count).toBe(2);
    // The hit given back was the newest: the window still frees its slots when the oldest leave.
    expect(await hit(0)).toEqual({ count: 2, resetMs: 40_000 });
    expect((await hit(-5)).count).toBe(0);
    expect((await hit(-1, `${key()}:unknown`)).count).toBe(0);
    expect((await hit()).count).toBe(1);
  });

  it('rejects nonsense arguments', async () => {
    await expect(store().hit(key(), { windowMs: 0, now: 0 })).rejects.toThrow(RangeError);
    await expect(store().hit(key(), { windowMs: MINUTE, now: 0, cost: 1.5 })).rejects.toThrow(RangeError);
    await expect(store().hit(key(), { windowMs: MINUTE, now: 0, limit: -1 })).rejects.toThrow(RangeError);
  });
}
