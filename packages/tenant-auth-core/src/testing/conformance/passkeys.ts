import { randomUUID } from 'node:crypto';
import type { PasskeyRecord, UserRecord } from '../../store-kit.js';
import { at, hex64 } from '../fixtures.js';
import { type ConformanceContext, inAnotherTenant } from './context.js';

const passkeyOf = (user: UserRecord, overrides: Partial<PasskeyRecord> = {}): PasskeyRecord => ({
  id: randomUUID(),
  tenantId: user.tenantId,
  userId: user.id,
  credentialId: `cred-${hex64().slice(0, 22)}`,
  publicKey: 'pQECAyYgASFYIMZ',
  counter: 0,
  transports: ['internal', 'hybrid'],
  name: 'Laptop',
  createdAt: at(1000),
  lastUsedAt: null,
  ...overrides,
});

/** @internal Conformance cases of the passkey verbs of `passkeys`. */
export function passkeyCases({ test, stores, seedUser }: ConformanceContext): void {
  const { describe, it, expect } = test;
  const passkeys = () => stores().passkeys;

  describe('passkeys.add / findByCredentialId / listForUser / countForUser', () => {
    it('stores passkeys, finds one by credential id, lists and counts them oldest first', async () => {
      const u = await seedUser();
      const second = passkeyOf(u, { createdAt: at(2000), name: 'Phone', transports: [] });
      const first = passkeyOf(u, { counter: 7, lastUsedAt: at(1500) });
      expect(await passkeys().add(second)).toBe(true);
      expect(await passkeys().add(first)).toBe(true);
      expect(await passkeys().findByCredentialId(first.credentialId)).toEqual(first);
      expect(await passkeys().findByCredentialId('unknown')).toBeNull();
      expect(await passkeys().listForUser(u.tenantId, u.id)).toEqual([first, second]);
      expect(await passkeys().countForUser(u.tenantId, u.id)).toBe(2);
    });

    it('refuses a second passkey with the same credential id, even for another user', async () => {
      const u = await seedUser();
      const v = await seedUser();
      const first = passkeyOf(u);
      expect(await passkeys().add(first)).toBe(true);
      expect(await passkeys().add(passkeyOf(v, { credentialId: first.credentialId }))).toBe(false);
      expect(await passkeys().countForUser(v.tenantId, v.id)).toBe(0);
    });

    it('stores one of two concurrent registrations of one credential id', async () => {
      const u = await seedUser();
      const credentialId = `cred-${hex64().slice(0, 22)}`;
      const won = await Promise.all([
        passkeys().add(passkeyOf(u, { credentialId })),
        passkeys().add(passkeyOf(u, { credentialId })),
        passkeys().add(passkeyOf(u, { credentialId })),
      ]);
      expect(won.filter(Boolean)).toHaveLength(1);
      expect(await passkeys().countForUser(u.tenantId, u.id)).toBe(1);
    });

    it(inAnotherTenant('adds, lists and counts nothing'), async () => {
      const u = await seedUser();
      const other = await seedUser();
      expect(await passkeys().add(passkeyOf(u, { tenantId: other.tenantId }))).toBe(false);
      await passkeys().add(passkeyOf(u));
      expect(await passkeys().listForUser(other.tenantId, u.id)).toEqual([]);
      expect(await passkeys().countForUser(other.tenantId, u.id)).toBe(0);
    });
  });

  describe('passkeys.recordUse', () => {
    it('moves the counter only from the expected value, and sets lastUsedAt', async () => {
      const u = await seedUser();
      const p = passkeyOf(u, { counter: 3 });
      await passkeys().add(p);
      const use = (expectedCounter: number, counter: number) =>
        passkeys().recordUse(u.tenantId, p.id, { expectedCounter, counter, at: at(5000) });
      expect(await use(2, 4)).toBe(false);
      expect(await use(3, 4)).toBe(true);
      expect(await use(3, 5)).toBe(false);
      const found = await passkeys().findByCredentialId(p.credentialId);
      expect(found?.counter).toBe(4);
      expect(found?.lastUsedAt).toEqual(at(5000));
    });

    it('lets exactly one of two concurrent uses of one counter value win', async () => {
      const u = await seedUser();
      const p = passkeyOf(u, { counter: 1 });
      await passkeys().add(p);
      const won = await Promise.all([
        passkeys().recordUse(u.tenantId, p.id, { expectedCounter: 1, counter: 2, at: at(1) }),
        passkeys().recordUse(u.tenantId, p.id, { expectedCounter: 1, counter: 2, at: at(1) }),
      ]);
      expect(won.filter(Boolean)).toHaveLength(1);
    });

    it(inAnotherTenant('changes nothing'), async () => {
      const u = await seedUser();
      const other = await seedUser();
      const p = passkeyOf(u);
      await passkeys().add(p);
      expect(
        await passkeys().recordUse(other.tenantId, p.id, { expectedCounter: 0, counter: 9, at: at(1) }),
      ).toBe(false);
      expect((await passkeys().findByCredentialId(p.credentialId))?.counter).toBe(0);
    });
  });

  describe('passkeys.delete', () => {
    it("deletes a passkey of its user only, and goes with the user's deletion", async () => {
      const u = await seedUser();
      const p = passkeyOf(u);
      const q = passkeyOf(u);
      await passkeys().add(p);
      await passkeys().add(q);
      const stranger = await seedUser();
      expect(await passkeys().delete(u.tenantId, stranger.id, p.id)).toBe(false);
      expect(await passkeys().delete(u.tenantId, u.id, p.id)).toBe(true);
      expect(await passkeys().delete(u.tenantId, u.id, p.id)).toBe(false);
      expect(await passkeys().findByCredentialId(p.credentialId)).toBeNull();
      expect(await stores().users.delete(u.tenantId, u.id)).toBe(true);
      expect(await passkeys().findByCredentialId(q.credentialId)).toBeNull();
    });

    it(inAnotherTenant('deletes nothing'), async () => {
      const u = await seedUser();
      const other = await seedUser();
      const p = passkeyOf(u);
      await passkeys().add(p);
      expect(await passkeys().delete(other.tenantId, u.id, p.id)).toBe(false);
      expect(await passkeys().countForUser(u.tenantId, u.id)).toBe(1);
    });
  });
}

