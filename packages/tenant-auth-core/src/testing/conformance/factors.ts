import { at, hex64 } from '../fixtures.js';
import { type ConformanceContext, inAnotherTenant } from './context.js';

const setupAt = (ms: number, sealedSecret = `v1.k.${hex64()}`) => ({ sealedSecret, createdAt: at(ms) });

/** @internal Conformance cases of the TOTP verbs of `factors`. */
export function totpFactorCases({ test, stores, seedUser }: ConformanceContext): void {
  const { describe, it, expect } = test;
  const factors = () => stores().factors;

  describe('factors.saveTotpSetup / findTotp / confirmTotp', () => {
    it('saves an unconfirmed setup, replaces it, confirms it once, then refuses a new setup', async () => {
      const u = await seedUser();
      expect(await factors().findTotp(u.tenantId, u.id)).toBeNull();
      expect(await factors().saveTotpSetup(u.tenantId, u.id, setupAt(0, 'v1.k.first'))).toBe(true);
      expect(await factors().saveTotpSetup(u.tenantId, u.id, setupAt(1000, 'v1.k.second'))).toBe(true);
      expect(await factors().findTotp(u.tenantId, u.id)).toEqual({
        sealedSecret: 'v1.k.second',
        createdAt: at(1000),
        confirmedAt: null,
        lastStep: null,
      });
      expect(await factors().confirmTotp(u.tenantId, u.id, 42, at(2000))).toBe(true);
      expect(await factors().confirmTotp(u.tenantId, u.id, 43, at(3000))).toBe(false);
      expect(await factors().saveTotpSetup(u.tenantId, u.id, setupAt(4000, 'v1.k.third'))).toBe(false);
      expect(await factors().findTotp(u.tenantId, u.id)).toEqual({
        sealedSecret: 'v1.k.second',
        createdAt: at(1000),
        confirmedAt: at(2000),
        lastStep: 42,
      });
    });

    it('confirms once of two concurrent confirmations', async () => {
      const u = await seedUser();
      await factors().saveTotpSetup(u.tenantId, u.id, setupAt(0));
      const won = await Promise.all([
        factors().confirmTotp(u.tenantId, u.id, 10, at(1)),
        factors().confirmTotp(u.tenantId, u.id, 10, at(1)),
      ]);
      expect(won.filter(Boolean)).toHaveLength(1);
    });

    it(inAnotherTenant('saves, finds and confirms nothing'), async () => {
      const u = await seedUser();
      const other = await seedUser();
      expect(await factors().saveTotpSetup(other.tenantId, u.id, setupAt(0))).toBe(false);
      expect(await factors().findTotp(u.tenantId, u.id)).toBeNull();
      await factors().saveTotpSetup(u.tenantId, u.id, setupAt(0));
      expect(await factors().findTotp(other.tenantId, u.id)).toBeNull();
      expect(await factors().confirmTotp(other.tenantId, u.id, 1, at(1))).toBe(false);
      expect(await factors().saveTotpSetup(other.tenantId, u.id, setupAt(5, 'v1.k.mallory'))).toBe(false);
      expect((await factors().findTotp(u.tenantId, u.id))?.sealedSecret).not.toBe('v1.k.mallory');
      expect((await factors().findTotp(u.tenantId, u.id))?.confirmedAt).toBeNull();
    });
  });

  describe('factors.acceptTotpStep', () => {
    it('accepts only later steps of a confirmed factor', async () => {
      const u = await seedUser();
      await factors().saveTotpSetup(u.tenantId, u.id, setupAt(0));
      expect(await factors().acceptTotpStep(u.tenantId, u.id, 5)).toBe(false); // unconfirmed
      await factors().confirmTotp(u.tenantId, u.id, 5, at(1));
      expect(await factors().acceptTotpStep(u.tenantId, u.id, 5)).toBe(false);
      expect(await factors().acceptTotpStep(u.tenantId, u.id, 4)).toBe(false);
      expect(await factors().acceptTotpStep(u.tenantId, u.id, 6)).toBe(true);
      expect((await factors().findTotp(u.tenantId, u.id))?.lastStep).toBe(6);
    });

    it('lets exactly one of two concurrent uses of one step win', async () => {
      const u = await seedUser();
      await factors().saveTotpSetup(u.tenantId, u.id, setupAt(0));
      await factors().confirmTotp(u.tenantId, u.id, 1, at(1));
      const won = await Promise.all([
        factors().acceptTotpStep(u.tenantId, u.id, 2),
        factors().acceptTotpStep(u.tenantId, u.id, 2),
        factors().acceptTotpStep(u.tenantId, u.id, 2),
      ]);
      expect(won.filter(Boolean)).toHaveLength(1);
    });

    it(inAnotherTenant('accepts nothing'), async () => {
      const u = await seedUser();
      const other = await seedUser();
      await factors().saveTotpSetup(u.tenantId, u.id, setupAt(0));
      await factors().confirmTotp(u.tenantId, u.id, 1, at(1));
      expect(await factors().acceptTotpStep(other.tenantId, u.id, 9)).toBe(false);
      expect((await factors().findTotp(u.tenantId, u.id))?.lastStep).toBe(1);
    });
  });

  describe('factors.deleteTotp', () => {
    it('deletes the factor, once', async () => {
      const u = await seedUser();
      await factors().saveTotpSetup(u.tenantId, u.id, setupAt(0));
      expect(await factors().deleteTotp(u.tenantId, u.id)).toBe(true);
      expect(await factors().deleteTotp(u.tenantId, u.id)).toBe(false);
      expect(await factors().findTotp(u.tenantId, u.id)).toBeNull();
    });

    it(inAnotherTenant('deletes nothing'), async () => {
      const u = await seedUser();
      const other = await seedUser();
      await factors().saveTotpSetup(u.tenantId, u.id, setupAt(0));
      expect(await factors().deleteTotp(other.tenantId, u.id)).toBe(false);
      expect(await factors().findTotp(u.tenantId, u.id)).not.toBeNull();
    });

    it('goes with its user and with its tenant', async () => {
      const u = await seedUser();
      const v = await seedUser();
      await factors().saveTotpSetup(u.tenantId, u.id, setupAt(0));
      await factors().saveTotpSetup(v.tenantId, v.id, setupAt(0));
      await factors().replaceRecoveryCodes(u.tenantId, u.id, ['a1', 'a2'], at(0));
      await stores().users.delete(u.tenantId, u.id);
      await stores().tenants.delete(v.tenantId);
      expect(await factors().findTotp(u.tenantId, u.id)).toBeNull();
      expect(await factors().findTotp(v.tenantId, v.id)).toBeNull();
      expect(await factors().countRecoveryCodes(u.tenantId, u.id)).toBe(0);
    });
  });
}

