import { at, rotation, sessionFor, tenantAndOwner } from '../fixtures.js';
import { type ConformanceContext, errorCode, Rollback } from './context.js';

/** @internal Conformance cases of `transaction`: all or nothing, and uniqueness under concurrency. */
export function transactionCases({ test, stores, seed, seedUser }: ConformanceContext): void {
  const { describe, it, expect } = test;

  describe('transactions', () => {
    it('commit every write together', async () => {
      const input = tenantAndOwner();
      const s = sessionFor(input.user);
      const result = await stores().transaction(async (tx) => {
        await tx.tenants.create(input.tenant);
        await tx.users.create(input.user);
        await tx.sessions.create(s);
        // A transaction reads its own writes.
        expect(await tx.users.findById(input.tenant.id, input.user.id)).toEqual(input.user);
        return 'done';
      });
      expect(result).toBe('done');
      expect(await stores().tenants.findById(input.tenant.id)).toEqual(input.tenant);
      expect(await stores().sessions.findById(input.tenant.id, s.id)).toEqual(s);
    });

    it('roll back every write when the function throws, and rethrow its error', async () => {
      const input = tenantAndOwner();
      const s = sessionFor(input.user);
      const failure = new Rollback('stop');
      await expect(
        stores().transaction(async (tx) => {
          await tx.tenants.create(input.tenant);
          await tx.users.create(input.user);
          await tx.sessions.create(s);
          throw failure;
        }),
      ).rejects.toBe(failure);
      expect(await stores().tenants.findById(input.tenant.id)).toBeNull();
      expect(await stores().users.findByEmail(input.user.email)).toBeNull();
      expect(await stores().sessions.findById(input.tenant.id, s.id)).toBeNull();
    });

    it('roll back the tenant when its owner cannot be created (email taken): no orphan tenant', async () => {
      await seedUser({ email: 'taken@example.com' });
      const dup = tenantAndOwner({ email: 'taken@example.com' });
      const code = await errorCode(
        stores().transaction(async (tx) => {
          await tx.tenants.create(dup.tenant);
          await tx.users.create(dup.user);
        }),
      );
      expect(code).toBe('email_taken');
      expect(await stores().tenants.findById(dup.tenant.id)).toBeNull();
    });

    it('roll back revocations and rotations too', async () => {
      const user = await seedUser();
      const other = await seedUser();
      const s = sessionFor(user);
      const theirs = sessionFor(other);
      await stores().sessions.create(s);
      await stores().sessions.create(theirs);
      await expect(
        stores().transaction(async (tx) => {
          expect(await tx.sessions.rotate(user.tenantId, s.id, s.refreshHash, rotation(1000))).toBe(true);
          expect(await tx.sessions.revokeAllForUser(other.tenantId, other.id, at(2000))).toBe(1);
          throw new Rollback('stop');
        }),
      ).rejects.toBeInstanceOf(Rollback);
      expect(await stores().sessions.findById(user.tenantId, s.id)).toEqual(s);
      expect(await stores().sessions.findById(other.tenantId, theirs.id)).toEqual(theirs);
    });

    it('let exactly one of 20 concurrent registrations of one email win, leaving no orphan tenant', async () => {
      const attempts = Array.from({ length: 20 }, () => tenantAndOwner({ email: 'race@example.com' }));
      const results = await Promise.all(attempts.map((a) => errorCode(seed(a))));
      expect(results.filter((r) => r === 'resolved')).toHaveLength(1);
      expect(results.filter((r) => r === 'email_taken')).toHaveLength(19);
      const winner = attempts[results.indexOf('resolved')]!;
      expect(await stores().users.findByEmail('race@example.com')).toEqual(winner.user);
      const tenants = await Promise.all(attempts.map((a) => stores().tenants.findById(a.tenant.id)));
      expect(tenants.filter((t) => t !== null)).toHaveLength(1);
    });
  });
}
