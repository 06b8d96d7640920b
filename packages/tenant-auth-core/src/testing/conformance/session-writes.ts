import { at, rotation, sessionFor } from '../fixtures.js';
import { type ConformanceContext, inAnotherTenant } from './context.js';

/** @internal Conformance cases of `sessions.rotate` (its audit event: `audit-events.ts`). */
export function sessionRotateCases({ test, stores, seedUser }: ConformanceContext): void {
  const { describe, it, expect } = test;
  const sessions = () => stores().sessions;

  describe('sessions.rotate', () => {
    it('rotates by compare-and-set: the old hash becomes the previous one and still finds the session', async () => {
      const user = await seedUser();
      const s = sessionFor(user);
      await sessions().create(s);
      const next = rotation(60_000);
      expect(await sessions().rotate(user.tenantId, s.id, s.refreshHash, next)).toBe(true);
      const after = await sessions().findById(user.tenantId, s.id);
      expect(after).toEqual({ ...s, ...next, previousRefreshHash: s.refreshHash });
      expect((await sessions().findByRefreshHash(user.tenantId, s.refreshHash))?.session.id).toBe(s.id);
      expect((await sessions().findByRefreshHash(user.tenantId, next.refreshHash))?.session.id).toBe(s.id);
      expect(await sessions().rotate(user.tenantId, s.id, s.refreshHash, rotation(61_000))).toBe(false);
    });

    it('lets exactly one of 50 concurrent rotations with the same hash win', async () => {
      const user = await seedUser();
      const s = sessionFor(user);
      await sessions().create(s);
      const candidates = Array.from({ length: 50 }, () => rotation(60_000));
      const won = await Promise.all(
        candidates.map((c) => sessions().rotate(user.tenantId, s.id, s.refreshHash, c)),
      );
      expect(won.filter(Boolean)).toHaveLength(1);
      const winner = candidates[won.indexOf(true)]!;
      const after = await sessions().findById(user.tenantId, s.id);
      expect(after?.refreshHash).toBe(winner.refreshHash);
      expect(after?.previousRefreshHash).toBe(s.refreshHash);
    });

    it('does not rotate a revoked session', async () => {
      const user = await seedUser();
      const s = sessionFor(user);
      await sessions().create(s);
      expect(await sessions().revoke(user.tenantId, s.id, at(500))).toBe(true);
      expect(await sessions().rotate(user.tenantId, s.id, s.refreshHash, rotation(1000))).toBe(false);
      expect((await sessions().findById(user.tenantId, s.id))?.refreshHash).toBe(s.refreshHash);
    });

    it(inAnotherTenant('refused, and neither hash of a rotated session finds it there'), async () => {
      const user = await seedUser();
      const other = await seedUser();
      const s = sessionFor(user);
      await sessions().create(s);
      expect(await sessions().rotate(other.tenantId, s.id, s.refreshHash, rotation(1000))).toBe(false);
      expect(await sessions().findById(user.tenantId, s.id)).toEqual(s);
      const candidates = Array.from({ length: 5 }, () => rotation(60_000));
      const won = await Promise.all(
        candidates.map((c) => sessions().rotate(user.tenantId, s.id, s.refreshHash, c)),
      );
      const winner = candidates[won.indexOf(true)]!;
      expect(await sessions().findByRefreshHash(other.tenantId, winner.refreshHash)).toBeNull();
      expect(await sessions().findByRefreshHash(other.tenantId, s.refreshHash)).toBeNull();
    });
  });
}

/** @internal Conformance cases of `sessions.revoke`. */
export function sessionRevokeCases({ test, stores, seedUser }: ConformanceContext): void {
  const { describe, it, expect } = test;
  const sessions = () => stores().sessions;

  describe('sessions.revoke', () => {
    it('revokes an active session once, and only for its owner when a user is named', async () => {
      const user = await seedUser();
      const intruder = await seedUser();
      const s = sessionFor(user);
      await sessions().create(s);
      expect(await sessions().revoke(user.tenantId, s.id, at(1000), { userId: intruder.id })).toBe(false);
      expect((await sessions().findById(user.tenantId, s.id))?.revokedAt).toBeNull();
      expect(await sessions().revoke(user.tenantId, s.id, at(1000), { userId: user.id })).toBe(true);
      expect((await sessions().findById(user.tenantId, s.id))?.revokedAt).toEqual(at(1000));
      expect(await sessions().revoke(user.tenantId, s.id, at(2000), { userId: user.id })).toBe(false);
      expect((await sessions().findById(user.tenantId, s.id))?.revokedAt).toEqual(at(1000));
    });

    it(inAnotherTenant('false, and the session stays active'), async () => {
      const user = await seedUser();
      const intruder = await seedUser();
      const s = sessionFor(user);
      await sessions().create(s);
      expect(await sessions().revoke(intruder.tenantId, s.id, at(1000))).toBe(false);
      expect(await sessions().revoke(intruder.tenantId, s.id, at(1000), { userId: user.id })).toBe(false);
      expect((await sessions().findById(user.tenantId, s.id))?.revokedAt).toBeNull();
    });
  });
}

