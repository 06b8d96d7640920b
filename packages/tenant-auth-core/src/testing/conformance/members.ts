import { at, memberOf, tenantAndOwner } from '../fixtures.js';
import { type ConformanceContext, errorCode, inAnotherTenant } from './context.js';

/** @internal Conformance cases of `users.listByTenant` and `users.countByRole`. */
export function memberListCases({ test, stores, seedUser }: ConformanceContext): void {
  const { describe, it, expect } = test;

  describe('users.listByTenant', () => {
    it('lists the users of a tenant oldest first', async () => {
      const owner = await seedUser();
      const admin = memberOf(owner.tenantId, { role: 'admin', createdAt: at(2) });
      const member = memberOf(owner.tenantId, { createdAt: at(1) });
      await stores().users.create(admin);
      await stores().users.create(member);
      const listed = await stores().users.listByTenant(owner.tenantId);
      expect(listed.map((u) => u.id)).toEqual([owner.id, member.id, admin.id]);
      expect(listed[2]).toEqual(admin);
      expect(await stores().users.listByTenant('not-a-uuid')).toEqual([]);
    });

    it(inAnotherTenant("lists that tenant's users only"), async () => {
      const owner = await seedUser();
      const other = await seedUser();
      await stores().users.create(memberOf(owner.tenantId));
      await stores().users.create(memberOf(other.tenantId));
      expect((await stores().users.listByTenant(other.tenantId)).map((u) => u.tenantId)).toEqual([
        other.tenantId,
        other.tenantId,
      ]);
    });
  });

  describe('users.countByRole', () => {
    it('counts the users of a role in the tenant', async () => {
      const owner = await seedUser();
      await stores().users.create(memberOf(owner.tenantId, { role: 'owner' }));
      await stores().users.create(memberOf(owner.tenantId, { role: 'admin' }));
      expect(await stores().users.countByRole(owner.tenantId, 'owner')).toBe(2);
      expect(await stores().users.countByRole(owner.tenantId, 'admin')).toBe(1);
      expect(await stores().users.countByRole(owner.tenantId, 'member')).toBe(0);
      expect(await stores().users.countByRole('not-a-uuid', 'owner')).toBe(0);
    });

    it(inAnotherTenant("counts that tenant's users only"), async () => {
      const owner = await seedUser();
      const other = await seedUser();
      await stores().users.create(memberOf(owner.tenantId, { role: 'owner' }));
      await stores().users.create(memberOf(owner.tenantId, { role: 'admin' }));
      expect(await stores().users.countByRole(other.tenantId, 'owner')).toBe(1);
      expect(await stores().users.countByRole(other.tenantId, 'admin')).toBe(0);
    });
  });
}

/** @internal Conformance cases of `users.setRole` and `users.markEmailVerified`. */
export function memberChangeCases({ test, stores, seedUser }: ConformanceContext): void {
  const { describe, it, expect } = test;

  describe('users.setRole', () => {
    it('sets the role of a user of the tenant', async () => {
      const owner = await seedUser();
      const member = memberOf(owner.tenantId, { emailVerified: false });
      await stores().users.create(member);
      expect(await stores().users.setRole(owner.tenantId, member.id, 'admin')).toBe(true);
      expect(await stores().users.findById(owner.tenantId, member.id)).toEqual({ ...member, role: 'admin' });
      expect(await stores().users.setRole('not-a-uuid', 'nor-this', 'admin')).toBe(false);
    });

    it(inAnotherTenant('false, and no role changes, there or here'), async () => {
      const owner = await seedUser();
      const other = await seedUser();
      const member = memberOf(owner.tenantId, { emailVerified: false });
      await stores().users.create(member);
      expect(await stores().users.setRole(other.tenantId, member.id, 'admin')).toBe(false);
      expect(await stores().users.findById(owner.tenantId, member.id)).toEqual(member);
      expect(await stores().users.setRole(owner.tenantId, member.id, 'admin')).toBe(true);
      expect(await stores().users.findById(other.tenantId, other.id)).toMatchObject({ role: 'owner' });
    });
  });

  describe('users.markEmailVerified', () => {
    it('marks the email of a user of the tenant verified', async () => {
      const owner = await seedUser();
      const member = memberOf(owner.tenantId, { emailVerified: false });
      await stores().users.create(member);
      expect(await stores().users.markEmailVerified(owner.tenantId, member.id)).toBe(true);
      expect(await stores().users.findById(owner.tenantId, member.id)).toEqual({
        ...member,
        emailVerified: true,
      });
    });

    it(inAnotherTenant('false, and no email is marked, there or here'), async () => {
      const owner = await seedUser();
      const other = await seedUser();
      const member = memberOf(owner.tenantId, { emailVerified: false });
      await stores().users.create(member);
      expect(await stores().users.markEmailVerified(other.tenantId, member.id)).toBe(false);
      expect(await stores().users.findById(owner.tenantId, member.id)).toEqual(member);
      expect(await stores().users.markEmailVerified(owner.tenantId, member.id)).toBe(true);
      expect(await stores().users.findById(other.tenantId, other.id)).toMatchObject({
        role: 'owner',
        emailVerified: false,
      });
    });
  });
}

/** @internal Conformance cases of `users.changeEmail`. */
export function emailChangeCases({ test, stores, seedUser }: ConformanceContext): void {
  const { describe, it, expect } = test;

  describe('users.changeEmail', () => {
    it('changes an email to a verified new one and frees the old one', async () => {
      const user = await seedUser({ email: 'old@example.com' });
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
    });

    it('refuses an email another user has, in any tenant, with email_taken', async () => {
      const user = await seedUser({ email: 'old@example.com' });
      const other = await seedUser({ email: 'taken@example.com' });
      expect(await errorCode(stores().users.changeEmail(user.tenantId, user.id, 'taken@example.com'))).toBe(
        'email_taken',
      );
      expect(await stores().users.findById(user.tenantId, user.id)).toEqual(user);
      expect((await stores().users.findByEmail('taken@example.com'))?.id).toBe(other.id);
    });

    it(inAnotherTenant('false, and the email stays'), async () => {
      const user = await seedUser({ email: 'old@example.com' });
      const other = await seedUser({ email: 'taken@example.com' });
      expect(await stores().users.changeEmail(other.tenantId, user.id, 'new@example.com')).toBe(false);
      expect(await stores().users.findById(user.tenantId, user.id)).toEqual(user);
      expect(await stores().users.findByEmail('new@example.com')).toBeNull();
      expect(await stores().users.findById(other.tenantId, other.id)).toEqual(other);
    });
  });
}