/** @internal Conformance cases of the recovery-code verbs of `factors`. */
export function recoveryCodeCases({ test, stores, seedUser }: ConformanceContext): void {
  const { describe, it, expect } = test;
  const factors = () => stores().factors;

  describe('factors.replaceRecoveryCodes / consumeRecoveryCode / countRecoveryCodes', () => {
    it('replaces the set, consumes each code once, counts what is left', async () => {
      const u = await seedUser();
      await factors().replaceRecoveryCodes(u.tenantId, u.id, ['old1', 'old2'], at(0));
      await factors().replaceRecoveryCodes(u.tenantId, u.id, ['new1', 'new2', 'new3'], at(1));
      expect(await factors().countRecoveryCodes(u.tenantId, u.id)).toBe(3);
      expect(await factors().consumeRecoveryCode(u.tenantId, u.id, 'old1', at(2))).toBe(false);
      expect(await factors().consumeRecoveryCode(u.tenantId, u.id, 'new2', at(2))).toBe(true);
      expect(await factors().consumeRecoveryCode(u.tenantId, u.id, 'new2', at(3))).toBe(false);
      expect(await factors().countRecoveryCodes(u.tenantId, u.id)).toBe(2);
      expect(await factors().deleteRecoveryCodes(u.tenantId, u.id)).toBe(2);
      expect(await factors().countRecoveryCodes(u.tenantId, u.id)).toBe(0);
    });

    it("does not take another user's code", async () => {
      const u = await seedUser();
      const v = await seedUser();
      await factors().replaceRecoveryCodes(u.tenantId, u.id, ['uuu1'], at(0));
      expect(await factors().consumeRecoveryCode(v.tenantId, v.id, 'uuu1', at(1))).toBe(false);
      expect(await factors().countRecoveryCodes(u.tenantId, u.id)).toBe(1);
    });

    it('lets exactly one of two concurrent uses of one code win', async () => {
      const u = await seedUser();
      await factors().replaceRecoveryCodes(u.tenantId, u.id, ['once'], at(0));
      const won = await Promise.all([
        factors().consumeRecoveryCode(u.tenantId, u.id, 'once', at(1)),
        factors().consumeRecoveryCode(u.tenantId, u.id, 'once', at(1)),
      ]);
      expect(won.filter(Boolean)).toHaveLength(1);
    });

    it(inAnotherTenant('replaces, consumes, counts and deletes nothing'), async () => {
      const u = await seedUser();
      const other = await seedUser();
      await factors().replaceRecoveryCodes(u.tenantId, u.id, ['mine1', 'mine2'], at(0));
      await factors().replaceRecoveryCodes(other.tenantId, u.id, ['theirs'], at(1));
      expect(await factors().consumeRecoveryCode(other.tenantId, u.id, 'mine1', at(2))).toBe(false);
      expect(await factors().countRecoveryCodes(other.tenantId, u.id)).toBe(0);
      expect(await factors().deleteRecoveryCodes(other.tenantId, u.id)).toBe(0);
      expect(await factors().countRecoveryCodes(u.tenantId, u.id)).toBe(2);
      expect(await factors().consumeRecoveryCode(u.tenantId, u.id, 'theirs', at(3))).toBe(false);
    });
  });
}

