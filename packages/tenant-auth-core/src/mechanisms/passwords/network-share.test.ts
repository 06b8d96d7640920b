import { describe, expect, it } from 'vitest';
import { isTenantAuthError } from '../../vocabulary/errors.js';
import { createPasswordHasher } from './hasher.js';

describe('a network over its share of the hashing pool (docs/http-api.md, "Errors added in 1.2")', () => {
  it('is rate_limited (429, retry after 1 s, its share as the budget), while a full pool stays unavailable', async () => {
    const hasher = createPasswordHasher({ cost: 4, maxConcurrent: 1, maxQueue: 3, maxPerClient: 2 });
    const office = { owner: '203.0.113.0/24' };
    const mine = [hasher.hash('Vt7#pLq2!mZr1', office), hasher.hash('Vt7#pLq2!mZr2', office)];
    const third = await hasher.hash('Vt7#pLq2!mZr3', office).catch((err: unknown) => err);
    expect(isTenantAuthError(third, 'rate_limited')).toBe(true);
    expect(third).toMatchObject({
      status: 429,
      retryAfterSeconds: 1,
      rateLimit: { budget: 'network', allowed: false, limit: 2, remaining: 0 },
    });
    // Others still get in, up to the pool's own bound, which is the service's limit: 503.
    const others = [hasher.hash('a-1', { owner: 'b' }), hasher.hash('a-2', { owner: 'c' })];
    const full = await hasher.hash('a-3', { owner: 'd' }).catch((err: unknown) => err);
    expect(isTenantAuthError(full, 'unavailable')).toBe(true);
    expect(full).toMatchObject({ status: 503 });
    await Promise.all([...mine, ...others]);
  });
});
