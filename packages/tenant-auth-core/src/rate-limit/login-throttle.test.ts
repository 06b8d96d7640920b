import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../clock.js';
import { isTenantAuthError } from '../errors.js';
import type { RateLimitHit, RateLimitStore } from '../stores/types.js';
import { createLoginThrottle } from './login-throttle.js';
import { MemoryRateLimitStore } from './memory-rate-limit-store.js';

const MINUTE = 60_000;

/** Records the keys it is given, and can be switched off. */
class SpyStore implements RateLimitStore {
  readonly keys = new Set<string>();
  down = false;
  readonly inner = new MemoryRateLimitStore();
  async hit(key: string, options: { windowMs: number; now: number; cost?: number }): Promise<RateLimitHit> {
    this.keys.add(key);
    if (this.down) throw new Error('down');
    return this.inner.hit(key, options);
  }
  close() {
    return this.inner.close();
  }
}

const silent = { warn: () => {} };

describe('createLoginThrottle', () => {
  let clock: ManualClock;
  let store: SpyStore;
  beforeEach(() => {
    clock = new ManualClock();
    store = new SpyStore();
  });
  afterEach(() => store.close());

  it('locks an email after maxFailures in the window, even for an email with no account', async () => {
    const throttle = createLoginThrottle({ store, maxFailures: 3, windowMs: MINUTE, clock });
    const email = 'nobody@example.com';
    for (let i = 0; i < 3; i++) {
      await throttle.assertAllowed(email);
      await throttle.recordFailure(email);
      clock.advance(1_000);
    }
    const err = await throttle.assertAllowed(email).catch((e: unknown) => e);
    expect(isTenantAuthError(err, 'rate_limited')).toBe(true);
    expect(err).toMatchObject({ status: 429, retryAfterSeconds: 57 });
    // another email is not affected
    await expect(throttle.assertAllowed('someone@example.com')).resolves.toBeUndefined();
  });

  it('unlocks as the window slides, one failure at a time', async () => {
    const throttle = createLoginThrottle({ store, maxFailures: 3, windowMs: MINUTE, clock });
    const email = 'victim@example.com';
    for (let i = 0; i < 3; i++) {
      await throttle.recordFailure(email);
      clock.advance(10_000);
    }
    await expect(throttle.assertAllowed(email)).rejects.toMatchObject({
      code: 'rate_limited',
      retryAfterSeconds: 30,
    });
    clock.advance(30_000);
    await expect(throttle.assertAllowed(email)).resolves.toBeUndefined();
    // one more failure locks it again until the next oldest leaves the window
    await throttle.recordFailure(email);
    await expect(throttle.assertAllowed(email)).rejects.toMatchObject({
      code: 'rate_limited',
      retryAfterSeconds: 10,
    });
  });

  it('assertAllowed counts nothing', async () => {
    const throttle = createLoginThrottle({ store, maxFailures: 1, windowMs: MINUTE, clock });
    for (let i = 0; i < 20; i++) await throttle.assertAllowed('a@example.com');
    await throttle.recordFailure('a@example.com');
    await expect(throttle.assertAllowed('a@example.com')).rejects.toMatchObject({ code: 'rate_limited' });
  });

  it('defaults to 10 failures per minute', async () => {
    const throttle = createLoginThrottle({ store, clock });
    for (let i = 0; i < 9; i++) await throttle.recordFailure('a@example.com');
    await expect(throttle.assertAllowed('a@example.com')).resolves.toBeUndefined();
    await throttle.recordFailure('a@example.com');
    await expect(throttle.assertAllowed('a@example.com')).rejects.toMatchObject({ code: 'rate_limited' });
    clock.advance(MINUTE);
    await expect(throttle.assertAllowed('a@example.com')).resolves.toBeUndefined();
  });

  it('keeps no email in the store: keys are a hash', async () => {
    const throttle = createLoginThrottle({ store, clock });
    await throttle.recordFailure('alice@example.com');
    const [key] = [...store.keys];
    expect(key).toMatch(/^login-fail:[0-9a-f]{32}$/);
    expect(key).not.toContain('alice');
  });

  it('uses an HMAC when given a secret, so a guessed address cannot be confirmed from the store', async () => {
    const plain = createLoginThrottle({ store, clock });
    const keyed = createLoginThrottle({ store, clock, secret: 'x'.repeat(32) });
    await plain.recordFailure('alice@example.com');
    await keyed.recordFailure('alice@example.com');
    expect(store.keys.size).toBe(2);
  });

  it('fails closed by default when the store fails, and open when told to', async () => {
    store.down = true;
    const closed = createLoginThrottle({ store, clock, logger: silent });
    await expect(closed.assertAllowed('a@example.com')).rejects.toMatchObject({ code: 'unavailable' });
    await expect(closed.recordFailure('a@example.com')).rejects.toMatchObject({ code: 'unavailable' });
    const open = createLoginThrottle({ store, clock, logger: silent, onStoreError: 'fail-open' });
    await expect(open.assertAllowed('a@example.com')).resolves.toBeUndefined();
    await expect(open.recordFailure('a@example.com')).resolves.toBeUndefined();
  });

  it('attempt counts and checks in one operation, so parallel attempts cannot slip past the limit', async () => {
    const throttle = createLoginThrottle({ store, maxFailures: 10, windowMs: MINUTE, clock });
    const results = await Promise.allSettled(
      Array.from({ length: 100 }, () => throttle.attempt('victim@example.com')),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
    const refused = results.filter((r) => r.status === 'rejected');
    expect(refused).toHaveLength(90);
    expect(refused.every((r) => r.status === 'rejected' && isTenantAuthError(r.reason, 'rate_limited'))).toBe(
      true,
    );
    clock.advance(MINUTE + 1_000);
    await expect(throttle.attempt('victim@example.com')).resolves.toBeUndefined();
  });
});
