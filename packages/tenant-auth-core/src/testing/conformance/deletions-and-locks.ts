import { at, auditEvent, memberOf, oneTimeToken, sessionFor, tenantAndOwner } from '../fixtures.js';
import { type ConformanceContext, inAnotherTenant } from './context.js';

/** @internal Conformance cases of `users.delete`. */
export function userDeletionCases({ test, stores, seedUser }: ConformanceContext): void {
  const { describe, it, expect } = test;

  describe('users.delete', () => {
    it('deletes a user with its sessions and one-time tokens; an invitation it sent stays', async () => {
      const owner = await seedUser();
      const member = memberOf(owner.tenantId);
      await stores().users.create(member);
      const session = sessionFor(member);
      const keptSession = sessionFor(owner);
      await stores().sessions.create(session);
      await stores().sessions.create(keptSession);
      const reset = oneTimeToken('password_reset', owner.tenantId, { userId: member.id });
      await stores().oneTimeTokens.issue(reset);
      const sent = oneTimeToken('invitation', owner.tenantId, { createdBy: member.id });
      await stores().oneTimeTokens.issue(sent);

      expect(await stores().users.delete(owner.tenantId, member.id)).toBe(true);
      expect(await stores().users.delete(owner.tenantId, member.id)).toBe(false);
      expect(await stores().users.findById(owner.tenantId, member.id)).toBeNull();
      expect(await stores().users.findByEmail(member.email)).toBeNull();
      expect(await stores().sessions.findById(owner.tenantId, session.id)).toBeNull();
      expect(await stores().oneTimeTokens.find('password_reset', reset.tokenHash, at(0))).toBeNull();
      expect(await stores().sessions.findById(owner.tenantId, keptSession.id)).toEqual(keptSession);
      // An invitation it sent stays, no longer naming it.
      expect(await stores().oneTimeTokens.find('invitation', sent.tokenHash, at(0))).toEqual({
        ...sent,
        createdBy: null,
      });
      expect(await stores().users.delete('not-a-uuid', 'nor-this')).toBe(false);
    });

    it(inAnotherTenant('false, and nothing is deleted, there or here'), async () => {
      const owner = await seedUser();
      const other = await seedUser();
      const member = memberOf(owner.tenantId);
      await stores().users.create(member);
      const session = sessionFor(member);
      await stores().sessions.create(session);
      const othersSession = sessionFor(other);
      await stores().sessions.create(othersSession);
      expect(await stores().users.delete(other.tenantId, member.id)).toBe(false);
      expect(await stores().users.findById(owner.tenantId, member.id)).toEqual(member);
      expect(await stores().sessions.findById(owner.tenantId, session.id)).toEqual(session);
      expect(await stores().users.delete(owner.tenantId, member.id)).toBe(true);
      expect(await stores().users.findById(other.tenantId, other.id)).toEqual(other);
      expect(await stores().sessions.findById(other.tenantId, othersSession.id)).toEqual(othersSession);
    });
  });
}

