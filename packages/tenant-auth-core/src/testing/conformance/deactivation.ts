import { randomUUID } from 'node:crypto';
import type { ApiKeyRecord } from '../../ports/api-key-store.js';
import type { UserRecord } from '../../store-kit.js';
import { at, hex64, memberOf, rotation, sessionFor } from '../fixtures.js';
import { type ConformanceContext, inAnotherTenant } from './context.js';

/** Whether a user as a store read it is active: absent is active (`UserRecord.active`). */
const activeOf = (user: UserRecord | null | undefined) => (user ? user.active !== false : null);

/** A key of `creator`'s tenant, created by it. */
const keyBy = (creator: UserRecord, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
  id: randomUUID(),
  tenantId: creator.tenantId,
  name: 'deploys',
  role: 'member',
  prefix: 'tak_abcdefgh',
  secretHash: hex64(),
  createdAt: at(0),
  createdBy: creator.id,
  expiresAt: null,
  lastUsedAt: null,
  revokedAt: null,
  ...overrides,
});

/**
 * @internal Conformance cases of deactivation (1.3; docs/http-api.md, "Errors added in 1.3"):
 * `users.setActive`, `users.countActiveByRole` and `apiKeys.revokeCreatedBy`. Each is optional on the
 * interfaces (a 1.2 store has none and core fills in stand-ins); a case of a verb the store lacks passes
 * without running.
 */
