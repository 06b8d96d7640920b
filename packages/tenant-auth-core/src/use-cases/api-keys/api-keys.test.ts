import { describe, expect, it } from 'vitest';
import { createMemoryStores } from '../../memory/memory-stores.js';
import type { ApiKeyCheckOutcome } from '../../ports/instrumentation.js';
import type { CompleteTenantAuthStores } from '../../ports/tenant-auth-stores.js';
import { code, join, owner, setup, verify } from '../../testing/test-helpers.js';

/** Memory stores that count the look-ups of a secret (what the verified-key cache saves). */
function countingStores() {
  const stores = createMemoryStores();
  /** `hold`: answers of look-ups wait for it, having read the row before it (a slow database). */
  const counts: { lookups: number; hold?: Promise<void> } = { lookups: 0 };
  const find = stores.apiKeys.findBySecretHash;
  const apiKeys = {
    ...stores.apiKeys,
    findBySecretHash: async (hash: string) => {
      counts.lookups += 1;
      const row = await find(hash);
      await counts.hold;
      return row;
    },
  };
  return { stores: { ...stores, apiKeys } as CompleteTenantAuthStores, counts };
}

async function withKey(options: { apiKeyCacheSeconds?: number; auditRetentionSeconds?: number } = {}) {
  const { stores, counts } = countingStores();
  const outcomes: ApiKeyCheckOutcome[] = [];
  const t = setup({ stores, instrumentation: { onApiKeyCheck: (o) => outcomes.push(o) }, ...options });
  const ada = await owner(t.auth, 'ada@example.com');
  await verify({ ...t, stores }, 'ada@example.com');
  const created = await t.auth.createApiKey(ada.claims, { name: 'CI', role: 'admin', expiresInDays: 2 });
  return { t, ada, created, counts, outcomes, stores };
}

describe('API keys: verification and its cache', () => {
  it('costs one look-up per key per apiKeyCacheSeconds: a cached key is a hash and a map read', async () => {
    const { t, created, counts, outcomes } = await withKey();
    for (let i = 0; i < 20; i += 1) await t.auth.verifyApiKey(created.secret);
    expect(counts.lookups).toBe(1);
    expect(t.auth.peekApiKey(created.secret)?.apiKeyId).toBe(created.apiKey.id);
    t.clock.advance(4000);
    expect(t.auth.peekApiKey(created.secret)).toBeUndefined();
    await t.auth.verifyApiKey(created.secret);
    expect(counts.lookups).toBe(2);
    expect(outcomes.every((o) => o === 'accepted')).toBe(true);
  });

  it('shares one look-up among concurrent requests of a key, and asks every time with a cache of 0', async () => {
    const busy = await withKey();
    await Promise.all(Array.from({ length: 10 }, () => busy.t.auth.verifyApiKey(busy.created.secret)));
    expect(busy.counts.lookups).toBe(1);
    const uncached = await withKey({ apiKeyCacheSeconds: 0 });
    for (let i = 0; i < 3; i += 1) await uncached.t.auth.verifyApiKey(uncached.created.secret);
    expect(uncached.counts.lookups).toBe(3);
  });

  it('forgets a key revoked through this process at once, even while a look-up of it is under way', async () => {
    const { t, ada, created, counts, outcomes } = await withKey();
    await t.auth.verifyApiKey(created.secret);
    t.clock.advance(5000);
    // A look-up reads the key while it is active (its entry had expired); the key is revoked before that
    // answer arrives: the answer is not trusted, the key is read again.
    let release = () => {};
    counts.hold = new Promise((resolve) => {
      release = resolve;
    });
    const racing = t.auth.verifyApiKey(created.secret);
    await new Promise((resolve) => setImmediate(resolve));
    await t.auth.revokeApiKey(ada.claims, created.apiKey.id);
    counts.hold = undefined;
    release();
    expect(await code(racing)).toBe('invalid_token');
    expect(await code(t.auth.verifyApiKey(created.secret))).toBe('invalid_token');
    expect(t.auth.peekApiKey(created.secret)).toBeUndefined();
    expect(outcomes.at(-1)).toBe('revoked');
  });

  it('refuses an expired key (even from the cache), an unknown one and a malformed one; only the unknown is looked up', async () => {
    const { t, created, counts, outcomes } = await withKey();
    await t.auth.verifyApiKey(created.secret);
    t.clock.advance(2 * 86_400_000);
    expect(t.auth.peekApiKey(created.secret)).toBeUndefined();
    expect(await code(t.auth.verifyApiKey(created.secret))).toBe('invalid_token');
    const before = counts.lookups;
    expect(await code(t.auth.verifyApiKey(`tak_${'A'.repeat(43)}`))).toBe('invalid_token');
    expect(await code(t.auth.verifyApiKey('tak_short'))).toBe('invalid_token');
    expect(await code(t.auth.verifyApiKey(`${created.secret}x`))).toBe('invalid_token');
    expect(counts.lookups).toBe(before + 1);
    expect(outcomes.slice(-4)).toEqual(['expired', 'unknown', 'malformed', 'malformed']);
  });

  it('writes lastUsedAt at most once a minute per key, whatever the traffic', async () => {
    const { t, ada, created } = await withKey();
    const lastUsed = async () => {
      await t.auth.whenIdle();
      return (await t.auth.listApiKeys(ada.claims))[0]?.lastUsedAt?.getTime();
    };
    const first = t.clock.now().getTime();
    await t.auth.verifyApiKey(created.secret);
    expect(await lastUsed()).toBe(first);
    for (let i = 0; i < 5; i += 1) {
      t.clock.advance(10_000);
      await t.auth.verifyApiKey(created.secret);
    }
    expect(await lastUsed()).toBe(first);
    t.clock.advance(10_001);
    await t.auth.verifyApiKey(created.secret);
    expect(await lastUsed()).toBe(t.clock.now().getTime());
  });
});