/** @internal Conformance cases of `sessions.revokeAllForUser` and `sessions.listActiveForUser`. */
export function sessionsOfUserCases({ test, stores, seedUser }: ConformanceContext): void {
  const { describe, it, expect } = test;
  const sessions = () => stores().sessions;

  describe('sessions.revokeAllForUser', () => {
    it("revokes all of a user's sessions, optionally but one", async () => {
      const user = await seedUser();
      const mine = [sessionFor(user), sessionFor(user), sessionFor(user)];
      for (const s of mine) await sessions().create(s);
      expect(
        await sessions().revokeAllForUser(user.tenantId, user.id, at(1000), { exceptSessionId: mine[0]!.id }),
      ).toBe(2);
      expect((await sessions().listActiveForUser(user.tenantId, user.id, at(2000))).map((s) => s.id)).toEqual(
        [mine[0]!.id],
      );
      expect(await sessions().revokeAllForUser(user.tenantId, user.id, at(3000))).toBe(1);
      expect(await sessions().revokeAllForUser(user.tenantId, user.id, at(4000))).toBe(0);
    });

    it(inAnotherTenant('revokes nothing, there or here'), async () => {
      const user = await seedUser();
      const neighbour = await seedUser();
      const mine = sessionFor(user);
      const theirs = sessionFor(neighbour);
      for (const s of [mine, theirs]) await sessions().create(s);
      expect(await sessions().revokeAllForUser(neighbour.tenantId, user.id, at(4000))).toBe(0);
      expect((await sessions().findById(user.tenantId, mine.id))?.revokedAt).toBeNull();
      expect(await sessions().revokeAllForUser(user.tenantId, user.id, at(5000))).toBe(1);
      expect((await sessions().findById(neighbour.tenantId, theirs.id))?.revokedAt).toBeNull();
    });
  });

  describe('sessions.listActiveForUser', () => {
    it("lists only the user's active sessions, newest first", async () => {
      const user = await seedUser();
      const older = sessionFor(user, { createdAt: at(0) });
      const newer = sessionFor(user, { createdAt: at(60_000) });
      const revoked = sessionFor(user, { revokedAt: at(1000) });
      const expired = sessionFor(user, { expiresAt: at(5000) });
      for (const s of [older, newer, revoked, expired]) await sessions().create(s);
      const listed = await sessions().listActiveForUser(user.tenantId, user.id, at(10_000));
      expect(listed.map((s) => s.id)).toEqual([newer.id, older.id]);
      expect(listed[0]).toEqual(newer);
    });

    it(inAnotherTenant('empty'), async () => {
      const user = await seedUser();
      const neighbour = await seedUser();
      for (const s of [sessionFor(user), sessionFor(neighbour)]) await sessions().create(s);
      expect(await sessions().listActiveForUser(neighbour.tenantId, user.id, at(10_000))).toEqual([]);
    });
  });
}

/** @internal Conformance cases of `sessions.deleteExpired`, which works across tenants. */
export function sessionCleanupCases({ test, stores, seedUser }: ConformanceContext): void {
  const { describe, it, expect } = test;
  const sessions = () => stores().sessions;

  describe('sessions.deleteExpired', () => {
    it('deletes exactly the expired sessions and those revoked before retention, in bounded batches', async () => {
      const user = await seedUser();
      const other = await seedUser();
      const keepOthers = sessionFor(other, { expiresAt: at(100_000) });
      await sessions().create(keepOthers);
      const keepActive = sessionFor(user, { expiresAt: at(100_000) });
      const keepRecentlyRevoked = sessionFor(user, { revokedAt: at(90_000) });
      const doomed = [
        sessionFor(user, { expiresAt: at(1000) }),
        sessionFor(user, { expiresAt: at(2000) }),
        sessionFor(user, { expiresAt: at(3000) }),
        sessionFor(user, { revokedAt: at(4000) }),
        sessionFor(user, { revokedAt: at(5000), expiresAt: at(6000) }),
      ];
      for (const s of [keepActive, keepRecentlyRevoked, ...doomed]) await sessions().create(s);
      const opts = { expiredBefore: at(50_000), revokedBefore: at(50_000), batchSize: 2 };
      expect(await sessions().deleteExpired(opts)).toBe(2);
      expect(await sessions().deleteExpired(opts)).toBe(2);
      expect(await sessions().deleteExpired(opts)).toBe(1);
      expect(await sessions().deleteExpired(opts)).toBe(0);
      for (const s of doomed) expect(await sessions().findById(user.tenantId, s.id)).toBeNull();
      expect(await sessions().findById(user.tenantId, keepActive.id)).not.toBeNull();
      expect(await sessions().findById(user.tenantId, keepRecentlyRevoked.id)).not.toBeNull();
      expect(await sessions().findById(other.tenantId, keepOthers.id)).toEqual(keepOthers);
    });
  });
}
