import type { FactorLockRule, FactorStore } from '../../ports/factor-store.js';
import { at } from '../fixtures.js';
import { type ConformanceContext, inAnotherTenant } from './context.js';

const rule = (ms: number): FactorLockRule => ({
  at: at(ms),
  maxFailures: 3,
  lockSeconds: 900,
  maxLockSeconds: 2000,
});

/**
 * @internal Conformance cases of the optional second-factor lock verbs of `factors` (`findFactorLock`,
 * `recordFactorFailure`, `clearFactorFailures`): a store without them has nothing to check here (each
 * case says so and stops).
 */
export function factorLockCases({ test, stores, seedUser }: ConformanceContext): void {
  const { describe, it, expect } = test;
  /** The store's lock verbs, or undefined when it has none. */
  const verbs = () => {
    const f: FactorStore = stores().factors;
    if (!f.findFactorLock || !f.recordFactorFailure || !f.clearFactorFailures) return undefined;
    return {
      find: f.findFactorLock.bind(f),
      record: f.recordFactorFailure.bind(f),
      clear: f.clearFactorFailures.bind(f),
    };
  };

  describe('factors.findFactorLock / recordFactorFailure / clearFactorFailures (optional)', () => {
    it('counts wrong answers, locks at the threshold for twice as long each time up to the ceiling, clears the count', async () => {
      const v = verbs();
      if (!v) return; // the store has no lock verbs
      const u = await seedUser();
      expect(await v.find(u.tenantId, u.id)).toEqual({ failures: 0, locks: 0, lockedUntil: null });
      expect(await v.record(u.tenantId, u.id, rule(0))).toEqual({
        failures: 1,
        locks: 0,
        lockedUntil: null,
        lockedNow: false,
      });
      await v.clear(u.tenantId, u.id);
      expect((await v.find(u.tenantId, u.id))?.failures).toBe(0);
      await v.record(u.tenantId, u.id, rule(0));
      await v.record(u.tenantId, u.id, rule(0));
      expect(await v.record(u.tenantId, u.id, rule(1000))).toEqual({
        failures: 0,
        locks: 1,
        lockedUntil: at(1000 + 900_000),
        lockedNow: true,
      });
      for (let i = 0; i < 2; i++) await v.record(u.tenantId, u.id, rule(5000));
      // The second lock is twice as long, the third held to the ceiling.
      expect((await v.record(u.tenantId, u.id, rule(5000)))?.lockedUntil).toEqual(at(5000 + 1_800_000));
      for (let i = 0; i < 2; i++) await v.record(u.tenantId, u.id, rule(9000));
      expect(await v.record(u.tenantId, u.id, rule(9000))).toMatchObject({
        locks: 3,
        lockedUntil: at(9000 + 2_000_000),
        lockedNow: true,
      });
      // A right answer keeps the locks so far.
      await v.record(u.tenantId, u.id, rule(9000));
      await v.clear(u.tenantId, u.id);
      expect(await v.find(u.tenantId, u.id)).toEqual({ failures: 0, locks: 3, lockedUntil: at(2_009_000) });
    });

    it('counts every one of concurrent wrong answers, and exactly one of them locks', async () => {
      const v = verbs();
      if (!v) return; // the store has no lock verbs
      const u = await seedUser();
      const after = await Promise.all(
        Array.from({ length: 5 }, () => v.record(u.tenantId, u.id, { ...rule(0), maxFailures: 5 })),
      );
      expect(after.filter((a) => a?.lockedNow)).toHaveLength(1);
      expect(await v.find(u.tenantId, u.id)).toMatchObject({ failures: 0, locks: 1 });
    });

    it('reserves answers before they are checked: of concurrent ones only those within the limit, the lock at the limit', async () => {
      const f: FactorStore = stores().factors;
      if (!f.reserveFactorAttempt || !f.settleFactorFailure || !f.releaseFactorAttempt || !f.findFactorLock)
        return; // the store has no reservation verbs
      const u = await seedUser();
      const r = { ...rule(0), maxFailures: 5 };
      const reserved = await Promise.all(
        Array.from({ length: 8 }, () => f.reserveFactorAttempt?.(u.tenantId, u.id, r)),
      );
      // Five are counted; of the three beyond the limit the first locks the account, the others find it locked.
      expect(reserved.filter((x) => x?.reserved)).toHaveLength(5);
      expect(reserved.filter((x) => x?.lockedNow)).toHaveLength(1);
      expect(await f.findFactorLock(u.tenantId, u.id)).toEqual({
        failures: 0,
        locks: 1,
        lockedUntil: at(900_000),
      });
      // Settling the wrong ones locks nothing more; nothing is reserved while locked.
      expect((await f.settleFactorFailure(u.tenantId, u.id, r))?.lockedNow).toBe(false);
      expect(await f.reserveFactorAttempt(u.tenantId, u.id, r)).toMatchObject({
        reserved: false,
        lockedNow: false,
      });
    });

    it('a reservation released or answered right locks nothing; a wrong one settled at the limit locks', async () => {
      const f: FactorStore = stores().factors;
      if (!f.reserveFactorAttempt || !f.settleFactorFailure || !f.releaseFactorAttempt || !f.findFactorLock)
        return; // the store has no reservation verbs
      const u = await seedUser();
      const r = { ...rule(0), maxFailures: 3 };
      for (let i = 0; i < 2; i++) {
        expect(await f.reserveFactorAttempt(u.tenantId, u.id, r)).toMatchObject({ reserved: true });
        expect(await f.settleFactorFailure(u.tenantId, u.id, r)).toMatchObject({
          failures: i + 1,
          lockedNow: false,
        });
      }
      // The last allowed answer, right: the count starts again, nothing locked.
      expect(await f.reserveFactorAttempt(u.tenantId, u.id, r)).toMatchObject({
        failures: 3,
        reserved: true,
      });
      await f.clearFactorFailures?.(u.tenantId, u.id);
      expect(await f.findFactorLock(u.tenantId, u.id)).toEqual({ failures: 0, locks: 0, lockedUntil: null });
      // An answer that could not be checked is given back, never below zero.
      await f.reserveFactorAttempt(u.tenantId, u.id, r);
      await f.releaseFactorAttempt(u.tenantId, u.id);
      await f.releaseFactorAttempt(u.tenantId, u.id);
      expect((await f.findFactorLock(u.tenantId, u.id))?.failures).toBe(0);
      // Three wrong ones: the third, settled, locks.
      for (let i = 0; i < 3; i++) await f.reserveFactorAttempt(u.tenantId, u.id, r);
      expect(await f.settleFactorFailure(u.tenantId, u.id, rule(1000))).toEqual({
        failures: 0,
        locks: 1,
        lockedUntil: at(1000 + 900_000),
        lockedNow: true,
      });
      const other = await seedUser();
      expect(await f.reserveFactorAttempt(other.tenantId, u.id, r)).toBeNull();
      expect(await f.settleFactorFailure(other.tenantId, u.id, r)).toBeNull();
    });

    it(inAnotherTenant('finds, counts and clears nothing'), async () => {
      const v = verbs();
      if (!v) return; // the store has no lock verbs
      const u = await seedUser();
      const other = await seedUser();
      await v.record(u.tenantId, u.id, rule(0));
      expect(await v.find(other.tenantId, u.id)).toBeNull();
      expect(await v.record(other.tenantId, u.id, rule(0))).toBeNull();
      await v.clear(other.tenantId, u.id);
      expect((await v.find(u.tenantId, u.id))?.failures).toBe(1);
    });

    it('goes with its user', async () => {
      const v = verbs();
      if (!v) return; // the store has no lock verbs
      const u = await seedUser();
      await v.record(u.tenantId, u.id, rule(0));
      await stores().users.delete(u.tenantId, u.id);
      expect(await v.find(u.tenantId, u.id)).toBeNull();
    });
  });
}
