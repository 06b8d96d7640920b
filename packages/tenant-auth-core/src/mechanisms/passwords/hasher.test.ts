import { createHmac } from 'node:crypto';
import bcrypt from 'bcrypt';
import { describe, expect, it } from 'vitest';
import { isTenantAuthError, TenantAuthError } from '../../vocabulary/errors.js';
import {
  createPasswordHasher,
  DEFAULT_PREHASH_KEY,
  defaultMaxConcurrent,
  type PasswordHasher,
  validateCost,
} from './hasher.js';

const COST = 4;

/** Pairs that are equal in their first 72 UTF-8 bytes (all bcrypt reads) and differ after. */
const SHARED_PREFIX_PAIRS: [string, string, string][] = [
  ['ASCII', `${'a'.repeat(72)}X`, `${'a'.repeat(72)}Y`],
  ['multi-byte', `${'é'.repeat(36)}x`, `${'é'.repeat(36)}y`], // é is 2 bytes: 72 bytes shared
  ['NUL', `${'\0'.repeat(72)}1`, `${'\0'.repeat(72)}2`],
];

/**
 * Runs the promises while sampling `stats()` on every turn of the event loop until all have settled.
 * Returns the settled results and the largest values seen.
 */
async function observe<T>(hasher: PasswordHasher, promises: Promise<T>[]) {
  let done = false;
  let maxActive = 0;
  let maxQueued = 0;
  const sample = () => {
    const { active, queued } = hasher.stats();
    maxActive = Math.max(maxActive, active);
    maxQueued = Math.max(maxQueued, queued);
  };
  const sampler = (async () => {
    while (!done) {
      sample();
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  })();
  const results = await Promise.allSettled(promises);
  done = true;
  await sampler;
  sample();
  return { results, maxActive, maxQueued };
}

describe('createPasswordHasher', () => {
  const hasher = createPasswordHasher({ cost: COST });

  it('hashes to a salted bcrypt hash of the requested cost that verifies', async () => {
    const [a, b] = await Promise.all([hasher.hash('Vt7#pLq2!mZr'), hasher.hash('Vt7#pLq2!mZr')]);
    expect(a).toMatch(/^\$2b\$04\$[./A-Za-z0-9]{53}$/);
    expect(bcrypt.getRounds(a)).toBe(COST);
    expect(a).not.toBe(b);
    expect(await hasher.verify('Vt7#pLq2!mZr', a)).toBe(true);
    expect(await hasher.verify('Vt7#pLq2!mZr', b)).toBe(true);
    expect(await hasher.verify('Vt7#pLq2!mZR', a)).toBe(false);
    expect(await hasher.verify('', a)).toBe(false);
  });

  it('bcrypts the base64 HMAC-SHA256 of the password under the default key, not the password', async () => {
    const password = 'Vt7#pLq2!mZr';
    const stored = await hasher.hash(password);
    const prehash = createHmac('sha256', DEFAULT_PREHASH_KEY).update(password, 'utf8').digest('base64');
    expect(prehash).toHaveLength(44);
    expect(await bcrypt.compare(prehash, stored)).toBe(true);
    expect(await bcrypt.compare(password, stored)).toBe(false);
  });

  describe.each(SHARED_PREFIX_PAIRS)('no truncation (%s)', (_name, first, second) => {
    it('the pair shares its first 72 bytes, so plain bcrypt would confuse them', async () => {
      expect(Buffer.from(first).subarray(0, 72)).toEqual(Buffer.from(second).subarray(0, 72));
      expect(await bcrypt.compare(second, await bcrypt.hash(first, COST))).toBe(true);
    });

    it('does not verify one against the hash of the other', async () => {
      const [h1, h2] = await Promise.all([hasher.hash(first), hasher.hash(second)]);
      expect(await hasher.verify(first, h1)).toBe(true);
      expect(await hasher.verify(second, h2)).toBe(true);
      expect(await hasher.verify(second, h1)).toBe(false);
      expect(await hasher.verify(first, h2)).toBe(false);
    });
  });

  it('handles passwords far beyond 72 bytes', async () => {
    const long = 'Zz9!'.repeat(1000);
    const stored = await hasher.hash(long);
    expect(await hasher.verify(long, stored)).toBe(true);
    expect(await hasher.verify(`${long}!`, stored)).toBe(false);
    expect(await hasher.verify(long.slice(0, -1), stored)).toBe(false);
  });

  it('refuses to hash a string that is not well-formed Unicode and never verifies one', async () => {
    const rejection = hasher.hash('Vt7#pLq2!mZr\uD800');
    await expect(rejection).rejects.toBeInstanceOf(TenantAuthError);
    await expect(rejection).rejects.toMatchObject({
      code: 'validation_failed',
      errors: [{ field: 'password', code: 'invalid_value' }],
    });
    // Both lone surrogates would otherwise become U+FFFD and share a hash with the real U+FFFD.
    const stored = await hasher.hash('Vt7#pLq2!mZr\uFFFD');
    expect(await hasher.verify('Vt7#pLq2!mZr\uFFFD', stored)).toBe(true);
    expect(await hasher.verify('Vt7#pLq2!mZr\uD800', stored)).toBe(false);
    expect(await hasher.verify('Vt7#pLq2!mZr\uDC00', stored)).toBe(false);
    // Well-formed pairs are fine.
    const emoji = await hasher.hash('😀😀😀Aa1!');
    expect(await hasher.verify('😀😀😀Aa1!', emoji)).toBe(true);
  });

  it('keys the pre-hash with the pepper', async () => {
    const peppered = createPasswordHasher({ cost: COST, pepper: 'a secret pepper of the deployment' });
    const otherPepper = createPasswordHasher({
      cost: COST,
      pepper: new TextEncoder().encode('another pepper'),
    });
    const stored = await peppered.hash('Vt7#pLq2!mZr');
    expect(await peppered.verify('Vt7#pLq2!mZr', stored)).toBe(true);
    expect(await otherPepper.verify('Vt7#pLq2!mZr', stored)).toBe(false);
    expect(await hasher.verify('Vt7#pLq2!mZr', stored)).toBe(false);
  });

  it.each([
    ['an empty string', ''],
    ['garbage', 'not a hash'],
    ['a truncated hash', '$2b$04$abcdefghijklmnopqrstuv'],
    ['an unknown prefix', `$2x$04$${'a'.repeat(53)}`],
    ['an out-of-range cost', `$2b$03$${'a'.repeat(53)}`],
    ['a non-bcrypt alphabet', `$2b$04$${'!'.repeat(53)}`],
    ['an argon2 hash', '$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHQ$RdescudvJCsgt3ub+b+dWRWJTmaaJObG'],
    ['null', null],
    ['a number', 42],
  ])('verify of %s is false, never an error', async (_name, hash) => {
    await expect(hasher.verify('Vt7#pLq2!mZr', hash as string)).resolves.toBe(false);
  });

  it('verify of a well-shaped but bogus hash is false', async () => {
    await expect(hasher.verify('Vt7#pLq2!mZr', `$2b$04$${'a'.repeat(53)}`)).resolves.toBe(false);
    expect(hasher.stats()).toEqual({ active: 0, queued: 0 });
  });
});

describe('bounded pool', () => {
  it('runs at most maxConcurrent at once, queues up to maxQueue and rejects the rest at once', async () => {
    const hasher = createPasswordHasher({ cost: COST, maxConcurrent: 1, maxQueue: 2 });
    const promises = Array.from({ length: 5 }, (_, i) => hasher.hash(`Vt7#pLq2!mZr${i}`));
    // Synchronously after firing: one running, two waiting, two turned away.
    expect(hasher.stats()).toEqual({ active: 1, queued: 2 });
    const { results, maxActive, maxQueued } = await observe(hasher, promises);

    const rejected = results.filter((r) => r.status === 'rejected');
    const fulfilled = results.filter((r) => r.status === 'fulfilled');
    expect(rejected).toHaveLength(2);
    expect(fulfilled).toHaveLength(3);
    for (const r of rejected) {
      const reason: unknown = r.reason;
      expect(isTenantAuthError(reason, 'unavailable')).toBe(true);
      expect(reason).toMatchObject({ status: 503, retryAfterSeconds: 1 });
    }
    // The first three were admitted, the last two turned away.
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
      'rejected',
    ]);
    expect(maxActive).toBe(1);
    expect(maxQueued).toBe(2);
    expect(hasher.stats()).toEqual({ active: 0, queued: 0 });

    // Once drained, it takes work again.
    await expect(hasher.hash('Vt7#pLq2!mZr')).resolves.toMatch(/^\$2b\$04\$/);
  });

  it('never exceeds a cap above one', async () => {
    const hasher = createPasswordHasher({ cost: COST, maxConcurrent: 2, maxQueue: 10 });
    const promises = Array.from({ length: 8 }, (_, i) => hasher.hash(`Vt7#pLq2!mZr${i}`));
    expect(hasher.stats()).toEqual({ active: 2, queued: 6 });
    const { results, maxActive } = await observe(hasher, promises);
    expect(results.every((r) => r.status === 'fulfilled')).toBe(true);
    expect(maxActive).toBe(2);
    expect(hasher.stats()).toEqual({ active: 0, queued: 0 });
  });

  it('serves the queue first in, first out', async () => {
    const hasher = createPasswordHasher({ cost: COST, maxConcurrent: 1, maxQueue: 10 });
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 6 }, (_, i) => hasher.hash(`Vt7#pLq2!mZr${i}`).then(() => order.push(i))),
    );
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('shares the pool between hash and verify', async () => {
    const hasher = createPasswordHasher({ cost: COST, maxConcurrent: 1, maxQueue: 0 });
    const stored = await hasher.hash('Vt7#pLq2!mZr');
    const running = hasher.hash('Vt7#pLq2!mZr');
    await expect(hasher.verify('Vt7#pLq2!mZr', stored)).rejects.toMatchObject({ code: 'unavailable' });
    await running;
    await expect(hasher.verify('Vt7#pLq2!mZr', stored)).resolves.toBe(true);
  });
});