describe('API keys: who may create, list and revoke', () => {
  it('needs an admin with a verified email, a role no higher than its own, and refuses keys', async () => {
    const { t, ada, created } = await withKey();
    const key = await t.auth.verifyApiKey(created.secret);
    expect(await code(t.auth.createApiKey(key, { name: 'x', role: 'member' }))).toBe('forbidden');
    expect(await code(t.auth.listApiKeys(key))).toBe('forbidden');
    expect(await code(t.auth.revokeApiKey(key, created.apiKey.id))).toBe('forbidden');
    const bob = await join(t, ada.claims, 'bob@example.com', 'admin');
    expect(await code(t.auth.createApiKey(bob.claims, { name: 'x', role: 'owner' }))).toBe('forbidden');
    expect(await code(t.auth.createApiKey(bob.claims, { name: 'x', role: 'admin' }))).toBe('ok');
    const cat = await join(t, ada.claims, 'cat@example.com', 'member');
    expect(await code(t.auth.createApiKey(cat.claims, { name: 'x', role: 'member' }))).toBe('forbidden');
    const eve = await owner(t.auth, 'eve@example.com');
    expect(await code(t.auth.createApiKey(eve.claims, { name: 'x', role: 'member' }))).toBe(
      'email_not_verified',
    );
    expect(await code(t.auth.revokeApiKey(eve.claims, created.apiKey.id))).toBe('not_found');
  });

  it("acts with at most its creator's current role, and works no more once its creator is removed", async () => {
    const { t, ada } = await withKey();
    const bob = await join(t, ada.claims, 'bob@example.com', 'admin');
    const cat = await join(t, ada.claims, 'cat@example.com', 'member');
    const made = await t.auth.createApiKey(bob.claims, { name: 'bob', role: 'admin' });
    const key = await t.auth.verifyApiKey(made.secret);
    expect(await t.auth.authorize(key, 'admin')).toMatchObject({ role: 'admin' });
    // Bob is demoted: his admin key must not keep his old rights, nor give them back to him.
    await t.auth.changeMemberRole(ada.claims, bob.user.id, 'member');
    expect(await code(t.auth.authorize(key, 'admin'))).toBe('forbidden');
    expect(await code(t.auth.changeMemberRole(key, bob.user.id, 'admin'))).toBe('forbidden');
    expect(await code(t.auth.removeMember(key, cat.user.id))).toBe('forbidden');
    expect((await t.auth.listMembers(key)).length).toBe(3);
    t.clock.advance(5000);
    expect((await t.auth.verifyApiKey(made.secret)).role).toBe('member');
    // Bob is removed: his key goes with him (the admin who removed him need not also find his keys).
    await t.auth.removeMember(ada.claims, bob.user.id);
    expect(await code(t.auth.authorize(key, 'member'))).toBe('invalid_token');
    expect(await code(t.auth.listMembers(key))).toBe('invalid_token');
    t.clock.advance(5000);
    expect(await code(t.auth.verifyApiKey(made.secret))).toBe('invalid_token');
  });

  it('validates name, role and expiresInDays with field codes', async () => {
    const { t, ada } = await withKey();
    const fields = async (input: Record<string, unknown>) => {
      try {
        await t.auth.createApiKey(ada.claims, input as never);
        return [];
      } catch (err) {
        return ((err as { errors?: { field: string; code: string }[] }).errors ?? []).map(
          (e) => `${e.field}:${e.code}`,
        );
      }
    };
    expect(await fields({ role: 'member' })).toEqual(['name:required']);
    expect(await fields({ name: 'x'.repeat(101), role: 'member' })).toEqual(['name:too_long']);
    expect(await fields({ name: 'a\u0007b', role: 'member' })).toEqual(['name:invalid_value']);
    expect(await fields({ name: 'x', role: 'root' })).toEqual(['role:invalid_role']);
    expect(await fields({ name: 'x', role: 'member', expiresInDays: 0 })).toEqual([
      'expiresInDays:invalid_value',
    ]);
    expect(await fields({ name: 'x', role: 'member', expiresInDays: 1.5 })).toEqual([
      'expiresInDays:invalid_value',
    ]);
    expect(await fields({ name: ' x ', role: 'member', expiresInDays: null })).toEqual([]);
  });
});