/** @internal Conformance cases of `tenants.delete`. */
export function tenantDeletionCases({ test, stores, seedUser }: ConformanceContext): void {
  const { describe, it, expect } = test;

  describe('tenants.delete', () => {
    it('deletes a tenant with its users, sessions, tokens and audit events, and frees its slug', async () => {
      const owner = await seedUser({ slug: 'doomed' });
      const session = sessionFor(owner);
      await stores().sessions.create(session);
      const invitation = oneTimeToken('invitation', owner.tenantId, { createdBy: owner.id });
      await stores().oneTimeTokens.issue(invitation);
      await stores().auditEvents.append(auditEvent(owner.tenantId, { actorId: owner.id }));

      expect(await stores().tenants.delete(owner.tenantId)).toBe(true);
      expect(await stores().tenants.delete(owner.tenantId)).toBe(false);
      expect(await stores().tenants.findById(owner.tenantId)).toBeNull();
      expect(await stores().users.findById(owner.tenantId, owner.id)).toBeNull();
      expect(await stores().sessions.findById(owner.tenantId, session.id)).toBeNull();
      expect(await stores().oneTimeTokens.find('invitation', invitation.tokenHash, at(0))).toBeNull();
      expect(await stores().auditEvents.list(owner.tenantId, { limit: 10 })).toEqual([]);
      // The slug is free again.
      await seedUser({ slug: 'doomed' });
      expect(await stores().tenants.delete('not-a-uuid')).toBe(false);
    });

    it(inAnotherTenant('deletes nothing of it'), async () => {
      const owner = await seedUser();
      const other = await seedUser();
      const otherSession = sessionFor(other);
      await stores().sessions.create(otherSession);
      const otherInvitation = oneTimeToken('invitation', other.tenantId, { createdBy: other.id });
      await stores().oneTimeTokens.issue(otherInvitation);
      const otherEvent = auditEvent(other.tenantId, { actorId: other.id });
      await stores().auditEvents.append(otherEvent);
      await stores().sessions.create(sessionFor(owner));
      await stores().auditEvents.append(auditEvent(owner.tenantId, { actorId: owner.id }));

      expect(await stores().tenants.delete(owner.tenantId)).toBe(true);
      expect(await stores().tenants.findById(other.tenantId)).not.toBeNull();
      expect(await stores().users.findById(other.tenantId, other.id)).toEqual(other);
      expect(await stores().sessions.findById(other.tenantId, otherSession.id)).toEqual(otherSession);
      expect(await stores().oneTimeTokens.find('invitation', otherInvitation.tokenHash, at(0))).toEqual(
        otherInvitation,
      );
      expect(await stores().auditEvents.list(other.tenantId, { limit: 10 })).toEqual([otherEvent]);
    });
  });
}

/** @internal Conformance cases of `tenants.lock`. */
export function tenantLockCases({ test, stores, seedUser }: ConformanceContext): void {
  const { describe, it, expect } = test;
  /** Demotes `targetId` to admin under the tenant lock, unless that would leave no second owner. */
  const demote = (tenantId: string, targetId: string) =>
    stores().transaction(async (tx) => {
      await tx.tenants.lock(tenantId);
      if ((await tx.users.countByRole(tenantId, 'owner')) < 2) return 'last_owner';
      await tx.users.setRole(tenantId, targetId, 'admin');
      return 'demoted';
    });

  describe('tenants.lock', () => {
    it('locks a tenant inside a transaction, and says whether it exists', async () => {
      const owner = await seedUser();
      expect(await stores().transaction((tx) => tx.tenants.lock(owner.tenantId))).toBe(true);
      expect(await stores().transaction((tx) => tx.tenants.lock(tenantAndOwner().tenant.id))).toBe(false);
      expect(await stores().transaction((tx) => tx.tenants.lock('not-a-uuid'))).toBe(false);
    });

    it('serialises membership changes: of two owners demoting each other, one wins', async () => {
      for (let round = 0; round < 5; round++) {
        const first = await seedUser();
        const second = memberOf(first.tenantId, { role: 'owner' });
        await stores().users.create(second);
        const results = await Promise.all([
          demote(first.tenantId, second.id),
          demote(first.tenantId, first.id),
        ]);
        expect(results.filter((r) => r === 'demoted')).toHaveLength(1);
        expect(await stores().users.countByRole(first.tenantId, 'owner')).toBe(1);
      }
    });

    it(inAnotherTenant('answers for that tenant only, and changes made under it stay in it'), async () => {
      const first = await seedUser();
      const second = memberOf(first.tenantId, { role: 'owner' });
      await stores().users.create(second);
      const other = await seedUser();
      await Promise.all([demote(first.tenantId, second.id), demote(first.tenantId, first.id)]);
      expect(await stores().users.countByRole(other.tenantId, 'owner')).toBe(1);
      expect(await stores().tenants.delete(other.tenantId)).toBe(true);
      expect(await stores().transaction((tx) => tx.tenants.lock(other.tenantId))).toBe(false);
      expect(await stores().transaction((tx) => tx.tenants.lock(first.tenantId))).toBe(true);
    });
  });
}
