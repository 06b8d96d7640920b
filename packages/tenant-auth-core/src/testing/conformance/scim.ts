import { randomBytes, randomUUID } from 'node:crypto';
import type { ScimGroupRecord, ScimProfileRecord, ScimTokenRecord } from '../../ports/scim-store.js';
import type { UserRecord } from '../../store-kit.js';
import { uuidv7 } from '../../vocabulary/ids.js';
import { at, hex64, memberOf } from '../fixtures.js';
import { type ConformanceContext, inAnotherTenant } from './context.js';

let sequence = 0;
/** A UUIDv7 of the time `ms` after the fixtures' epoch. */
const idAt = (ms: number) => uuidv7({ now: () => at(ms) }, (n) => randomBytes(n));

const tokenOf = (tenantId: string, overrides: Partial<ScimTokenRecord> = {}): ScimTokenRecord => ({
  tenantId,
  tokenHash: hex64(),
  createdAt: at(0),
  lastUsedAt: null,
  ...overrides,
});

const profileOf = (user: UserRecord, overrides: Partial<ScimProfileRecord> = {}): ScimProfileRecord => ({
  tenantId: user.tenantId,
  userId: user.id,
  externalId: `ext-${randomUUID()}`,
  givenName: 'Ada',
  familyName: 'Lovelace',
  formattedName: 'Ada Lovelace',
  displayName: 'Ada',
  managed: true,
  updatedAt: at(5000),
  ...overrides,
});

const groupOf = (tenantId: string, overrides: Partial<ScimGroupRecord> = {}): ScimGroupRecord => {
  sequence++;
  return {
    id: idAt(2_000_000 + sequence),
    tenantId,
    displayName: `Group ${sequence}`,
    createdAt: at(sequence),
    updatedAt: at(sequence),
    ...overrides,
  };
};

/** Resolves to whether the promise settled without an error (a store may refuse another tenant's rows). */
const settles = (promise: Promise<unknown>): Promise<boolean> =>
  promise.then(
    () => true,
    () => false,
  );

/**
 * @internal Conformance cases of `scim`: the tenant's token, group-to-role mapping, directory profiles,
 * pages of users and groups, groups and their members, and what deleting a user or a tenant takes with it.
 */