describe('defaultMaxConcurrent', () => {
  it.each([
    [undefined, 3],
    ['4', 3],
    ['8', 7],
    ['2', 1],
    ['1', 1],
    ['0', 3],
    ['abc', 3],
    ['-5', 3],
    ['2000', 1023],
  ])('UV_THREADPOOL_SIZE=%s gives %i', (size, expected) => {
    expect(defaultMaxConcurrent({ UV_THREADPOOL_SIZE: size })).toBe(expected);
  });

  it('is the default of the hasher', async () => {
    const hasher = createPasswordHasher({ cost: COST });
    const cap = defaultMaxConcurrent();
    const promises = Array.from({ length: cap + 2 }, (_, i) => hasher.hash(`x${i}`));
    expect(hasher.stats()).toEqual({ active: cap, queued: 2 });
    await Promise.all(promises);
  });
});

describe('option validation', () => {
  it.each([4, 12, 31])('accepts cost %i', (cost) => {
    expect(validateCost(cost)).toBe(cost);
  });

  it.each([3, 32, 4.5, Number.NaN, '12', undefined])('rejects cost %j', (cost) => {
    expect(() => validateCost(cost as number)).toThrow(
      expect.objectContaining({ code: 'invalid_configuration' }),
    );
  });

  it.each([
    { cost: 3 },
    { cost: 32 },
    { maxConcurrent: 0 },
    { maxConcurrent: 1.5 },
    { maxQueue: -1 },
    { pepper: '' },
  ])('rejects %j at creation', (options) => {
    expect(() => createPasswordHasher(options)).toThrow(
      expect.objectContaining({ code: 'invalid_configuration' }),
    );
  });

  it('accepts an empty queue', () => {
    expect(createPasswordHasher({ cost: COST, maxQueue: 0 }).stats()).toEqual({ active: 0, queued: 0 });
  });
});