describe('API keys: the scheduled cleanup', () => {
  it('deletes revoked and expired keys once the audit retention has passed since, and keeps the others', async () => {
    const { t, ada, created: expiring, stores } = await withKey({ auditRetentionSeconds: 10 * 86_400 });
    const revoked = await t.auth.createApiKey(ada.claims, { name: 'old', role: 'member' });
    const active = await t.auth.createApiKey(ada.claims, { name: 'live', role: 'member' });
    await t.auth.revokeApiKey(ada.claims, revoked.apiKey.id);
    // Revoked today, expiring in 2 days: both still within the retention.
    t.clock.advance(9 * 86_400_000);
    expect((await t.auth.cleanup()).apiKeys).toBe(0);
    expect(await stores.apiKeys.findById(ada.tenant.id, revoked.apiKey.id)).not.toBeNull();
    // 10 days and a second after the revocation: that one goes; the expired one 10 days after its expiry.
    t.clock.advance(86_400_000 + 1000);
    expect((await t.auth.cleanup()).apiKeys).toBe(1);
    expect(await stores.apiKeys.findById(ada.tenant.id, revoked.apiKey.id)).toBeNull();
    expect(await stores.apiKeys.findById(ada.tenant.id, expiring.apiKey.id)).not.toBeNull();
    t.clock.advance(2 * 86_400_000);
    expect((await t.auth.cleanup()).apiKeys).toBe(1);
    expect(await stores.apiKeys.findById(ada.tenant.id, expiring.apiKey.id)).toBeNull();
    expect(await stores.apiKeys.findById(ada.tenant.id, active.apiKey.id)).not.toBeNull();
  });
});
