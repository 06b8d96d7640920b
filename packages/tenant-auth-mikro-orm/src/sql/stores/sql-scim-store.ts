import { isUuid } from 'tenant-auth-core';
import type {
  ScimGroupRecord,
  ScimProfileRecord,
  ScimStore,
  ScimTokenRecord,
} from 'tenant-auth-core/store-kit';
import { dateOrNull, toUser, USER_COLUMNS, type UserRow } from '../rows.js';
import type { SqlDriver } from '../sql-driver.js';
import { isoOrNull, uuidArray } from '../statements.js';
import { guarded } from '../store-errors.js';
import { tableOf } from '../tables.js';

type Timestamp = Date | string;

interface TokenRow {
  tenantId: string;
  tokenHash: string;
  createdAt: Timestamp;
  lastUsedAt: Timestamp | null;
}

const TOKEN_COLUMNS = `tenant_id as "tenantId", token_hash as "tokenHash", created_at as "createdAt",
  last_used_at as "lastUsedAt"`;

const toToken = (row: TokenRow): ScimTokenRecord => ({
  tenantId: row.tenantId,
  // char(64): a driver may pad; a SHA-256 in hex is 64 characters anyway.
  tokenHash: row.tokenHash.trim(),
  createdAt: new Date(row.createdAt),
  lastUsedAt: dateOrNull(row.lastUsedAt),
});

interface ProfileRow {
  tenantId: string;
  userId: string;
  externalId: string | null;
  givenName: string | null;
  familyName: string | null;
  formattedName: string | null;
  displayName: string | null;
  managed: boolean;
  updatedAt: Timestamp;
}

const PROFILE_COLUMNS = `tenant_id as "tenantId", user_id as "userId", external_id as "externalId",
  given_name as "givenName", family_name as "familyName", formatted_name as "formattedName",
  display_name as "displayName", managed, updated_at as "updatedAt"`;

const toProfile = (row: ProfileRow): ScimProfileRecord => ({
  tenantId: row.tenantId,
  userId: row.userId,
  externalId: row.externalId ?? null,
  givenName: row.givenName ?? null,
  familyName: row.familyName ?? null,
  formattedName: row.formattedName ?? null,
  displayName: row.displayName ?? null,
  managed: row.managed,
  updatedAt: new Date(row.updatedAt),
});