export function deactivationCases({ test, stores, seedUser }: ConformanceContext): void {
  const { describe, it, expect } = test;
  const users = () => stores().users;
  /** The store's verbs of deactivation, bound; `undefined` where the store has none. */
  const verbs = () => {
    const u = users();
    const k = stores().apiKeys;
    return {
      setActive: u.setActive?.bind(u),
      countActive: u.countActiveByRole?.bind(u),
      revokeCreatedBy: k.revokeCreatedBy?.bind(k),
    };
  };

  describe('users.setActive (optional)', () => {
    it('deactivates a user of the tenant and every read shows it; true restores it', async () => {
      const { setActive } = verbs();
      if (!setActive) return;
      const owner = await seedUser();
      const member = memberOf(owner.tenantId);
      await users().create(member);
      const s = sessionFor(member);
      await stores().sessions.create(s);
      expect(await setActive(owner.tenantId, member.id, false)).toBe(true);
      const found = await users().findById(owner.tenantId, member.id);
      expect(found).toEqual({ ...member, active: false });
      expect(await users().findByEmail(member.email)).toEqual(found);
      const listed = await users().listByTenant(owner.tenantId);
      expect(activeOf(listed.find((u) => u.id === member.id))).toBe(false);
      expect(activeOf(listed.find((u) => u.id === owner.id))).toBe(true);
      // Refresh reads the user with its session: the flag comes with it.
      expect(activeOf((await stores().sessions.findByRefreshHash(owner.tenantId, s.refreshHash))?.user)).toBe(
        false,
      );
      expect(await setActive(owner.tenantId, member.id, true)).toBe(true);
      expect(activeOf(await users().findById(owner.tenantId, member.id))).toBe(true);
      expect(await users().findById(owner.tenantId, member.id)).toMatchObject({
        email: member.email,
        role: member.role,
        passwordHash: member.passwordHash,
      });
      expect(await setActive(owner.tenantId, randomUUID(), false)).toBe(false);
      expect(await setActive('not-a-uuid', 'nor-this', false)).toBe(false);
    });

    it('a user created with active false reads as deactivated', async () => {
      const { setActive } = verbs();
      if (!setActive) return;
      const owner = await seedUser();
      const member = memberOf(owner.tenantId, { active: false });
      await users().create(member);
      expect(activeOf(await users().findById(owner.tenantId, member.id))).toBe(false);
    });

    it('rotateCurrent, where the store has it, returns the user with its flag', async () => {
      const store = stores().sessions;
      const { setActive } = verbs();
      if (!setActive || !store.rotateCurrent) return;
      const owner = await seedUser();
      const s = sessionFor(owner);
      await store.create(s);
      await setActive(owner.tenantId, owner.id, false);
      const expected = {
        sessionId: s.id,
        userId: owner.id,
        refreshHash: s.refreshHash,
        activeAt: at(60_000),
      };
      const rotated = await store.rotateCurrent(owner.tenantId, expected, rotation(60_000));
      expect(activeOf(rotated?.user)).toBe(false);
    });

    it(inAnotherTenant('false, and nobody is deactivated, there or here'), async () => {
      const { setActive } = verbs();
      if (!setActive) return;
      const owner = await seedUser();
      const other = await seedUser();
      expect(await setActive(other.tenantId, owner.id, false)).toBe(false);
      expect(activeOf(await users().findById(owner.tenantId, owner.id))).toBe(true);
      expect(activeOf(await users().findById(other.tenantId, other.id))).toBe(true);
    });
  });

  describe('users.countActiveByRole (optional)', () => {
    it('counts the active users of a role in the tenant', async () => {
      const { setActive, countActive } = verbs();
      if (!countActive || !setActive) return;
      const owner = await seedUser();
      const second = memberOf(owner.tenantId, { role: 'owner' });
      await users().create(second);
      await users().create(memberOf(owner.tenantId, { role: 'admin' }));
      expect(await countActive(owner.tenantId, 'owner')).toBe(2);
      await setActive(owner.tenantId, second.id, false);
      expect(await countActive(owner.tenantId, 'owner')).toBe(1);
      expect(await users().countByRole(owner.tenantId, 'owner')).toBe(2);
      expect(await countActive(owner.tenantId, 'admin')).toBe(1);
      expect(await countActive(owner.tenantId, 'member')).toBe(0);
      expect(await countActive('not-a-uuid', 'owner')).toBe(0);
    });

    it(inAnotherTenant("counts that tenant's active users only"), async () => {
      const { countActive } = verbs();
      if (!countActive) return;
      const owner = await seedUser();
      const other = await seedUser();
      await users().create(memberOf(owner.tenantId, { role: 'owner' }));
      expect(await countActive(other.tenantId, 'owner')).toBe(1);
    });
  });

  describe('apiKeys.revokeCreatedBy (optional)', () => {
    it("revokes the user's unrevoked keys of the tenant, and only those; returns how many", async () => {
      const apiKeys = stores().apiKeys;
      const { revokeCreatedBy } = verbs();
      if (!revokeCreatedBy) return;
      const owner = await seedUser();
      const admin = memberOf(owner.tenantId, { role: 'admin' });
      await users().create(admin);
      const first = keyBy(admin);
      const second = keyBy(admin, { expiresAt: at(1000) });
      const earlier = keyBy(admin, { revokedAt: at(500) });
      const owners = keyBy(owner);
      for (const key of [first, second, earlier, owners]) await apiKeys.create(key);
      expect(await revokeCreatedBy(owner.tenantId, admin.id, at(9000))).toBe(2);
      expect((await apiKeys.findById(owner.tenantId, first.id))?.revokedAt).toEqual(at(9000));
      expect((await apiKeys.findById(owner.tenantId, second.id))?.revokedAt).toEqual(at(9000));
      // Already revoked: left as it was.
      expect((await apiKeys.findById(owner.tenantId, earlier.id))?.revokedAt).toEqual(at(500));
      expect(await apiKeys.findById(owner.tenantId, owners.id)).toEqual(owners);
      expect(await revokeCreatedBy(owner.tenantId, admin.id, at(9500))).toBe(0);
      expect(await revokeCreatedBy('not-a-uuid', 'nor-this', at(9500))).toBe(0);
    });

    it(inAnotherTenant('revokes nothing, there or here'), async () => {
      const apiKeys = stores().apiKeys;
      const { revokeCreatedBy } = verbs();
      if (!revokeCreatedBy) return;
      const owner = await seedUser();
      const other = await seedUser();
      const key = keyBy(owner);
      await apiKeys.create(key);
      expect(await revokeCreatedBy(other.tenantId, owner.id, at(9000))).toBe(0);
      expect(await apiKeys.findById(owner.tenantId, key.id)).toEqual(key);
    });
  });
}
