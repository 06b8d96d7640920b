import { tenantAndOwner } from '../fixtures.js';
import { type ConformanceContext, errorCode, inAnotherTenant } from './context.js';

/** @internal Conformance cases of `tenants.create`, `tenants.findById`, `users.create` and `users.findByEmail`. */
export function tenantAndUserCreationCases({ test, stores, seed, seedUser }: ConformanceContext): void {
  const { describe, it, expect } = test;

  describe('tenants.create', () => {
    it('creates a tenant that findById reads back', async () => {
      const input = tenantAndOwner({ email: 'ada@example.com', slug: 'analytical-engines' });
      await seed(input);
      expect(await stores().tenants.findById(input.tenant.id)).toEqual(input.tenant);
    });

    it('refuses a taken slug with slug_taken', async () => {
      const first = await seedUser({ slug: 'acme' });
      const dup = tenantAndOwner({ slug: 'acme' });
      expect(await errorCode(stores().tenants.create(dup.tenant))).toBe('slug_taken');
      expect(await stores().tenants.findById(dup.tenant.id)).toBeNull();
      expect((await stores().tenants.findById(first.tenantId))?.slug).toBe('acme');
    });
  });

  describe('tenants.findById', () => {
    it('answers null for unknown ids, and for ids that are not UUIDs', async () => {
      await seedUser();
      expect(await stores().tenants.findById(tenantAndOwner().tenant.id)).toBeNull();
      expect(await stores().tenants.findById('not-a-uuid')).toBeNull();
    });

    it(inAnotherTenant('finds that tenant, never this one, nor that one for a tenant gone'), async () => {
      const input = tenantAndOwner();
      const other = tenantAndOwner();
      await seed(input);
      await seed(other);
      expect(await stores().tenants.findById(other.tenant.id)).toEqual(other.tenant);
      expect(await stores().tenants.findById(input.tenant.id)).toEqual(input.tenant);
      expect(await stores().tenants.delete(input.tenant.id)).toBe(true);
      expect(await stores().tenants.findById(input.tenant.id)).toBeNull();
      expect(await stores().tenants.findById(other.tenant.id)).toEqual(other.tenant);
    });
  });

  describe('users.create', () => {
    it('creates a user that findById and findByEmail read back', async () => {
      const input = tenantAndOwner({ email: 'ada@example.com', slug: 'analytical-engines' });
      await seed(input);
      expect(await stores().users.findById(input.tenant.id, input.user.id)).toEqual(input.user);
      expect(await stores().users.findByEmail('ada@example.com')).toEqual(input.user);
    });

    it(inAnotherTenant('a taken email is refused with email_taken, and the first user kept'), async () => {
      const first = await seedUser({ email: 'ada@example.com' });
      const dup = tenantAndOwner({ email: 'ada@example.com' });
      await stores().tenants.create(dup.tenant);
      expect(await errorCode(stores().users.create(dup.user))).toBe('email_taken');
      expect(await stores().users.findByEmail('ada@example.com')).toEqual(first);
      expect(await stores().users.findById(dup.tenant.id, dup.user.id)).toBeNull();
    });
  });

  describe('users.findByEmail', () => {
    it('answers null for an unknown email', async () => {
      await seedUser();
      expect(await stores().users.findByEmail('nobody@example.com')).toBeNull();
    });

    it('compares emails as given: no second folding of case or Unicode', async () => {
      await seedUser({ email: 'kelvin@example.com' });
      expect(await stores().users.findByEmail('\u212Aelvin@example.com')).toBeNull();
      expect(await stores().users.findByEmail('KELVIN@example.com')).toBeNull();
    });
  });
}

/** @internal Conformance cases of `users.findById` and `users.setPasswordHash`. */
export function userReadAndPasswordCases({ test, stores, seedUser }: ConformanceContext): void {
  const { describe, it, expect } = test;

  describe('users.findById', () => {
    it('answers null for unknown ids, and for ids that are not UUIDs', async () => {
      await seedUser();
      const unknown = tenantAndOwner();
      expect(await stores().users.findById(unknown.tenant.id, unknown.user.id)).toBeNull();
      expect(await stores().users.findById('not-a-uuid', 'nor-this')).toBeNull();
    });

    it(inAnotherTenant('null, both ways'), async () => {
      const user = await seedUser();
      const other = await seedUser();
      expect(await stores().users.findById(other.tenantId, user.id)).toBeNull();
      expect(await stores().users.findById(user.tenantId, other.id)).toBeNull();
    });
  });

  describe('users.setPasswordHash', () => {
    it('replaces the password hash of the user', async () => {
      const user = await seedUser();
      expect(await stores().users.setPasswordHash(user.tenantId, user.id, '$2b$04$new')).toBe(true);
      expect((await stores().users.findById(user.tenantId, user.id))?.passwordHash).toBe('$2b$04$new');
    });

    it(inAnotherTenant('false, and no hash changes, there or here'), async () => {
      const user = await seedUser();
      const other = await seedUser();
      expect(await stores().users.setPasswordHash(other.tenantId, user.id, '$2b$04$other')).toBe(false);
      expect((await stores().users.findById(user.tenantId, user.id))?.passwordHash).toBe(user.passwordHash);
      expect(await stores().users.setPasswordHash(user.tenantId, user.id, '$2b$04$new')).toBe(true);
      expect((await stores().users.findById(other.tenantId, other.id))?.passwordHash).toBe(
        other.passwordHash,
      );
    });
  });
}