interface GroupRow {
  id: string;
  tenantId: string;
  displayName: string;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/** The columns of `tenant_auth_scim_group` (aliased `g`), named as {@link GroupRow} names them. */
const GROUP_COLUMNS = `g.id, g.tenant_id as "tenantId", g.display_name as "displayName", g.created_at as "createdAt",
  g.updated_at as "updatedAt"`;

const toGroup = (row: GroupRow): ScimGroupRecord => ({
  id: row.id,
  tenantId: row.tenantId,
  displayName: row.displayName,
  createdAt: new Date(row.createdAt),
  updatedAt: new Date(row.updatedAt),
});

/** Refuses an offset or limit that is not a non-negative integer (a SCIM `count` may be 0). */
function checkPage(page: { offset: number; limit: number }): void {
  for (const [name, value] of Object.entries({ offset: page.offset, limit: page.limit })) {
    if (!Number.isInteger(value) || value < 0) throw new TypeError(`${name} must be a non-negative integer`);
  }
}

/**
 * @internal `ScimStore` in SQL. Every statement that takes a tenant has it in its `WHERE` (a membership or
 * profile is written only through a join with the tenant's user and group, so another tenant's ids write
 * nothing, and such a call is refused, as the memory store refuses it); the profile and memberships of a user go with it (foreign keys, `on delete cascade`), as
 * everything goes with its tenant. Replacing a mapping or a group's members is a delete and an insert in one
 * transaction (the caller's, when it runs in one). `displayName eq` compares `lower(display_name collate
 * "C")`: ASCII case only, through its index; groups of a user are ordered by `displayName` in the "C"
 * collation (code points), whatever the database's.
 */
export function sqlScimStore(driver: SqlDriver): ScimStore {
  const tokens = (d: SqlDriver = driver) => tableOf(d, 'tenant_auth_scim_token');
  const groupRoles = (d: SqlDriver = driver) => tableOf(d, 'tenant_auth_scim_group_role');
  const profiles = () => tableOf(driver, 'tenant_auth_scim_profile');
  const groups = () => tableOf(driver, 'tenant_auth_scim_group');
  const members = (d: SqlDriver = driver) => tableOf(d, 'tenant_auth_scim_group_member');
  const users = (d: SqlDriver = driver) => tableOf(d, 'tenant_auth_user');
  return {
    saveToken: (token) =>
      guarded(async () => {
        await driver.execute(
          `insert into ${tokens()} (tenant_id, token_hash, created_at, last_used_at)
values (?, ?, ?::timestamptz, ?::timestamptz)
on conflict (tenant_id) do update set token_hash = excluded.token_hash, created_at = excluded.created_at,
  last_used_at = excluded.last_used_at`,
          [token.tenantId, token.tokenHash, token.createdAt.toISOString(), isoOrNull(token.lastUsedAt)],
        );
      }),
    findToken: (tenantId) =>
      guarded(async () => {
        if (!isUuid(tenantId)) return null;
        const [row] = await driver.rows<TokenRow>(
          `select ${TOKEN_COLUMNS} from ${tokens()} where tenant_id = ?`,
          [tenantId],
        );
        return row ? toToken(row) : null;
      }),
    findTokenByHash: (tokenHash) =>
      guarded(async () => {
        const [row] = await driver.rows<TokenRow>(
          `select ${TOKEN_COLUMNS} from ${tokens()} where token_hash = ?`,
          [tokenHash],
        );
        return row ? toToken(row) : null;
      }),
    deleteToken: (tenantId) =>
      guarded(async () => {
        if (!isUuid(tenantId)) return false;
        return (await driver.execute(`delete from ${tokens()} where tenant_id = ?`, [tenantId])) > 0;
      }),
    touchToken: (tenantId, tokenHash, at) =>
      guarded(async () => {
        if (!isUuid(tenantId)) return;
        await driver.execute(
          `update ${tokens()} set last_used_at = ?::timestamptz where tenant_id = ? and token_hash = ?`,
          [at.toISOString(), tenantId, tokenHash],
        );
      }),

    getGroupRoles: (tenantId) =>
      guarded(async () => {
        if (!isUuid(tenantId)) return [];
        const rows = await driver.rows<{ group: string; role: 'admin' | 'member' }>(
          `select group_name as "group", role from ${groupRoles()} where tenant_id = ? order by position`,
          [tenantId],
        );
        return rows.map((row) => ({ group: row.group, role: row.role }));
      }),
    setGroupRoles: (tenantId, mapping) =>
      guarded(async () => {
        if (!isUuid(tenantId)) return;
        await driver.transaction(async (tx) => {
          await tx.execute(`delete from ${groupRoles(tx)} where tenant_id = ?`, [tenantId]);
          if (mapping.length === 0) return;
          // One row per line, numbered in order; the names travel as JSON (any text, no array quoting).
          await tx.execute(
            `insert into ${groupRoles(tx)} (tenant_id, position, group_name, role)
select ?, (line.n - 1)::int, line.value ->> 'group', line.value ->> 'role'
from jsonb_array_elements(?::jsonb) with ordinality as line(value, n)`,
            [tenantId, JSON.stringify(mapping.map(({ group, role }) => ({ group, role })))],
          );
        });
      }),

    saveProfile: (profile) =>
      guarded(async () => {
        if (!isUuid(profile.tenantId) || !isUuid(profile.userId)) throw new TypeError('unknown user');
        // Only for a user of that tenant: the row comes from the user's (none: refused, as core never asks it).
        const written = await driver.execute(
          `insert into ${profiles()} (user_id, tenant_id, external_id, given_name, family_name, formatted_name,
  display_name, managed, updated_at)
select u.id, u.tenant_id, ?, ?, ?, ?, ?, ?, ?::timestamptz from ${users()} u where u.id = ? and u.tenant_id = ?
on conflict (user_id) do update set external_id = excluded.external_id, given_name = excluded.given_name,
  family_name = excluded.family_name, formatted_name = excluded.formatted_name,
  display_name = excluded.display_name, managed = excluded.managed, updated_at = excluded.updated_at`,
          [
            profile.externalId,
            profile.givenName,
            profile.familyName,
            profile.formattedName,
            profile.displayName,
            profile.managed,
            profile.updatedAt.toISOString(),
            profile.userId,
            profile.tenantId,
          ],
        );
        if (written === 0) throw new TypeError('unknown user');
      }),
    findProfiles: (tenantId, userIds) =>
      guarded(async () => {
        if (!isUuid(tenantId) || !userIds.some(isUuid)) return [];
        const rows = await driver.rows<ProfileRow>(
          `select ${PROFILE_COLUMNS} from ${profiles()} where tenant_id = ? and user_id = any(?::uuid[])`,
          [tenantId, uuidArray(userIds)],
        );
        return rows.map(toProfile);
      }),
    findUserIdsByExternalId: (tenantId, externalId) =>
      guarded(async () => {
        if (!isUuid(tenantId)) return [];
        const rows = await driver.rows<{ id: string }>(
          `select u.id from ${profiles()} p join ${users()} u on u.id = p.user_id and u.tenant_id = p.tenant_id
where p.tenant_id = ? and p.external_id = ? order by u.created_at, u.id`,
          [tenantId, externalId],
        );
        return rows.map((row) => row.id);
      }),
    listManagedUserIds: (tenantId) =>
      guarded(async () => {
        if (!isUuid(tenantId)) return [];
        const rows = await driver.rows<{ userId: string }>(
          `select user_id as "userId" from ${profiles()} where tenant_id = ? and managed`,
          [tenantId],
        );
        return rows.map((row) => row.userId);
      }),
    pageUsers: (tenantId, page) =>
      guarded(async () => {
        checkPage(page);
        if (!isUuid(tenantId)) return { total: 0, users: [] };
        const [count] = await driver.rows<{ total: number | string }>(
          `select count(*) as total from ${users()} where tenant_id = ?`,
          [tenantId],
        );
        const rows =
          page.limit === 0
            ? []
            : await driver.rows<UserRow>(
                `select ${USER_COLUMNS} from ${users()} where tenant_id = ? order by created_at, id limit ? offset ?`,
                [tenantId, page.limit, page.offset],
              );
        return { total: Number(count?.total ?? 0), users: rows.map(toUser) };
      }),

    createGroup: (group) =>
      guarded(async () => {
        await driver.execute(
          `insert into ${groups()} (id, tenant_id, display_name, created_at, updated_at)
values (?, ?, ?, ?::timestamptz, ?::timestamptz)`,
          [
            group.id,
            group.tenantId,
            group.displayName,
            group.createdAt.toISOString(),
            group.updatedAt.toISOString(),
          ],
        );
      }),
    findGroup: (tenantId, groupId) =>
      guarded(async () => {
        if (!isUuid(tenantId) || !isUuid(groupId)) return null;
        const [row] = await driver.rows<GroupRow>(
          `select ${GROUP_COLUMNS} from ${groups()} g where g.tenant_id = ? and g.id = ?`,
          [tenantId, groupId],
        );
        return row ? toGroup(row) : null;
      }),
    pageGroups: (tenantId, query) =>
      guarded(async () => {
        checkPage(query);
        if (!isUuid(tenantId)) return { total: 0, groups: [] };
        const named = query.displayName !== undefined;
        const where = `g.tenant_id = ?${named ? ` and lower(g.display_name collate "C") = lower(? collate "C")` : ''}`;
        const params = named ? [tenantId, query.displayName] : [tenantId];
        const [count] = await driver.rows<{ total: number | string }>(
          `select count(*) as total from ${groups()} g where ${where}`,
          params,
        );
        const rows =
          query.limit === 0
            ? []
            : await driver.rows<GroupRow>(
                `select ${GROUP_COLUMNS} from ${groups()} g where ${where} order by g.created_at, g.id limit ? offset ?`,
                [...params, query.limit, query.offset],
              );
        return { total: Number(count?.total ?? 0), groups: rows.map(toGroup) };
      }),
    updateGroup: (tenantId, groupId, change) =>
      guarded(async () => {
        if (!isUuid(tenantId) || !isUuid(groupId)) return false;
        const changed = await driver.execute(
          `update ${groups()} set display_name = ?, updated_at = ?::timestamptz where tenant_id = ? and id = ?`,
          [change.displayName, change.updatedAt.toISOString(), tenantId, groupId],
        );
        return changed > 0;
      }),
    deleteGroup: (tenantId, groupId) =>
      guarded(async () => {
        if (!isUuid(tenantId) || !isUuid(groupId)) return false;
        // Its memberships go with it (on delete cascade).
        return (
          (await driver.execute(`delete from ${groups()} where tenant_id = ? and id = ?`, [
            tenantId,
            groupId,
          ])) > 0
        );
      }),
    setGroupMembers: (tenantId, groupId, userIds) =>
      guarded(async () => {
        if (!isUuid(tenantId) || !isUuid(groupId)) throw new TypeError('unknown group');
        const wanted = [...new Set(userIds)];
        await driver.transaction(async (tx) => {
          // Another tenant's group or user (which core refuses first) is refused here too, before any change.
          const [found] = await tx.rows<{ groups: number | string; users: number | string }>(
            `select (select count(*) from ${tableOf(tx, 'tenant_auth_scim_group')} where tenant_id = ? and id = ?) as groups,
  (select count(*) from ${users(tx)} where tenant_id = ? and id = any(?::uuid[])) as users`,
            [tenantId, groupId, tenantId, uuidArray(wanted)],
          );
          if (Number(found?.groups) !== 1) throw new TypeError('unknown group');
          if (Number(found?.users) !== wanted.length) throw new TypeError('unknown user');
          await tx.execute(`delete from ${members(tx)} where tenant_id = ? and group_id = ?`, [
            tenantId,
            groupId,
          ]);
          if (wanted.length === 0) return;
          // The rows come from a join of the tenant's group and users: nothing of another tenant's.
          await tx.execute(
            `insert into ${members(tx)} (group_id, user_id, tenant_id)
select g.id, u.id, g.tenant_id from ${tableOf(tx, 'tenant_auth_scim_group')} g
join ${users(tx)} u on u.tenant_id = g.tenant_id
where g.tenant_id = ? and g.id = ? and u.id = any(?::uuid[])
on conflict do nothing`,
            [tenantId, groupId, uuidArray(wanted)],
          );
        });
      }),
    listGroupMembers: (tenantId, groupIds) =>
      guarded(async () => {
        if (!isUuid(tenantId) || !groupIds.some(isUuid)) return [];
        return driver.rows<{ groupId: string; userId: string }>(
          `select group_id as "groupId", user_id as "userId" from ${members()}
where tenant_id = ? and group_id = any(?::uuid[]) order by group_id, user_id`,
          [tenantId, uuidArray(groupIds)],
        );
      }),
    groupsOfUsers: (tenantId, userIds) =>
      guarded(async () => {
        if (!isUuid(tenantId) || !userIds.some(isUuid)) return [];
        const rows = await driver.rows<GroupRow & { userId: string }>(
          `select m.user_id as "userId", ${GROUP_COLUMNS} from ${members()} m
join ${groups()} g on g.id = m.group_id and g.tenant_id = m.tenant_id
where m.tenant_id = ? and m.user_id = any(?::uuid[])
order by m.user_id, g.display_name collate "C", g.id`,
          [tenantId, uuidArray(userIds)],
        );
        return rows.map((row) => ({ userId: row.userId, group: toGroup(row) }));
      }),
  };
}