export function scimCases({ test, stores, seedUser }: ConformanceContext): void {
  const { describe, it, expect } = test;
  const scim = () => stores().scim;

  async function withMembers(count: number): Promise<{ owner: UserRecord; members: UserRecord[] }> {
    const owner = await seedUser();
    const members: UserRecord[] = [];
    for (let i = 0; i < count; i++) {
      const member = memberOf(owner.tenantId);
      await stores().users.create(member);
      members.push(member);
    }
    return { owner, members };
  }

  describe('scim.saveToken / findToken / findTokenByHash', () => {
    it('stores the one token of a tenant: a second replaces the first, whose hash finds nothing', async () => {
      const owner = await seedUser();
      const first = tokenOf(owner.tenantId);
      await scim().saveToken(first);
      expect(await scim().findToken(owner.tenantId)).toEqual(first);
      expect(await scim().findTokenByHash(first.tokenHash)).toEqual(first);
      const second = tokenOf(owner.tenantId, { createdAt: at(1000), lastUsedAt: at(2000) });
      await scim().saveToken(second);
      expect(await scim().findToken(owner.tenantId)).toEqual(second);
      expect(await scim().findTokenByHash(second.tokenHash)).toEqual(second);
      expect(await scim().findTokenByHash(first.tokenHash)).toBeNull();
      expect(await scim().findTokenByHash(hex64())).toBeNull();
    });

    it(inAnotherTenant('finds nothing, and its token replaces nothing here'), async () => {
      const owner = await seedUser();
      const other = await seedUser();
      const token = tokenOf(owner.tenantId);
      await scim().saveToken(token);
      expect(await scim().findToken(other.tenantId)).toBeNull();
      const others = tokenOf(other.tenantId);
      await scim().saveToken(others);
      expect(await scim().findToken(owner.tenantId)).toEqual(token);
      // By hash, whatever the tenant: each token names its own.
      expect(await scim().findTokenByHash(token.tokenHash)).toEqual(token);
      expect(await scim().findTokenByHash(others.tokenHash)).toEqual(others);
    });
  });

  describe('scim.deleteToken', () => {
    it('deletes the token: true once, then false', async () => {
      const owner = await seedUser();
      const token = tokenOf(owner.tenantId);
      await scim().saveToken(token);
      expect(await scim().deleteToken(owner.tenantId)).toBe(true);
      expect(await scim().deleteToken(owner.tenantId)).toBe(false);
      expect(await scim().findToken(owner.tenantId)).toBeNull();
      expect(await scim().findTokenByHash(token.tokenHash)).toBeNull();
    });

    it(inAnotherTenant('false, and the token stays'), async () => {
      const owner = await seedUser();
      const other = await seedUser();
      const token = tokenOf(owner.tenantId);
      await scim().saveToken(token);
      expect(await scim().deleteToken(other.tenantId)).toBe(false);
      expect(await scim().findToken(owner.tenantId)).toEqual(token);
    });
  });

  describe('scim.touchToken', () => {
    it('sets lastUsedAt of the current token only: a replaced hash touches nothing', async () => {
      const owner = await seedUser();
      const first = tokenOf(owner.tenantId);
      await scim().saveToken(first);
      await scim().touchToken(owner.tenantId, first.tokenHash, at(60_000));
      expect(await scim().findToken(owner.tenantId)).toEqual({ ...first, lastUsedAt: at(60_000) });
      const second = tokenOf(owner.tenantId, { createdAt: at(90_000) });
      await scim().saveToken(second);
      await scim().touchToken(owner.tenantId, first.tokenHash, at(120_000));
      expect(await scim().findToken(owner.tenantId)).toEqual(second);
      expect(await scim().findTokenByHash(first.tokenHash)).toBeNull();
    });

    it(inAnotherTenant('touches nothing, even with the right hash'), async () => {
      const owner = await seedUser();
      const other = await seedUser();
      const token = tokenOf(owner.tenantId);
      await scim().saveToken(token);
      await scim().touchToken(other.tenantId, token.tokenHash, at(60_000));
      expect(await scim().findToken(owner.tenantId)).toEqual(token);
      expect(await scim().findToken(other.tenantId)).toBeNull();
    });
  });

  describe('scim.getGroupRoles / setGroupRoles', () => {
    it('is empty until set; a set replaces the mapping and keeps its order', async () => {
      const owner = await seedUser();
      expect(await scim().getGroupRoles(owner.tenantId)).toEqual([]);
      const mapping = [
        { group: 'Staff', role: 'member' as const },
        { group: 'Admins', role: 'admin' as const },
      ];
      await scim().setGroupRoles(owner.tenantId, mapping);
      expect(await scim().getGroupRoles(owner.tenantId)).toEqual(mapping);
      await scim().setGroupRoles(owner.tenantId, [{ group: 'IT', role: 'admin' }]);
      expect(await scim().getGroupRoles(owner.tenantId)).toEqual([{ group: 'IT', role: 'admin' }]);
      await scim().setGroupRoles(owner.tenantId, []);
      expect(await scim().getGroupRoles(owner.tenantId)).toEqual([]);
    });

    it(inAnotherTenant('reads and changes nothing here'), async () => {
      const owner = await seedUser();
      const other = await seedUser();
      await scim().setGroupRoles(owner.tenantId, [{ group: 'Admins', role: 'admin' }]);
      expect(await scim().getGroupRoles(other.tenantId)).toEqual([]);
      await scim().setGroupRoles(other.tenantId, [{ group: 'Staff', role: 'member' }]);
      expect(await scim().getGroupRoles(owner.tenantId)).toEqual([{ group: 'Admins', role: 'admin' }]);
    });
  });

  describe('scim.saveProfile / findProfiles', () => {
    it('inserts, then replaces, a profile; finds those of the users asked that have one', async () => {
      const { owner, members } = await withMembers(2);
      const [a, b] = members as [UserRecord, UserRecord];
      const profile = profileOf(a, { managed: false, externalId: null, givenName: null });
      await scim().saveProfile(profile);
      expect(await scim().findProfiles(owner.tenantId, [a.id])).toEqual([profile]);
      const replaced = profileOf(a, { displayName: 'Countess', updatedAt: at(9000) });
      await scim().saveProfile(replaced);
      expect(await scim().findProfiles(owner.tenantId, [a.id, b.id, owner.id])).toEqual([replaced]);
      const second = profileOf(b);
      await scim().saveProfile(second);
      const found = await scim().findProfiles(owner.tenantId, [a.id, b.id, randomUUID()]);
      expect([...found].sort((x, y) => (x.userId < y.userId ? -1 : 1))).toEqual(
        [replaced, second].sort((x, y) => (x.userId < y.userId ? -1 : 1)),
      );
      expect(await scim().findProfiles(owner.tenantId, [])).toEqual([]);
    });

    it(inAnotherTenant('finds no profile of this tenant, and cannot write one for its user'), async () => {
      const { owner, members } = await withMembers(1);
      const other = await seedUser();
      const member = members[0] as UserRecord;
      const profile = profileOf(member);
      await scim().saveProfile(profile);
      expect(await scim().findProfiles(other.tenantId, [member.id])).toEqual([]);
      // A profile that names another tenant for this user is refused or stored nowhere this tenant sees.
      await settles(
        scim().saveProfile({ ...profileOf(member, { displayName: 'Intruder' }), tenantId: other.tenantId }),
      );
      expect(await scim().findProfiles(owner.tenantId, [member.id])).toEqual([profile]);
    });
  });

  describe('scim.findUserIdsByExternalId', () => {
    it('finds the users whose profile has that externalId exactly, oldest first', async () => {
      const { owner, members } = await withMembers(3);
      const [a, b, c] = members as [UserRecord, UserRecord, UserRecord];
      await scim().saveProfile(profileOf(b, { externalId: 'e-1' }));
      await scim().saveProfile(profileOf(a, { externalId: 'e-1' }));
      await scim().saveProfile(profileOf(c, { externalId: 'E-1' }));
      expect(await scim().findUserIdsByExternalId(owner.tenantId, 'e-1')).toEqual([a.id, b.id]);
      expect(await scim().findUserIdsByExternalId(owner.tenantId, 'E-1')).toEqual([c.id]);
      expect(await scim().findUserIdsByExternalId(owner.tenantId, 'e-2')).toEqual([]);
    });

    it(inAnotherTenant('finds nothing'), async () => {
      const { members } = await withMembers(1);
      const other = await seedUser();
      await scim().saveProfile(profileOf(members[0] as UserRecord, { externalId: 'e-1' }));
      expect(await scim().findUserIdsByExternalId(other.tenantId, 'e-1')).toEqual([]);
    });
  });

  describe('scim.listManagedUserIds', () => {
    it('lists the users whose profile is managed, no other', async () => {
      const { owner, members } = await withMembers(3);
      const [a, b] = members as [UserRecord, UserRecord, UserRecord];
      await scim().saveProfile(profileOf(a));
      await scim().saveProfile(profileOf(b, { managed: false }));
      expect(await scim().listManagedUserIds(owner.tenantId)).toEqual([a.id]);
      await scim().saveProfile(profileOf(b));
      expect([...(await scim().listManagedUserIds(owner.tenantId))].sort()).toEqual([a.id, b.id].sort());
    });

    it(inAnotherTenant('lists nothing'), async () => {
      const { members } = await withMembers(1);
      const other = await seedUser();
      await scim().saveProfile(profileOf(members[0] as UserRecord));
      expect(await scim().listManagedUserIds(other.tenantId)).toEqual([]);
    });
  });

  describe('scim.pageUsers', () => {
    it('pages the tenant users oldest first (ties by id), with the total of all', async () => {
      const owner = await seedUser();
      const tied = [
        memberOf(owner.tenantId, { createdAt: at(500) }),
        memberOf(owner.tenantId, { createdAt: at(500) }),
      ];
      const later = memberOf(owner.tenantId, { createdAt: at(900) });
      for (const user of [later, ...tied]) await stores().users.create(user);
      const [first, second] = [...tied].sort((x, y) => (x.id < y.id ? -1 : 1)) as [UserRecord, UserRecord];
      const all = [owner, first, second, later];
      expect(await scim().pageUsers(owner.tenantId, { offset: 0, limit: 10 })).toEqual({
        total: 4,
        users: all,
      });
      expect(await scim().pageUsers(owner.tenantId, { offset: 1, limit: 2 })).toEqual({
        total: 4,
        users: [first, second],
      });
      expect(await scim().pageUsers(owner.tenantId, { offset: 4, limit: 2 })).toEqual({
        total: 4,
        users: [],
      });
      expect(await scim().pageUsers(owner.tenantId, { offset: 0, limit: 0 })).toEqual({
        total: 4,
        users: [],
      });
    });

    it(inAnotherTenant('neither lists nor counts this tenant users'), async () => {
      await withMembers(2);
      const other = await seedUser();
      expect(await scim().pageUsers(other.tenantId, { offset: 0, limit: 10 })).toEqual({
        total: 1,
        users: [other],
      });
    });
  });

  describe('scim.createGroup / findGroup', () => {
    it('stores a group and finds it as written', async () => {
      const owner = await seedUser();
      const group = groupOf(owner.tenantId, { displayName: 'Engineering' });
      await scim().createGroup(group);
      expect(await scim().findGroup(owner.tenantId, group.id)).toEqual(group);
      expect(await scim().findGroup(owner.tenantId, idAt(1))).toBeNull();
    });

    it(inAnotherTenant('finds nothing'), async () => {
      const owner = await seedUser();
      const other = await seedUser();
      const group = groupOf(owner.tenantId);
      await scim().createGroup(group);
      expect(await scim().findGroup(other.tenantId, group.id)).toBeNull();
    });
  });

  describe('scim.pageGroups', () => {
    it('pages groups oldest first (ties by id) with the total; displayName matches ignoring ASCII case', async () => {
      const owner = await seedUser();
      const tied = [
        groupOf(owner.tenantId, { displayName: 'Admins', createdAt: at(100) }),
        groupOf(owner.tenantId, { displayName: 'ADMINS', createdAt: at(100) }),
      ];
      const last = groupOf(owner.tenantId, { displayName: 'admins', createdAt: at(300) });
      const other = groupOf(owner.tenantId, { displayName: 'Staff', createdAt: at(200) });
      for (const group of [last, other, ...tied]) await scim().createGroup(group);
      const [a, b] = [...tied].sort((x, y) => (x.id < y.id ? -1 : 1)) as [ScimGroupRecord, ScimGroupRecord];
      expect(await scim().pageGroups(owner.tenantId, { offset: 0, limit: 10 })).toEqual({
        total: 4,
        groups: [a, b, other, last],
      });
      expect(
        await scim().pageGroups(owner.tenantId, { displayName: 'aDmInS', offset: 0, limit: 10 }),
      ).toEqual({
        total: 3,
        groups: [a, b, last],
      });
      expect(await scim().pageGroups(owner.tenantId, { displayName: 'admins', offset: 1, limit: 1 })).toEqual(
        {
          total: 3,
          groups: [b],
        },
      );
      expect(await scim().pageGroups(owner.tenantId, { displayName: 'Admin', offset: 0, limit: 10 })).toEqual(
        {
          total: 0,
          groups: [],
        },
      );
      expect(await scim().pageGroups(owner.tenantId, { offset: 0, limit: 0 })).toEqual({
        total: 4,
        groups: [],
      });
    });

    it(inAnotherTenant('neither lists nor counts this tenant groups'), async () => {
      const owner = await seedUser();
      const other = await seedUser();
      await scim().createGroup(groupOf(owner.tenantId, { displayName: 'Admins' }));
      expect(await scim().pageGroups(other.tenantId, { offset: 0, limit: 10 })).toEqual({
        total: 0,
        groups: [],
      });
      expect(
        await scim().pageGroups(other.tenantId, { displayName: 'Admins', offset: 0, limit: 10 }),
      ).toEqual({
        total: 0,
        groups: [],
      });
    });
  });

  describe('scim.updateGroup', () => {
    it('renames a group and sets updatedAt; false for no such group', async () => {
      const owner = await seedUser();
      const group = groupOf(owner.tenantId);
      await scim().createGroup(group);
      expect(
        await scim().updateGroup(owner.tenantId, group.id, { displayName: 'Ops', updatedAt: at(7000) }),
      ).toBe(true);
      expect(await scim().findGroup(owner.tenantId, group.id)).toEqual({
        ...group,
        displayName: 'Ops',
        updatedAt: at(7000),
      });
      expect(await scim().updateGroup(owner.tenantId, idAt(2), { displayName: 'X', updatedAt: at(1) })).toBe(
        false,
      );
    });

    it(inAnotherTenant('false, and the group stays as it was'), async () => {
      const owner = await seedUser();
      const other = await seedUser();
      const group = groupOf(owner.tenantId);
      await scim().createGroup(group);
      expect(
        await scim().updateGroup(other.tenantId, group.id, { displayName: 'Ops', updatedAt: at(7000) }),
      ).toBe(false);
      expect(await scim().findGroup(owner.tenantId, group.id)).toEqual(group);
    });
  });

  describe('scim.deleteGroup', () => {
    it('deletes a group with its memberships: true once, then false', async () => {
      const { owner, members } = await withMembers(1);
      const member = members[0] as UserRecord;
      const group = groupOf(owner.tenantId);
      const kept = groupOf(owner.tenantId);
      await scim().createGroup(group);
      await scim().createGroup(kept);
      await scim().setGroupMembers(owner.tenantId, group.id, [member.id]);
      await scim().setGroupMembers(owner.tenantId, kept.id, [member.id]);
      expect(await scim().deleteGroup(owner.tenantId, group.id)).toBe(true);
      expect(await scim().deleteGroup(owner.tenantId, group.id)).toBe(false);
      expect(await scim().findGroup(owner.tenantId, group.id)).toBeNull();
      expect(await scim().listGroupMembers(owner.tenantId, [group.id, kept.id])).toEqual([
        { groupId: kept.id, userId: member.id },
      ]);
      expect(await scim().groupsOfUsers(owner.tenantId, [member.id])).toEqual([
        { userId: member.id, group: kept },
      ]);
      expect(await stores().users.findById(owner.tenantId, member.id)).toEqual(member);
    });

    it(inAnotherTenant('false, and the group and its members stay'), async () => {
      const { owner, members } = await withMembers(1);
      const other = await seedUser();
      const member = members[0] as UserRecord;
      const group = groupOf(owner.tenantId);
      await scim().createGroup(group);
      await scim().setGroupMembers(owner.tenantId, group.id, [member.id]);
      expect(await scim().deleteGroup(other.tenantId, group.id)).toBe(false);
      expect(await scim().findGroup(owner.tenantId, group.id)).toEqual(group);
      expect(await scim().listGroupMembers(owner.tenantId, [group.id])).toEqual([
        { groupId: group.id, userId: member.id },
      ]);
    });
  });

  describe('scim.setGroupMembers / listGroupMembers', () => {
    it('replaces the members of a group; lists memberships by group, then user id', async () => {
      const { owner, members } = await withMembers(3);
      const [a, b, c] = members as [UserRecord, UserRecord, UserRecord];
      const [g1, g2] = [groupOf(owner.tenantId), groupOf(owner.tenantId)].sort((x, y) =>
        x.id < y.id ? -1 : 1,
      ) as [ScimGroupRecord, ScimGroupRecord];
      await scim().createGroup(g1);
      await scim().createGroup(g2);
      await scim().setGroupMembers(owner.tenantId, g1.id, [a.id, b.id]);
      await scim().setGroupMembers(owner.tenantId, g2.id, [c.id, a.id]);
      const byUser = (ids: string[]) => [...ids].sort();
      const expected = [
        ...byUser([a.id, b.id]).map((userId) => ({ groupId: g1.id, userId })),
        ...byUser([c.id, a.id]).map((userId) => ({ groupId: g2.id, userId })),
      ];
      expect(await scim().listGroupMembers(owner.tenantId, [g2.id, g1.id])).toEqual(expected);
      await scim().setGroupMembers(owner.tenantId, g1.id, [c.id]);
      expect(await scim().listGroupMembers(owner.tenantId, [g1.id])).toEqual([
        { groupId: g1.id, userId: c.id },
      ]);
      await scim().setGroupMembers(owner.tenantId, g1.id, []);
      expect(await scim().listGroupMembers(owner.tenantId, [g1.id])).toEqual([]);
      expect(await scim().listGroupMembers(owner.tenantId, [])).toEqual([]);
      expect(await scim().listGroupMembers(owner.tenantId, [g2.id])).toHaveLength(2);
    });

    it(inAnotherTenant('changes no member of this tenant group, and lists none'), async () => {
      const { owner, members } = await withMembers(1);
      const other = await seedUser();
      const member = members[0] as UserRecord;
      const group = groupOf(owner.tenantId);
      await scim().createGroup(group);
      await scim().setGroupMembers(owner.tenantId, group.id, [member.id]);
      // Refused or a no-op, as the store likes; never a change here.
      await settles(scim().setGroupMembers(other.tenantId, group.id, []));
      await settles(scim().setGroupMembers(other.tenantId, group.id, [other.id]));
      expect(await scim().listGroupMembers(other.tenantId, [group.id])).toEqual([]);
      expect(await scim().listGroupMembers(owner.tenantId, [group.id])).toEqual([
        { groupId: group.id, userId: member.id },
      ]);
    });
  });

  describe('scim.groupsOfUsers', () => {
    it('answers the groups of those users, by user, then group displayName', async () => {
      const { owner, members } = await withMembers(2);
      const [a, b] = members as [UserRecord, UserRecord];
      const zeta = groupOf(owner.tenantId, { displayName: 'Zeta' });
      const alpha = groupOf(owner.tenantId, { displayName: 'Alpha' });
      await scim().createGroup(zeta);
      await scim().createGroup(alpha);
      await scim().setGroupMembers(owner.tenantId, zeta.id, [a.id, b.id]);
      await scim().setGroupMembers(owner.tenantId, alpha.id, [a.id]);
      const [first, second] = [a, b].sort((x, y) => (x.id < y.id ? -1 : 1)) as [UserRecord, UserRecord];
      const groupsOf = (user: UserRecord) => (user === a ? [alpha, zeta] : [zeta]);
      expect(await scim().groupsOfUsers(owner.tenantId, [b.id, a.id, owner.id])).toEqual([
        ...groupsOf(first).map((group) => ({ userId: first.id, group })),
        ...groupsOf(second).map((group) => ({ userId: second.id, group })),
      ]);
      expect(await scim().groupsOfUsers(owner.tenantId, [owner.id])).toEqual([]);
      expect(await scim().groupsOfUsers(owner.tenantId, [])).toEqual([]);
    });

    it(inAnotherTenant('answers nothing'), async () => {
      const { owner, members } = await withMembers(1);
      const other = await seedUser();
      const member = members[0] as UserRecord;
      const group = groupOf(owner.tenantId);
      await scim().createGroup(group);
      await scim().setGroupMembers(owner.tenantId, group.id, [member.id]);
      expect(await scim().groupsOfUsers(other.tenantId, [member.id])).toEqual([]);
    });
  });

  describe('scim: users.delete and tenants.delete', () => {
    it('deleting a user deletes its profile and memberships, no one else', async () => {
      const { owner, members } = await withMembers(2);
      const [gone, kept] = members as [UserRecord, UserRecord];
      const goneProfile = profileOf(gone, { externalId: 'e-gone' });
      const keptProfile = profileOf(kept);
      await scim().saveProfile(goneProfile);
      await scim().saveProfile(keptProfile);
      const group = groupOf(owner.tenantId);
      await scim().createGroup(group);
      await scim().setGroupMembers(owner.tenantId, group.id, [gone.id, kept.id]);
      expect(await stores().users.delete(owner.tenantId, gone.id)).toBe(true);
      expect(await scim().findProfiles(owner.tenantId, [gone.id, kept.id])).toEqual([keptProfile]);
      expect(await scim().findUserIdsByExternalId(owner.tenantId, 'e-gone')).toEqual([]);
      expect(await scim().listManagedUserIds(owner.tenantId)).toEqual([kept.id]);
      expect(await scim().listGroupMembers(owner.tenantId, [group.id])).toEqual([
        { groupId: group.id, userId: kept.id },
      ]);
      expect(await scim().findGroup(owner.tenantId, group.id)).toEqual(group);
    });

    it('deleting a tenant deletes its token, mapping, profiles and groups; another tenant keeps its own', async () => {
      const { owner, members } = await withMembers(1);
      const member = members[0] as UserRecord;
      const other = await seedUser();
      const token = tokenOf(owner.tenantId);
      const othersToken = tokenOf(other.tenantId);
      await scim().saveToken(token);
      await scim().saveToken(othersToken);
      await scim().setGroupRoles(owner.tenantId, [{ group: 'Admins', role: 'admin' }]);
      await scim().setGroupRoles(other.tenantId, [{ group: 'Staff', role: 'member' }]);
      await scim().saveProfile(profileOf(member));
      const othersProfile = profileOf(other);
      await scim().saveProfile(othersProfile);
      const group = groupOf(owner.tenantId);
      const othersGroup = groupOf(other.tenantId);
      await scim().createGroup(group);
      await scim().createGroup(othersGroup);
      await scim().setGroupMembers(owner.tenantId, group.id, [member.id]);
      await scim().setGroupMembers(other.tenantId, othersGroup.id, [other.id]);

      expect(await stores().tenants.delete(owner.tenantId)).toBe(true);
      expect(await scim().findTokenByHash(token.tokenHash)).toBeNull();
      expect(await scim().findToken(owner.tenantId)).toBeNull();
      expect(await scim().getGroupRoles(owner.tenantId)).toEqual([]);
      expect(await scim().findProfiles(owner.tenantId, [member.id])).toEqual([]);
      expect(await scim().findGroup(owner.tenantId, group.id)).toBeNull();
      expect(await scim().listGroupMembers(owner.tenantId, [group.id])).toEqual([]);

      expect(await scim().findToken(other.tenantId)).toEqual(othersToken);
      expect(await scim().getGroupRoles(other.tenantId)).toEqual([{ group: 'Staff', role: 'member' }]);
      expect(await scim().findProfiles(other.tenantId, [other.id])).toEqual([othersProfile]);
      expect(await scim().findGroup(other.tenantId, othersGroup.id)).toEqual(othersGroup);
      expect(await scim().listGroupMembers(other.tenantId, [othersGroup.id])).toEqual([
        { groupId: othersGroup.id, userId: other.id },
      ]);
    });

    it('a transaction that fails writes nothing of SCIM', async () => {
      const { owner, members } = await withMembers(1);
      const member = members[0] as UserRecord;
      const group = groupOf(owner.tenantId);
      await expect(
        stores().transaction(async (tx) => {
          await tx.scim?.saveToken(tokenOf(owner.tenantId));
          await tx.scim?.createGroup(group);
          await tx.scim?.setGroupMembers(owner.tenantId, group.id, [member.id]);
          await tx.scim?.saveProfile(profileOf(member));
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect(await scim().findToken(owner.tenantId)).toBeNull();
      expect(await scim().findGroup(owner.tenantId, group.id)).toBeNull();
      expect(await scim().findProfiles(owner.tenantId, [member.id])).toEqual([]);
    });
  });
}