/** @internal Conformance cases of the challenge verbs of `factors`. */
export function challengeCases({ test, stores, seedUser }: ConformanceContext): void {
  const { describe, it, expect } = test;
  const factors = () => stores().factors;
  const challengeOf = (u: { tenantId: string; id: string }, expiresMs = 300_000) => ({
    tokenHash: hex64(),
    tenantId: u.tenantId,
    userId: u.id,
    purpose: 'verify' as const,
    amr: ['pwd' as const],
    createdAt: at(0),
    expiresAt: at(expiresMs),
  });

  describe('factors.createChallenge / findChallenge / recordChallengeFailure / consumeChallenge', () => {
    it('finds a challenge until it expires, counts failures, consumes it once', async () => {
      const u = await seedUser();
      const c = challengeOf(u);
      await factors().createChallenge(c);
      expect(await factors().findChallenge(c.tokenHash, at(1))).toEqual({ ...c, failures: 0 });
      expect(await factors().recordChallengeFailure(c.tokenHash)).toBe(1);
      expect(await factors().recordChallengeFailure(c.tokenHash)).toBe(2);
      expect(await factors().findChallenge(c.tokenHash, at(300_000))).toBeNull();
      expect(await factors().consumeChallenge(c.tokenHash, at(300_000))).toBeNull();
      expect(await factors().consumeChallenge(c.tokenHash, at(1))).toEqual({ ...c, failures: 2 });
      expect(await factors().consumeChallenge(c.tokenHash, at(1))).toBeNull();
      expect(await factors().recordChallengeFailure(c.tokenHash)).toBe(0);
    });

    it('gives a challenge to exactly one of two concurrent consumers', async () => {
      const u = await seedUser();
      const c = challengeOf(u);
      await factors().createChallenge(c);
      const got = await Promise.all([
        factors().consumeChallenge(c.tokenHash, at(1)),
        factors().consumeChallenge(c.tokenHash, at(1)),
      ]);
      expect(got.filter((x) => x !== null)).toHaveLength(1);
    });

    it('deletes every challenge of a user (optional deleteChallengesForUser), not in another tenant', async () => {
      const f = factors();
      if (!f.deleteChallengesForUser) return; // the store does not have the optional verb
      const u = await seedUser();
      const v = await seedUser();
      const [a, b, c] = [challengeOf(u), { ...challengeOf(u), purpose: 'setup' as const }, challengeOf(v)];
      for (const x of [a, b, c]) await f.createChallenge(x);
      expect(await f.deleteChallengesForUser(v.tenantId, u.id)).toBe(0);
      expect(await f.findChallenge(a.tokenHash, at(1))).not.toBeNull();
      expect(await f.deleteChallengesForUser(u.tenantId, u.id)).toBe(2);
      expect(await f.findChallenge(a.tokenHash, at(1))).toBeNull();
      expect(await f.findChallenge(b.tokenHash, at(1))).toBeNull();
      expect(await f.findChallenge(c.tokenHash, at(1))).not.toBeNull();
    });

    it('deletes expired challenges in batches, and goes with its user', async () => {
      const u = await seedUser();
      const old = challengeOf(u, 10);
      const live = challengeOf(u, 600_000);
      await factors().createChallenge(old);
      await factors().createChallenge(live);
      expect(await factors().deleteExpiredChallenges({ expiredBefore: at(1000), batchSize: 10 })).toBe(1);
      expect(await factors().findChallenge(live.tokenHash, at(0))).not.toBeNull();
      await stores().users.delete(u.tenantId, u.id);
      expect(await factors().findChallenge(live.tokenHash, at(0))).toBeNull();
    });
  });
}
