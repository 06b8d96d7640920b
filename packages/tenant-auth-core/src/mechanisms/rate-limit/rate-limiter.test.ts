import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryRateLimitStore } from '../../memory/memory-rate-limit-store.js';
import type { Logger } from '../../ports/logger.js';
import type { RateLimitHit, RateLimitStore } from '../../ports/rate-limit-store.js';
import { ManualClock } from '../../testing/manual-clock.js';
import { isTenantAuthError } from '../../vocabulary/errors.js';
import { createRateLimiter, type RateLimiterOptions } from './rate-limiter.js';

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
  const logger: Logger = {
    error: () => {},
    warn: (obj, msg) => warnings.push({ obj, msg }),
    info: (obj, msg) => infos.push({ obj, msg }),
  };
  return { logger, warnings, infos };
}

const quiet: Logger = { error: () => {}, warn: () => {}, info: () => {} };

/** A limiter with the defaults the tests do not care about. */
function limiterOf(
  options: Partial<RateLimiterOptions> & Pick<RateLimiterOptions, 'store' | 'limit' | 'windowMs' | 'clock'>,
) {
  return createRateLimiter({
    budget: 'strict',
    onStoreError: 'fail-closed',
    logger: quiet,
    countRefused: true,
    overflow: 'shared',
    ...options,
  });
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
    const limiter = limiterOf({ store, limit: 3, windowMs: MINUTE, clock });
    expect(await limiter.consume(['k'])).toEqual({
      budget: 'strict',
      allowed: true,
      limit: 3,
      remaining: 2,
      resetSeconds: 60,
      retryAfterSeconds: 0,
      key: 'strict:k',
    });
    clock.advance(20_500);
    await limiter.consume(['k']);
    expect(await limiter.consume(['k'])).toMatchObject({ allowed: true, remaining: 0 });
    expect(await limiter.consume(['k'])).toEqual({
      budget: 'strict',
      allowed: false,
      limit: 3,
      remaining: 0,
      resetSeconds: 40, // 39.5 s rounded up
      retryAfterSeconds: 40,
      key: 'strict:k',
    });
  });

  it('counts a burst at the end of one window and the start of the next together', async () => {
    const limiter = limiterOf({ store, limit: 10, windowMs: MINUTE, clock });
    clock.advance(59_000);
    for (let i = 0; i < 10; i++) expect((await limiter.consume(['k'])).allowed).toBe(true);
    clock.advance(2_000);
    expect((await limiter.consume(['k'])).allowed).toBe(false);
    clock.advance(MINUTE);
    expect((await limiter.consume(['k'])).allowed).toBe(true);
  });

  it('lets a client that waits Retry-After through again', async () => {
    const limiter = limiterOf({ store, limit: 2, windowMs: MINUTE, clock });
    await limiter.consume(['k']);
    await limiter.consume(['k']);
    const refused = await limiter.consume(['k']);
    expect(refused.allowed).toBe(false);
    clock.advance(refused.retryAfterSeconds * 1000);
    expect((await limiter.consume(['k'])).allowed).toBe(true);
  });

  it('reads without counting with cost 0: allowed says whether one more hit fits', async () => {
    const limiter = limiterOf({ store, limit: 2, windowMs: MINUTE, clock });
    await limiter.consume(['k']);
    expect(await limiter.consume(['k'], 0)).toMatchObject({ allowed: true, remaining: 1 });
    await limiter.consume(['k']);
    expect(await limiter.consume(['k'], 0)).toMatchObject({
      allowed: false,
      remaining: 0,
      retryAfterSeconds: 60,
    });
    expect(
      (await store.hit('strict:k', { windowMs: MINUTE, now: clock.now().getTime(), cost: 0 })).count,
    ).toBe(2);
  });

  it('keeps budgets sharing a store apart: each budget and key level is its own partition', async () => {
    const strict = limiterOf({ store, limit: 1, windowMs: MINUTE, clock });
    const general = limiterOf({ store, limit: 1, windowMs: MINUTE, clock, budget: 'general' });
    expect((await strict.consume(['ip:1.2.3.4'])).allowed).toBe(true);
    expect((await general.consume(['ip:1.2.3.4'])).allowed).toBe(true);
    const now = clock.now().getTime();
    expect((await store.hit('strict:ip:1.2.3.4', { windowMs: MINUTE, now, cost: 0 })).count).toBe(1);
    expect(await strict.consume(['ip:1.2.3.4', 'ip:1.2.3.0/24'])).toMatchObject({
      key: 'strict.0:ip:1.2.3.4',
    });
  });

  it('falls back to the next key of the client when a partition of the store is full, then to one shared bucket', async () => {
    const small = new MemoryRateLimitStore({ maxKeys: 2 });
    const limiter = limiterOf({ store: small, limit: 3, windowMs: MINUTE, clock });
    const ladder = (n: number) => [`ip:10.0.0.${n}`, 'ip:10.0.0.0/24'];
    expect((await limiter.consume(ladder(1))).key).toBe('strict.0:ip:10.0.0.1');
    expect((await limiter.consume(ladder(2))).key).toBe('strict.0:ip:10.0.0.2');
    // Level 0 is full: the next clients share their /24 (its own partition), not a refusal.
    expect(await limiter.consume(ladder(3))).toMatchObject({ key: 'strict.1:ip:10.0.0.0/24', allowed: true });
    // Keys already counted keep counting in their own bucket.
    expect((await limiter.consume(ladder(1))).key).toBe('strict.0:ip:10.0.0.1');
    const full = limiterOf({ store: small, limit: 2, windowMs: MINUTE, clock, budget: 'general' });
    await full.consume(['a', 'b']);
    await full.consume(['c', 'd']);
    await full.consume(['e', 'f']);
    await full.consume(['g', 'h']);
    // Every level full: the shared bucket of this process counts, and limits, the rest together.
    expect(await full.consume(['i', 'j'])).toMatchObject({ key: undefined, allowed: true, remaining: 1 });
    expect(await full.consume(['k', 'l'])).toMatchObject({ key: undefined, allowed: true, remaining: 0 });
    expect(await full.consume(['m', 'n'])).toMatchObject({ key: undefined, allowed: false });
    await small.close();
  });

  it('with countRefused false, a refused hit extends nothing, and a refund gives a hit back', async () => {
    const limiter = limiterOf({ store, limit: 2, windowMs: MINUTE, clock, countRefused: false });
    await limiter.consume(['k']);
    clock.advance(30_000);
    const second = await limiter.consume(['k']);
    for (let i = 0; i < 5; i++) expect((await limiter.consume(['k'])).allowed).toBe(false);
    clock.advance(30_000);
    // The first hit left the window; the refused ones were never counted.
    expect((await limiter.consume(['k'])).allowed).toBe(true);
    await limiter.refund(second.key);
    expect((await limiter.consume(['k'], 0)).remaining).toBe(1);
  });

  describe('when the store fails', () => {
    it('fail-closed: throws unavailable with Retry-After, nothing of the driver in the message', async () => {
      const { logger } = recordingLogger();
      const limiter = limiterOf({
        store,
        limit: 5,
        windowMs: MINUTE,
        clock,
        onStoreError: 'fail-closed',
        logger,
      });
      store.down = true;
      const err = await limiter.consume(['k']).catch((e: unknown) => e);
      expect(isTenantAuthError(err, 'unavailable')).toBe(true);
      expect(err).toMatchObject({ status: 503, retryAfterSeconds: 5 });
      expect((err as Error).message).not.toMatch(/ECONNREFUSED|6379/);
    });

    it('fail-open: allows and warns once per outage, not per request, and notes the recovery', async () => {
      const { logger, warnings, infos } = recordingLogger();
      const limiter = limiterOf({
        store,
        limit: 1,
        windowMs: MINUTE,
        clock,
        onStoreError: 'fail-open',
        logger,
      });
      store.down = true;
      for (let i = 0; i < 5; i++) expect((await limiter.consume(['k'])).allowed).toBe(true);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.obj).toMatchObject({ policy: 'fail-open' });
      store.down = false;
      clock.advance(3_000);
      expect((await limiter.consume(['k'])).allowed).toBe(true);
      expect((await limiter.consume(['k'])).allowed).toBe(false);
      expect(infos).toEqual([
        { obj: expect.objectContaining({ outageMs: 3_000 }), msg: 'rate-limit store recovered' },
      ]);
      store.down = true;
      await limiter.consume(['k']);
      expect(warnings).toHaveLength(2);
    });
  });
});