/** @internal Conformance cases of the WebAuthn challenges of `passkeys`. */
export function webauthnChallengeCases({ test, stores, seedUser }: ConformanceContext): void {
  const { describe, it, expect } = test;
  const passkeys = () => stores().passkeys;

  describe('passkeys.createChallenge / consumeChallenge / deleteExpiredChallenges', () => {
    it('consumes a challenge once, and not once it has expired', async () => {
      const u = await seedUser();
      const mine = {
        challengeHash: hex64(),
        purpose: 'mfa' as const,
        tenantId: u.tenantId,
        userId: u.id,
        createdAt: at(0),
        expiresAt: at(300_000),
      };
      const login = {
        ...mine,
        challengeHash: hex64(),
        purpose: 'login' as const,
        tenantId: null,
        userId: null,
      };
      await passkeys().createChallenge(mine);
      await passkeys().createChallenge(login);
      expect(await passkeys().consumeChallenge(mine.challengeHash, at(300_000))).toBeNull();
      expect(await passkeys().consumeChallenge(mine.challengeHash, at(1000))).toEqual(mine);
      expect(await passkeys().consumeChallenge(mine.challengeHash, at(1000))).toBeNull();
      expect(await passkeys().consumeChallenge(login.challengeHash, at(1000))).toEqual(login);
    });

    it('gives a challenge to one of two concurrent consumers', async () => {
      const challengeHash = hex64();
      await passkeys().createChallenge({
        challengeHash,
        purpose: 'login',
        tenantId: null,
        userId: null,
        createdAt: at(0),
        expiresAt: at(300_000),
      });
      const got = await Promise.all([
        passkeys().consumeChallenge(challengeHash, at(1)),
        passkeys().consumeChallenge(challengeHash, at(1)),
      ]);
      expect(got.filter((c) => c !== null)).toHaveLength(1);
    });

    it('deletes expired challenges in batches', async () => {
      for (const ms of [1, 2, 3, 500_000])
        await passkeys().createChallenge({
          challengeHash: hex64(),
          purpose: 'login',
          tenantId: null,
          userId: null,
          createdAt: at(0),
          expiresAt: at(ms),
        });
      expect(await passkeys().deleteExpiredChallenges({ expiredBefore: at(10), batchSize: 2 })).toBe(2);
      expect(await passkeys().deleteExpiredChallenges({ expiredBefore: at(10), batchSize: 2 })).toBe(1);
      expect(await passkeys().deleteExpiredChallenges({ expiredBefore: at(10), batchSize: 2 })).toBe(0);
    });
  });
}
