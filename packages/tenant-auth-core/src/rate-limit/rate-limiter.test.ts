import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../clock.js';
import { isTenantAuthError } from '../errors.js';
import type { RateLimitHit, RateLimitStore } from '../stores/types.js';
import { MemoryRateLimitStore } from './memory-rate-limit-store.js';
import { createRateLimiter, type RateLimitLogger } from './rate-limiter.js';

const MINUTE = 60_000;

/** A memory store that can be switched off, as Redis going away. */
class FlakyStore implements RateLimitStore {
  down = false;
  readonly inner = new MemoryRateLimitStore();
  async hit(key: string, options: { windowMs: number; now: number; cost?: number }): Promise<RateLimitHit> {
    if (this.down) throw new Error('connect ECONNREFUSED 10.0.0.5:6379');
    return this.inner.hit(key, options);
  }
  close() {
    return this.inner.close();
  }
}

function recordingLogger() {
  const warnings: { obj: object; msg: string }[] = [];
  const infos: { obj: object; msg: string }[] = [];
  const logger: RateLimitLogger = {
    warn: (obj, msg) => warnings.push({ obj, msg }),
    info: (obj, msg) => infos.push({ obj, msg }),
  };
  return { logger, warnings, infos };
}

describe('createRateLimiter', () => {
  let clock: ManualClock;
  let store: FlakyStore;
  beforeEach(() => {
    clock = new ManualClock();
    store = new FlakyStore();
  });
  afterEach(async () => {
    await store.close();
    vi.restoreAllMocks();
  });

  it('allows up to the limit, then refuses with the seconds until a slot frees', async () => {
    const limiter = createRateLimiter({ store, limit: 3, windowMs: MINUTE, clock });
    expect(await limiter.consume('k')).toEqual({
      allowed: true,
      limit: 3,
      remaining: 2,
      resetSeconds: 60,
      retryAfterSeconds: 0,
    });
    clock.advance(20_500);
    await limiter.consume('k');
    expect(await limiter.consume('k')).toMatchObject({ allowed: true, remaining: 0 });
    expect(await limiter.consume('k')).toEqual({
      allowed: false,
      limit: 3,
      remaining: 0,
      resetSeconds: 40, // 39.5 s rounded up
      retryAfterSeconds: 40,
    });
  });

  it('counts a burst at the end of one window and the start of the next together', async () => {
    const limiter = createRateLimiter({ store, limit: 10, windowMs: MINUTE, clock });
    clock.advance(59_000);
    for (let i = 0; i < 10; i++) expect((await limiter.consume('k')).allowed).toBe(true);
    clock.advance(2_000);
    expect((await limiter.consume('k')).allowed).toBe(false);
    clock.advance(MINUTE);
    expect((await limiter.consume('k')).allowed).toBe(true);
  });

  it('lets a client that waits Retry-After through again', async () => {
    const limiter = createRateLimiter({ store, limit: 2, windowMs: MINUTE, clock });
    await limiter.consume('k');
    await limiter.consume('k');
    const refused = await limiter.consume('k');
    expect(refused.allowed).toBe(false);
    clock.advance(refused.retryAfterSeconds * 1000);
    expect((await limiter.consume('k')).allowed).toBe(true);
  });

  it('reads without counting with cost 0: allowed says whether one more hit fits', async () => {
    const limiter = createRateLimiter({ store, limit: 2, windowMs: MINUTE, clock });
    await limiter.consume('k');
    expect(await limiter.consume('k', 0)).toMatchObject({ allowed: true, remaining: 1 });
    await limiter.consume('k');
    expect(await limiter.consume('k', 0)).toMatchObject({
      allowed: false,
      remaining: 0,
      retryAfterSeconds: 60,
    });
    expect((await store.hit('k', { windowMs: MINUTE, now: clock.now().getTime(), cost: 0 })).count).toBe(2);
  });

  it('prefixes keys so budgets sharing a store stay apart', async () => {
    const auth = createRateLimiter({ store, limit: 1, windowMs: MINUTE, clock, keyPrefix: 'auth:' });
    const general = createRateLimiter({ store, limit: 1, windowMs: MINUTE, clock, keyPrefix: 'general:' });
    expect((await auth.consume('ip:1.2.3.4')).allowed).toBe(true);
    expect((await general.consume('ip:1.2.3.4')).allowed).toBe(true);
    expect(
      (await store.hit('auth:ip:1.2.3.4', { windowMs: MINUTE, now: clock.now().getTime(), cost: 0 })).count,
    ).toBe(1);
  });

  describe('when the store fails', () => {
    it('fail-closed: throws unavailable with Retry-After, nothing of the driver in the message', async () => {
      const { logger } = recordingLogger();
      const limiter = createRateLimiter({
        store,
        limit: 5,
        windowMs: MINUTE,
        clock,
        onStoreError: 'fail-closed',
        logger,
      });
      store.down = true;
      const err = await limiter.consume('k').catch((e: unknown) => e);
      expect(isTenantAuthError(err, 'unavailable')).toBe(true);
      expect(err).toMatchObject({ status: 503, retryAfterSeconds: 5 });
      expect((err as Error).message).not.toMatch(/ECONNREFUSED|6379/);
    });

    it('fails closed by default', async () => {
      const { logger } = recordingLogger();
      const limiter = createRateLimiter({ store, limit: 5, windowMs: MINUTE, clock, logger });
      store.down = true;
      await expect(limiter.consume('k')).rejects.toMatchObject({ code: 'unavailable' });
    });

    it('fail-open: allows and warns once per outage, not per request, and notes the recovery', async () => {
      const { logger, warnings, infos } = recordingLogger();
      const limiter = createRateLimiter({
        store,
        limit: 1,
        windowMs: MINUTE,
        clock,
        onStoreError: 'fail-open',
        logger,
      });
      store.down = true;
      for (let i = 0; i < 5; i++) expect((await limiter.consume('k')).allowed).toBe(true);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.obj).toMatchObject({ policy: 'fail-open' });
      store.down = false;
      clock.advance(3_000);
      expect((await limiter.consume('k')).allowed).toBe(true);
      expect((await limiter.consume('k')).allowed).toBe(false);
      expect(infos).toEqual([
        { obj: expect.objectContaining({ outageMs: 3_000 }), msg: 'rate-limit store recovered' },
      ]);
      store.down = true;
      await limiter.consume('k');
      expect(warnings).toHaveLength(2);
    });

    it('warns through console.warn when no logger is given', async () => {
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
      const limiter = createRateLimiter({
        store,
        limit: 1,
        windowMs: MINUTE,
        clock,
        onStoreError: 'fail-open',
      });
      store.down = true;
      await limiter.consume('k');
      await limiter.consume('k');
      expect(warn).toHaveBeenCalledTimes(1);
    });
  });

  it('rejects nonsense configuration', () => {
    expect(() => createRateLimiter({ store, limit: 0, windowMs: MINUTE })).toThrow(RangeError);
    expect(() => createRateLimiter({ store, limit: 1, windowMs: 0 })).toThrow(RangeError);
    expect(() =>
      createRateLimiter({ store, limit: 1, windowMs: 1, onStoreError: 'open' as unknown as 'fail-open' }),
    ).toThrow(RangeError);
  });
});
