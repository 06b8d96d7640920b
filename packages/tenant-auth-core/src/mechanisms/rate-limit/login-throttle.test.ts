import { createHash, createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryRateLimitStore } from '../../memory/memory-rate-limit-store.js';
import type { Logger } from '../../ports/logger.js';
import type { RateLimitHit, RateLimitHitOptions, RateLimitStore } from '../../ports/rate-limit-store.js';
import { ManualClock } from '../../testing/manual-clock.js';
import { isTenantAuthError } from '../../vocabulary/errors.js';
import { createLoginThrottle } from './login-throttle.js';
import { createRateLimiter } from './rate-limiter.js';

const MINUTE = 60_000;
const quiet: Logger = { error: () => {}, warn: () => {}, info: () => {} };
const A = ['ip:198.51.100.7', 'ip:198.51.100.0/24'];
const B = ['ip:203.0.113.9', 'ip:203.0.113.0/24'];

/** Records the keys it is given, and can be switched off. */
class SpyStore implements RateLimitStore {
  readonly keys = new Set<string>();
  down = false;
  readonly inner = new MemoryRateLimitStore();
  async hit(key: string, options: RateLimitHitOptions): Promise<RateLimitHit> {
    this.keys.add(key);
    if (this.down) throw new Error('down');
    return this.inner.hit(key, options);
  }
  close() {
    return this.inner.close();
  }
}

describe('the per-account login throttle', () => {
  let clock: ManualClock;
  let store: SpyStore;
  beforeEach(() => {
    clock = new ManualClock();
    store = new SpyStore();
  });
  afterEach(() => store.close());

  function throttle(perClient: number, ceiling = 100, secret?: Uint8Array) {
    const limiter = (limit: number) =>
      createRateLimiter({
        store,
        budget: 'account',
        limit,
        windowMs: MINUTE,
        clock,
        onStoreError: 'fail-closed',
        logger: quiet,
        countRefused: false,
        overflow: 'allow',
      });
    return createLoginThrottle(limiter(perClient), limiter(ceiling), secret);
  }

  it('refuses an account from a client after its budget, even an account that does not exist', async () => {
    const t = throttle(3);
    for (let i = 0; i < 3; i++) await t.attempt('nobody@example.com', A);
    const err = await t.attempt('nobody@example.com', A).catch((e: unknown) => e);
    expect(isTenantAuthError(err, 'rate_limited')).toBe(true);
    expect(err).toMatchObject({
      retryAfterSeconds: 60,
      rateLimit: { budget: 'account', remaining: 0, limit: 3 },
    });
    await t.attempt('somebody-else@example.com', A);
  });

  it('lets the same account in from another network while one network is refused', async () => {
    const t = throttle(3);
    for (let i = 0; i < 3; i++) await t.attempt('ada@example.com', A);
    await expect(t.attempt('ada@example.com', A)).rejects.toMatchObject({ code: 'rate_limited' });
    await t.attempt('ada@example.com', B);
  });

  it('bounds a guess spread over many networks with the account ceiling', async () => {
    const t = throttle(3, 10);
    let accepted = 0;
    for (let n = 0; n < 30; n++) {
      const client = [`ip:192.0.2.${n}`, 'ip:192.0.2.0/24'];
      if (
        await t.attempt('ada@example.com', client).then(
          () => true,
          () => false,
        )
      )
        accepted++;
    }
    expect(accepted).toBe(10);
    await expect(t.attempt('ada@example.com', B)).rejects.toMatchObject({ rateLimit: { limit: 10 } });
  });

  it('does not extend a lock with refused attempts, and a released attempt counts nothing', async () => {
    const t = throttle(2);
    await t.attempt('ada@example.com', A);
    clock.advance(30_000);
    await t.attempt('ada@example.com', A);
    // An attacker hammering every second while refused: none of it is counted.
    for (let i = 0; i < 29; i++) {
      clock.advance(1_000);
      await expect(t.attempt('ada@example.com', A)).rejects.toMatchObject({ code: 'rate_limited' });
    }
    clock.advance(1_000); // 60 s after the first attempt: its slot frees on time
    const reservation = await t.attempt('ada@example.com', A);
    await reservation.release();
    await t.attempt('ada@example.com', A);
  });

  it('counts and checks in one operation, so parallel attempts cannot slip past the budget', async () => {
    const t = throttle(10);
    const results = await Promise.allSettled(
      Array.from({ length: 100 }, () => t.attempt('x@example.com', A)),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
  });

  it('keeps no email in the store: keys are a SHA-256 of it, or an HMAC with a secret', async () => {
    await throttle(5).attempt('ada@example.com', A);
    const digest = createHash('sha256').update('ada@example.com').digest('hex').slice(0, 32);
    expect([...store.keys].sort()).toEqual([`account.0:${digest}|${A[0]}`, `account:${digest}`].sort());
    store.keys.clear();
    const secret = Buffer.from('throttle-secret');
    await throttle(5, 100, secret).attempt('ada@example.com', A);
    const hmac = createHmac('sha256', secret).update('ada@example.com').digest('hex').slice(0, 32);
    expect([...store.keys].sort()).toEqual([`account.0:${hmac}|${A[0]}`, `account:${hmac}`].sort());
  });

  it('fails closed when the store fails', async () => {
    const t = throttle(5);
    store.down = true;
    await expect(t.attempt('a@example.com', A)).rejects.toMatchObject({ code: 'unavailable' });
  });
});
