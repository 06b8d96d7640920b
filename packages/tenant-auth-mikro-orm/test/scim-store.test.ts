import { randomBytes, randomUUID } from 'node:crypto';
import type { MikroORM as CoreMikroORM } from '@mikro-orm/core';
import { MikroORM as PostgresMikroORM } from '@mikro-orm/postgresql';
import type { ScimGroupRecord, ScimProfileRecord, ScimStore, UserRecord } from 'tenant-auth-core/store-kit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMikroOrmStores } from '../src/create-mikro-orm-stores.js';
import { runTenantAuthMigrations } from '../src/run-tenant-auth-migrations.js';
import {
  countRows,
  createTenantWithOwner,
  createTestPostgres,
  openPglite,
  openPostgres,
  TEST_DATABASE_URL,
  truncateTenantAuth,
} from './support/databases.js';

// What the SQL of SqlScimStore decides beyond the port's conformance suite: scoping by tenant in every
// statement (another tenant's ids read and write nothing), the foreign keys that take a profile and
// memberships with their user and everything with its tenant, transactions, and text the SQL must not
// misread (names with commas, quotes and braces; case folding of ASCII only).

const T0 = new Date('2026-01-01T00:00:00.000Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);
const hash = (c: string) => c.repeat(64);

type Stores = ReturnType<typeof createMikroOrmStores>;

function scimOf(stores: Stores): ScimStore {
  if (!stores.scim) throw new Error('the bundle has no scim store');
  return stores.scim;
}

async function tenantWithOwner(stores: Stores, slug: string): Promise<UserRecord> {
  const tenantId = randomUUID();
  const { user } = await createTenantWithOwner(stores, {
    tenant: { id: tenantId, slug, name: slug, createdAt: T0, requireMfa: false },
    user: {
      id: randomUUID(),
      tenantId,
      email: `owner@${slug}.example`,
      passwordHash: 'x',
      role: 'owner',
      emailVerified: true,
      createdAt: T0,
    },
  });
  return user;
}

async function memberOf(
  stores: Stores,
  owner: UserRecord,
  name: string,
  minutes: number,
): Promise<UserRecord> {
  const user: UserRecord = {
    id: randomUUID(),
    tenantId: owner.tenantId,
    email: `${name}@${owner.email.split('@')[1]}`,
    passwordHash: 'x',
    role: 'member',
    emailVerified: true,
    createdAt: at(minutes),
  };
  await stores.users.create(user);
  return user;
}

const profileOf = (user: UserRecord, change: Partial<ScimProfileRecord> = {}): ScimProfileRecord => ({
  tenantId: user.tenantId,
  userId: user.id,
  externalId: `ext-${user.email}`,
  givenName: 'Ada',
  familyName: 'Lovelace',
  formattedName: 'Ada Lovelace',
  displayName: 'Ada',
  managed: true,
  updatedAt: T0,
  ...change,
});

const groupOf = (tenantId: string, displayName: string, minutes: number): ScimGroupRecord => ({
  id: randomUUID(),
  tenantId,
  displayName,
  createdAt: at(minutes),
  updatedAt: at(minutes),
});

function scimStoreContract(open: () => Promise<{ orm: CoreMikroORM; close: () => Promise<void> }>) {
  let orm: CoreMikroORM;
  let close: () => Promise<void>;
  let stores: Stores;
  let scim: ScimStore;
  let a: UserRecord;
  let b: UserRecord;

  beforeAll(async () => {
    ({ orm, close } = await open());
    await runTenantAuthMigrations(orm);
  });
  afterAll(async () => {
    await close?.();
  });
  beforeEach(async () => {
    await truncateTenantAuth(orm);
    stores = createMikroOrmStores(orm);
    scim = scimOf(stores);
    a = await tenantWithOwner(stores, 'alpha');
    b = await tenantWithOwner(stores, 'beta');
  });

  it("keeps one token per tenant, found by its hash; another tenant's calls neither read nor change it", async () => {
    await scim.saveToken({ tenantId: a.tenantId, tokenHash: hash('a'), createdAt: T0, lastUsedAt: null });
    await scim.saveToken({ tenantId: a.tenantId, tokenHash: hash('b'), createdAt: at(1), lastUsedAt: null });
    expect(await scim.findTokenByHash(hash('a'))).toBeNull();
    const current = { tenantId: a.tenantId, tokenHash: hash('b'), createdAt: at(1), lastUsedAt: null };
    expect(await scim.findTokenByHash(hash('b'))).toEqual(current);
    expect(await scim.findToken(a.tenantId)).toEqual(current);
    expect(await countRows(orm, 'tenant_auth_scim_token')).toBe(1);

    // A replaced token's hash is not touched; the current one is.
    await scim.touchToken(a.tenantId, hash('a'), at(2));
    expect((await scim.findToken(a.tenantId))?.lastUsedAt).toBeNull();
    await scim.touchToken(b.tenantId, hash('b'), at(2));
    expect((await scim.findToken(a.tenantId))?.lastUsedAt).toBeNull();
    await scim.touchToken(a.tenantId, hash('b'), at(3));
    expect((await scim.findToken(a.tenantId))?.lastUsedAt).toEqual(at(3));

    expect(await scim.findToken(b.tenantId)).toBeNull();
    expect(await scim.deleteToken(b.tenantId)).toBe(false);
    expect(await scim.findToken('not-a-uuid')).toBeNull();
    expect(await scim.deleteToken(a.tenantId)).toBe(true);
    expect(await scim.deleteToken(a.tenantId)).toBe(false);
    expect(await scim.findTokenByHash(hash('b'))).toBeNull();
  });

  it('keeps a mapping in its order, any text in group names, and replaces it whole, per tenant', async () => {
    const mapping = [
      { group: 'Admins, "EU" {all}', role: 'admin' as const },
      { group: "O'Brien's \\ team", role: 'member' as const },
      { group: 'Émigrés', role: 'admin' as const },
    ];
    await scim.setGroupRoles(a.tenantId, mapping);
    await scim.setGroupRoles(b.tenantId, [{ group: 'Other', role: 'member' }]);
    expect(await scim.getGroupRoles(a.tenantId)).toEqual(mapping);
    await scim.setGroupRoles(a.tenantId, [mapping[2]!, mapping[0]!]);
    expect(await scim.getGroupRoles(a.tenantId)).toEqual([mapping[2], mapping[0]]);
    await scim.setGroupRoles(a.tenantId, []);
    expect(await scim.getGroupRoles(a.tenantId)).toEqual([]);
    expect(await scim.getGroupRoles(b.tenantId)).toEqual([{ group: 'Other', role: 'member' }]);
    // The check constraint: never owner.
    await expect(
      scim.setGroupRoles(a.tenantId, [{ group: 'Owners', role: 'owner' as 'admin' }]),
    ).rejects.toMatchObject({ name: 'TenantAuthError' });
    expect(await scim.getGroupRoles(a.tenantId)).toEqual([]);
  });

  it("writes a profile only for a user of its tenant, and reads only the tenant's", async () => {
    const ada = await memberOf(stores, a, 'ada', 1);
    await scim.saveProfile(profileOf(ada));
    await scim.saveProfile(profileOf(ada, { externalId: 'e-2', managed: false, updatedAt: at(5) }));
    expect(await scim.findProfiles(a.tenantId, [ada.id, a.id, 'nope'])).toEqual([
      profileOf(ada, { externalId: 'e-2', managed: false, updatedAt: at(5) }),
    ]);
    // Another tenant's id for the user: refused, nothing written, nothing read.
    await expect(
      scim.saveProfile(profileOf(ada, { tenantId: b.tenantId, externalId: 'hijack' })),
    ).rejects.toThrow();
    await expect(scim.saveProfile(profileOf(ada, { userId: 'not-a-uuid' }))).rejects.toThrow();
    expect(await scim.findProfiles(b.tenantId, [ada.id])).toEqual([]);
    expect(await scim.findUserIdsByExternalId(b.tenantId, 'hijack')).toEqual([]);
    expect((await scim.findProfiles(a.tenantId, [ada.id]))[0]?.externalId).toBe('e-2');
    expect(await countRows(orm, 'tenant_auth_scim_profile')).toBe(1);
  });

  it('finds users by externalId oldest first, lists the managed ones, and pages the users', async () => {
    const later = await memberOf(stores, a, 'later', 10);
    const earlier = await memberOf(stores, a, 'earlier', 5);
    const other = await memberOf(stores, b, 'other', 1);
    await scim.saveProfile(profileOf(later, { externalId: 'dup' }));
    await scim.saveProfile(profileOf(earlier, { externalId: 'dup', managed: false }));
    await scim.saveProfile(profileOf(other, { externalId: 'dup' }));
    expect(await scim.findUserIdsByExternalId(a.tenantId, 'dup')).toEqual([earlier.id, later.id]);
    expect(await scim.findUserIdsByExternalId(a.tenantId, 'DUP')).toEqual([]);
    expect(await scim.listManagedUserIds(a.tenantId)).toEqual([later.id]);

    expect(await scim.pageUsers(a.tenantId, { offset: 0, limit: 10 })).toEqual({
      total: 3,
      users: [a, earlier, later].map((u) => ({ ...u })),
    });
    expect(await scim.pageUsers(a.tenantId, { offset: 1, limit: 1 })).toEqual({ total: 3, users: [earlier] });
    expect(await scim.pageUsers(a.tenantId, { offset: 0, limit: 0 })).toEqual({ total: 3, users: [] });
    expect(await scim.pageUsers(a.tenantId, { offset: 5, limit: 10 })).toEqual({ total: 3, users: [] });
    expect(await scim.pageUsers('not-a-uuid', { offset: 0, limit: 10 })).toEqual({ total: 0, users: [] });
  });

  it('pages groups, filtering displayName ignoring ASCII case only', async () => {
    const eng = groupOf(a.tenantId, 'Engineering', 1);
    const eng2 = groupOf(a.tenantId, 'ENGINEERING', 2);
    const accent = groupOf(a.tenantId, 'émigrés', 3);
    const elsewhere = groupOf(b.tenantId, 'engineering', 0);
    for (const g of [eng, eng2, accent, elsewhere]) await scim.createGroup(g);
    expect(await scim.pageGroups(a.tenantId, { offset: 0, limit: 10 })).toEqual({
      total: 3,
      groups: [eng, eng2, accent],
    });
    expect(await scim.pageGroups(a.tenantId, { displayName: 'engineering', offset: 1, limit: 5 })).toEqual({
      total: 2,
      groups: [eng2],
    });
    expect(await scim.pageGroups(a.tenantId, { displayName: 'ÉMIGRÉS', offset: 0, limit: 5 })).toEqual({
      total: 0,
      groups: [],
    });
    expect(await scim.pageGroups(a.tenantId, { displayName: 'éMIGRéS', offset: 0, limit: 5 })).toEqual({
      total: 1,
      groups: [accent],
    });
  });

  it("changes, fills and deletes only the tenant's groups, with only the tenant's users", async () => {
    const ada = await memberOf(stores, a, 'ada', 1);
    const bob = await memberOf(stores, a, 'bob', 2);
    const eve = await memberOf(stores, b, 'eve', 1);
    const group = groupOf(a.tenantId, 'Staff', 1);
    const theirs = groupOf(b.tenantId, 'Theirs', 1);
    await scim.createGroup(group);
    await scim.createGroup(theirs);

    expect(await scim.findGroup(b.tenantId, group.id)).toBeNull();
    expect(await scim.updateGroup(b.tenantId, group.id, { displayName: 'x', updatedAt: at(9) })).toBe(false);
    expect(await scim.updateGroup(a.tenantId, group.id, { displayName: 'Team', updatedAt: at(9) })).toBe(
      true,
    );
    expect(await scim.findGroup(a.tenantId, group.id)).toEqual({
      ...group,
      displayName: 'Team',
      updatedAt: at(9),
    });

    await scim.setGroupMembers(a.tenantId, group.id, [ada.id, bob.id]);
    const sorted = [ada.id, bob.id].sort();
    const both = sorted.map((userId) => ({ groupId: group.id, userId }));
    expect(await scim.listGroupMembers(a.tenantId, [group.id, theirs.id])).toEqual(both);
    // Another tenant's user, an id of no user, another tenant's group: refused, and nothing changed (the
    // delete that came first is undone).
    await expect(scim.setGroupMembers(a.tenantId, group.id, [bob.id, eve.id])).rejects.toThrow();
    await expect(scim.setGroupMembers(a.tenantId, group.id, [bob.id, 'junk'])).rejects.toThrow();
    await expect(scim.setGroupMembers(a.tenantId, theirs.id, [ada.id])).rejects.toThrow();
    await expect(scim.setGroupMembers(b.tenantId, group.id, [eve.id])).rejects.toThrow();
    await expect(scim.setGroupMembers(b.tenantId, group.id, [])).rejects.toThrow();
    expect(await scim.listGroupMembers(a.tenantId, [group.id, theirs.id])).toEqual(both);
    expect(await scim.listGroupMembers(b.tenantId, [group.id, theirs.id])).toEqual([]);
    expect(await countRows(orm, 'tenant_auth_scim_group_member')).toBe(2);
    await scim.setGroupMembers(a.tenantId, group.id, [bob.id]);
    expect(await scim.listGroupMembers(a.tenantId, [group.id])).toEqual([
      { groupId: group.id, userId: bob.id },
    ]);

    expect(await scim.deleteGroup(b.tenantId, group.id)).toBe(false);
    expect(await scim.deleteGroup(a.tenantId, group.id)).toBe(true);
    expect(await scim.deleteGroup(a.tenantId, group.id)).toBe(false);
    expect(await countRows(orm, 'tenant_auth_scim_group_member')).toBe(0);
  });

  it('lists the groups of users by user, then displayName in code point order', async () => {
    const ada = await memberOf(stores, a, 'ada', 1);
    const bob = await memberOf(stores, a, 'bob', 2);
    const groups = ['beta', 'Alpha', 'Zulu', 'émigrés'].map((name, i) => groupOf(a.tenantId, name, i));
    for (const g of groups) {
      await scim.createGroup(g);
      await scim.setGroupMembers(a.tenantId, g.id, [ada.id, bob.id]);
    }
    const byName = [...groups].sort((x, y) => (x.displayName < y.displayName ? -1 : 1));
    expect(byName.map((g) => g.displayName)).toEqual(['Alpha', 'Zulu', 'beta', 'émigrés']);
    const [first, second] = [ada.id, bob.id].sort();
    expect(await scim.groupsOfUsers(a.tenantId, [bob.id, ada.id])).toEqual([
      ...byName.map((group) => ({ userId: first, group })),
      ...byName.map((group) => ({ userId: second, group })),
    ]);
    expect(await scim.groupsOfUsers(b.tenantId, [ada.id])).toEqual([]);
  });

  it("deleting a user takes its profile and memberships; deleting the tenant takes all of SCIM's rows", async () => {
    const ada = await memberOf(stores, a, 'ada', 1);
    const group = groupOf(a.tenantId, 'Staff', 1);
    await scim.createGroup(group);
    await scim.setGroupMembers(a.tenantId, group.id, [ada.id, a.id]);
    await scim.saveProfile(profileOf(ada));
    await scim.saveToken({ tenantId: a.tenantId, tokenHash: hash('c'), createdAt: T0, lastUsedAt: null });
    await scim.setGroupRoles(a.tenantId, [{ group: 'Staff', role: 'admin' }]);

    expect(await stores.users.delete(a.tenantId, ada.id)).toBe(true);
    expect(await scim.findProfiles(a.tenantId, [ada.id])).toEqual([]);
    expect(await scim.listGroupMembers(a.tenantId, [group.id])).toEqual([
      { groupId: group.id, userId: a.id },
    ]);

    expect(await stores.tenants.delete(a.tenantId)).toBe(true);
    for (const table of ['token', 'group_role', 'profile', 'group', 'group_member']) {
      expect(await countRows(orm, `tenant_auth_scim_${table}`)).toBe(0);
    }
  });

  it('runs in the transaction of tx.scim: a rollback leaves nothing', async () => {
    const group = groupOf(a.tenantId, 'Staff', 1);
    await expect(
      stores.transaction(async (tx) => {
        await tx.tenants.lock(a.tenantId);
        await tx.scim?.createGroup(group);
        await tx.scim?.setGroupMembers(a.tenantId, group.id, [a.id]);
        await tx.scim?.setGroupRoles(a.tenantId, [{ group: 'Staff', role: 'admin' }]);
        expect(await tx.scim?.listGroupMembers(a.tenantId, [group.id])).toHaveLength(1);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await scim.findGroup(a.tenantId, group.id)).toBeNull();
    expect(await scim.getGroupRoles(a.tenantId)).toEqual([]);
    await stores.transaction(async (tx) => {
      await tx.scim?.createGroup(group);
      await tx.scim?.setGroupMembers(a.tenantId, group.id, [a.id]);
    });
    expect(await scim.listGroupMembers(a.tenantId, [group.id])).toEqual([
      { groupId: group.id, userId: a.id },
    ]);
  });
}

describe('SqlScimStore on PGlite', () => {
  scimStoreContract(async () => {
    const orm = await openPglite();
    return { orm, close: () => orm.close(true) };
  });
});

describe.skipIf(!TEST_DATABASE_URL)('SqlScimStore on PostgreSQL', () => {
  scimStoreContract(async () => {
    const db = await createTestPostgres();
    return { orm: db.orm, close: () => db.drop() };
  });
});

// Many databases sort and fold case by a language's rules (en_US.UTF-8, ICU): there 'beta' sorts before
// 'Zulu', and lower('É') is 'é'. The store's order and `displayName eq` must not change with them.
describe.skipIf(!TEST_DATABASE_URL)('SqlScimStore on PostgreSQL with an ICU "en" collation', () => {
  scimStoreContract(async () => {
    const admin = await PostgresMikroORM.init({
      entities: [],
      clientUrl: TEST_DATABASE_URL,
      discovery: { warnWhenNoEntities: false },
    });
    const dbName = `tenant_auth_test_${randomBytes(6).toString('hex')}`;
    await admin.em
      .getConnection()
      .execute(
        `create database "${dbName}" template template0 locale_provider icu icu_locale 'en' locale 'C.UTF-8'`,
        [],
        'run',
      );
    const url = new URL(TEST_DATABASE_URL ?? '');
    url.pathname = `/${dbName}`;
    const orm = await openPostgres(url.toString(), 4);
    return {
      orm,
      close: async () => {
        await orm.close(true);
        await admin.em.getConnection().execute(`drop database if exists "${dbName}" with (force)`, [], 'run');
        await admin.close(true);
      },
    };
  });
});
