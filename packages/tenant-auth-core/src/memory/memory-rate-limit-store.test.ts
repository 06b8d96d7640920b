import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RateLimitStoreFullError } from '../ports/rate-limit-store.js';
import { runRateLimitStoreConformance } from '../testing/rate-limit-store-conformance.js';
import { isTenantAuthError } from '../vocabulary/errors.js';
import { MemoryRateLimitStore } from './memory-rate-limit-store.js';

runRateLimitStoreConformance({
  name: 'memory',
  createStore: () => new MemoryRateLimitStore(),
  test: { describe, it, expect, beforeEach, afterEach },
});

const MINUTE = 60_000;

describe('MemoryRateLimitStore', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('drops keys whose hits have all expired, on a timer', async () => {
    vi.useFakeTimers();
    const store = new MemoryRateLimitStore({ sweepIntervalSeconds: 10 });
    const now = Date.now();
    await store.hit('a', { windowMs: MINUTE, now });
    await store.hit('b', { windowMs: 5_000, now });
    expect(store.size).toBe(2);
    vi.advanceTimersByTime(10_000);
    expect(store.size).toBe(1);
    vi.advanceTimersByTime(MINUTE);
    expect(store.size).toBe(0);
    await store.close();
  });

  it('does not keep the process alive with its timer', async () => {
    const spy = vi.spyOn(globalThis, 'setInterval');
    const store = new MemoryRateLimitStore();
    const timer = spy.mock.results[0]?.value as NodeJS.Timeout;
    expect(timer.hasRef()).toBe(false);
    await store.close();
  });

  it('forgets a key once a read finds it empty', async () => {
    const store = new MemoryRateLimitStore();
    await store.hit('a', { windowMs: 1_000, now: 0 });
    expect(store.size).toBe(1);
    expect(await store.hit('a', { windowMs: 1_000, now: 1_000, cost: 0 })).toEqual({ count: 0, resetMs: 0 });
    expect(store.size).toBe(0);
    await store.close();
  });

  describe('at the key cap', () => {
    it('refuses new keys of a full partition with RateLimitStoreFullError, keeps counting the keys it holds, and has room in other partitions', async () => {
      const store = new MemoryRateLimitStore({ maxKeys: 3 });
      for (const key of ['a', 'b', 'c']) await store.hit(key, { windowMs: MINUTE, now: 0 });
      const err = await store.hit('d', { windowMs: MINUTE, now: 1 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RateLimitStoreFullError);
      expect(err).toMatchObject({ partition: '' });
      expect(store.size).toBe(3);
      for (const key of ['strict:a', 'strict:b', 'strict:c'])
        await store.hit(key, { windowMs: MINUTE, now: 0 });
      await expect(store.hit('strict:d', { windowMs: MINUTE, now: 1 })).rejects.toMatchObject({
        partition: 'strict',
      });
      expect((await store.hit('general:a', { windowMs: MINUTE, now: 1 })).count).toBe(1);
      expect(store.size).toBe(7);
      // (both hits share a slot of the log, which expires with the later one)
      expect(await store.hit('a', { windowMs: MINUTE, now: 2 })).toEqual({ count: 2, resetMs: MINUTE });
      // a read of an unknown key needs no room
      expect(await store.hit('d', { windowMs: MINUTE, now: 3, cost: 0 })).toEqual({ count: 0, resetMs: 0 });
      await store.close();
    });

    it('never evicts a live counter to make room (a flood of fresh keys cannot reset one)', async () => {
      const store = new MemoryRateLimitStore({ maxKeys: 100 });
      for (let i = 0; i < 10; i++) await store.hit('attacker', { windowMs: MINUTE, now: 0 });
      const flood = await Promise.allSettled(
        Array.from({ length: 1_000 }, (_, i) => store.hit(`fresh-${i}`, { windowMs: MINUTE, now: 1 })),
      );
      expect(flood.filter((r) => r.status === 'fulfilled')).toHaveLength(99);
      expect(store.size).toBe(100);
      expect((await store.hit('attacker', { windowMs: MINUTE, now: 2, cost: 0 })).count).toBe(10);
      await store.close();
    });

    it('makes room by dropping expired keys first', async () => {
      const store = new MemoryRateLimitStore({ maxKeys: 2 });
      await store.hit('a', { windowMs: 1_000, now: 0 });
      await store.hit('b', { windowMs: MINUTE, now: 0 });
      expect(await store.hit('c', { windowMs: MINUTE, now: 1_000 })).toEqual({ count: 1, resetMs: MINUTE });
      expect(store.size).toBe(2);
      expect((await store.hit('b', { windowMs: MINUTE, now: 1_000, cost: 0 })).count).toBe(1);
      await store.close();
    });
  });

  it('rejects hits with unavailable once closed', async () => {
    const store = new MemoryRateLimitStore();
    await store.close();
    const err = await store.hit('a', { windowMs: MINUTE, now: 0 }).catch((e: unknown) => e);
    expect(isTenantAuthError(err, 'unavailable')).toBe(true);
  });

  it('refuses nonsense options with invalid_configuration naming the option', () => {
    expect(() => new MemoryRateLimitStore({ maxKeys: 0 })).toThrow(
      expect.objectContaining({ code: 'invalid_configuration', option: 'maxKeys' }),
    );
    expect(() => new MemoryRateLimitStore({ sweepIntervalSeconds: 0.5 })).toThrow(
      expect.objectContaining({ code: 'invalid_configuration', option: 'sweepIntervalSeconds' }),
    );
  });
});
