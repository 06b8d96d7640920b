import { at, auditEvent, memberOf, oneTimeToken, sessionFor, tenantAndOwner } from '../fixtures.js';
import { type ConformanceContext, errorCode } from './context.js';

/** @internal Conformance cases of the membership verbs of `tenants` and `users`. */
export function memberCases({ test, stores, seedUser }: ConformanceContext): void {
  const { describe, it, expect } = test;

  describe('members', () => {
    it('lists the users of a tenant oldest first, and none of another tenant', async () => {
      const owner = await seedUser();
      const other = await seedUser();
      const admin = memberOf(owner.tenantId, { role: 'admin', createdAt: at(2) });
      const member = memberOf(owner.tenantId, { createdAt: at(1) });
      await stores().users.create(admin);
      await stores().users.create(member);
      await stores().users.create(memberOf(other.tenantId));
      const listed = await stores().users.listByTenant(owner.tenantId);
      expect(listed.map((u) => u.id)).toEqual([owner.id, member.id, admin.id]);
      expect(listed[2]).toEqual(admin);
      expect((await stores().users.listByTenant(other.tenantId)).map((u) => u.tenantId)).toEqual([
        other.tenantId,
        other.tenantId,
      ]);
      expect(await stores().users.listByTenant('not-a-uuid')).toEqual([]);
    });

    it('counts the users of a role in one tenant only', async () => {
      const owner = await seedUser();
      const other = await seedUser();
      await stores().users.create(memberOf(owner.tenantId, { role: 'owner' }));
      await stores().users.create(memberOf(owner.tenantId, { role: 'admin' }));
      expect(await stores().users.countByRole(owner.tenantId, 'owner')).toBe(2);
      expect(await stores().users.countByRole(owner.tenantId, 'admin')).toBe(1);
      expect(await stores().users.countByRole(owner.tenantId, 'member')).toBe(0);
      expect(await stores().users.countByRole(other.tenantId, 'owner')).toBe(1);
      expect(await stores().users.countByRole('not-a-uuid', 'owner')).toBe(0);
    });

    it('sets a role and marks an email verified only for the user of that tenant', async () => {
      const owner = await seedUser();
      const other = await seedUser();
      const member = memberOf(owner.tenantId, { emailVerified: false });
      await stores().users.create(member);
      expect(await stores().users.setRole(other.tenantId, member.id, 'admin')).toBe(false);
      expect(await stores().users.markEmailVerified(other.tenantId, member.id)).toBe(false);
      expect(await stores().users.findById(owner.tenantId, member.id)).toEqual(member);
      expect(await stores().users.setRole(owner.tenantId, member.id, 'admin')).toBe(true);
      expect(await stores().users.markEmailVerified(owner.tenantId, member.id)).toBe(true);
      expect(await stores().users.findById(owner.tenantId, member.id)).toEqual({
        ...member,
        role: 'admin',
        emailVerified: true,
      });
      expect(await stores().users.findById(other.tenantId, other.id)).toMatchObject({
        role: 'owner',
        emailVerified: false,
      });
      expect(await stores().users.setRole('not-a-uuid', 'nor-this', 'admin')).toBe(false);
    });

    it('changes an email to a verified new one, frees the old one, and refuses a taken one', async () => {
      const user = await seedUser({ email: 'old@example.com' });
      const other = await seedUser({ email: 'taken@example.com' });
      expect(await stores().users.changeEmail(other.tenantId, user.id, 'new@example.com')).toBe(false);
      expect(await errorCode(stores().users.changeEmail(user.tenantId, user.id, 'taken@example.com'))).toBe(
        'email_taken',
      );
      expect(await stores().users.findById(user.tenantId, user.id)).toEqual(user);
      expect(await stores().users.changeEmail(user.tenantId, user.id, 'new@example.com')).toBe(true);
      expect(await stores().users.findByEmail('new@example.com')).toEqual({
        ...user,
        email: 'new@example.com',
        emailVerified: true,
      });
      expect(await stores().users.findByEmail('old@example.com')).toBeNull();
      const reuse = tenantAndOwner({ email: 'old@example.com' });
      await stores().tenants.create(reuse.tenant);
      await stores().users.create(reuse.user);
      expect((await stores().users.findByEmail('old@example.com'))?.id).toBe(reuse.user.id);
      expect((await stores().users.findByEmail('taken@example.com'))?.id).toBe(other.id);
    });

    it("deletes a user with its sessions and one-time tokens, never another tenant's", async () => {
      const owner = await seedUser();
      const other = await seedUser();
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

      expect(await stores().users.delete(other.tenantId, member.id)).toBe(false);
      expect(await stores().users.findById(owner.tenantId, member.id)).toEqual(member);
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
      expect(await stores().users.findById(other.tenantId, other.id)).toEqual(other);
      expect(await stores().users.delete('not-a-uuid', 'nor-this')).toBe(false);
    });

    it('deletes a tenant with its users, sessions, tokens and audit events, and nothing of another', async () => {
      const owner = await seedUser({ slug: 'doomed' });
      const other = await seedUser();
      const session = sessionFor(owner);
      await stores().sessions.create(session);
      const otherSession = sessionFor(other);
      await stores().sessions.create(otherSession);
      const invitation = oneTimeToken('invitation', owner.tenantId, { createdBy: owner.id });
      await stores().oneTimeTokens.issue(invitation);
      await stores().auditEvents.append(auditEvent(owner.tenantId, { actorId: owner.id }));
      const otherEvent = auditEvent(other.tenantId, { actorId: other.id });
      await stores().auditEvents.append(otherEvent);

      expect(await stores().tenants.delete(owner.tenantId)).toBe(true);
      expect(await stores().tenants.delete(owner.tenantId)).toBe(false);
      expect(await stores().tenants.findById(owner.tenantId)).toBeNull();
      expect(await stores().users.findById(owner.tenantId, owner.id)).toBeNull();
      expect(await stores().sessions.findById(owner.tenantId, session.id)).toBeNull();
      expect(await stores().oneTimeTokens.find('invitation', invitation.tokenHash, at(0))).toBeNull();
      expect(await stores().auditEvents.list(owner.tenantId, { limit: 10 })).toEqual([]);
      expect(await stores().tenants.findById(other.tenantId)).not.toBeNull();
      expect(await stores().sessions.findById(other.tenantId, otherSession.id)).toEqual(otherSession);
      expect(await stores().auditEvents.list(other.tenantId, { limit: 10 })).toEqual([otherEvent]);
      // The slug is free again.
      await seedUser({ slug: 'doomed' });
      expect(await stores().tenants.delete('not-a-uuid')).toBe(false);
    });

    it('locks a tenant inside a transaction, and says whether it exists', async () => {
      const owner = await seedUser();
      expect(await stores().transaction((tx) => tx.tenants.lock(owner.tenantId))).toBe(true);
      expect(await stores().transaction((tx) => tx.tenants.lock(tenantAndOwner().tenant.id))).toBe(false);
      expect(await stores().transaction((tx) => tx.tenants.lock('not-a-uuid'))).toBe(false);
    });

    it('serialises membership changes by the tenant lock: of two owners demoting each other, one wins', async () => {
      for (let round = 0; round < 5; round++) {
        const first = await seedUser();
        const second = memberOf(first.tenantId, { role: 'owner' });
        await stores().users.create(second);
        const other = await seedUser();
        const demote = (targetId: string) =>
          stores().transaction(async (tx) => {
            await tx.tenants.lock(first.tenantId);
            if ((await tx.users.countByRole(first.tenantId, 'owner')) < 2) return 'last_owner';
            await tx.users.setRole(first.tenantId, targetId, 'admin');
            return 'demoted';
          });
        const results = await Promise.all([demote(second.id), demote(first.id)]);
        expect(results.filter((r) => r === 'demoted')).toHaveLength(1);
        expect(await stores().users.countByRole(first.tenantId, 'owner')).toBe(1);
        expect(await stores().users.countByRole(other.tenantId, 'owner')).toBe(1);
      }
    });
  });
}
