import type { ScimGroupRecord, ScimProfileRecord, ScimStore } from '../ports/scim-store.js';
import type { UserRecord } from '../vocabulary/records.js';
import type { MemoryState } from './memory-database.js';
import { copy, copyOrNull, type Run } from './memory-run.js';

const byAge = <T extends { createdAt: Date; id: string }>(a: T, b: T): number =>
  a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** ASCII case only, as SCIM's `displayName eq` compares here (no Unicode folding). */
const asciiLower = (value: string): string => value.replace(/[A-Z]/g, (c) => c.toLowerCase());

function userOf(s: MemoryState, tenantId: string, userId: string): UserRecord | undefined {
  const user = s.users.get(userId);
  return user?.tenantId === tenantId ? user : undefined;
}

function groupOf(s: MemoryState, tenantId: string, groupId: string): ScimGroupRecord | undefined {
  const group = s.scimGroups.get(groupId);
  return group?.tenantId === tenantId ? group : undefined;
}

function checkPage(offset: number, limit: number): void {
  if (!Number.isInteger(offset) || offset < 0 || !Number.isInteger(limit) || limit < 0) {
    throw new TypeError('offset and limit must be non-negative integers');
  }
}

const membershipKey = (groupId: string, userId: string) => `${groupId}|${userId}`;

/** @internal The SCIM store on the memory database: each verb runs alone, so each is atomic. */
export function memoryScimStore(run: Run): ScimStore {
  return {
    saveToken: (token) =>
      run((s) => {
        if (!s.tenants.has(token.tenantId)) throw new TypeError('unknown tenant');
        s.scimTokens.set(token.tenantId, copy(token));
      }),
    findToken: (tenantId) => run((s) => copyOrNull(s.scimTokens.get(tenantId))),
    findTokenByHash: (tokenHash) =>
      run((s) => copyOrNull([...s.scimTokens.values()].find((t) => t.tokenHash === tokenHash))),
    deleteToken: (tenantId) => run((s) => s.scimTokens.delete(tenantId)),
    touchToken: (tenantId, tokenHash, at) =>
      run((s) => {
        const token = s.scimTokens.get(tenantId);
        if (token?.tokenHash === tokenHash)
          s.scimTokens.set(tenantId, { ...token, lastUsedAt: new Date(at) });
      }),

    getGroupRoles: (tenantId) => run((s) => copy(s.scimGroupRoles.get(tenantId) ?? [])),
    setGroupRoles: (tenantId, groupRoles) =>
      run((s) => {
        if (!s.tenants.has(tenantId)) throw new TypeError('unknown tenant');
        s.scimGroupRoles.set(tenantId, copy(groupRoles));
      }),

    saveProfile: (profile) =>
      run((s) => {
        if (!userOf(s, profile.tenantId, profile.userId)) throw new TypeError('unknown user');
        s.scimProfiles.set(profile.userId, copy(profile));
      }),
    findProfiles: (tenantId, userIds) =>
      run((s) =>
        [...new Set(userIds)]
          .map((id) => s.scimProfiles.get(id))
          .filter((p): p is ScimProfileRecord => p?.tenantId === tenantId)
          .map(copy),
      ),
    findUserIdsByExternalId: (tenantId, externalId) =>
      run((s) =>
        [...s.scimProfiles.values()]
          .filter((p) => p.tenantId === tenantId && p.externalId === externalId)
          .map((p) => userOf(s, tenantId, p.userId))
          .filter((u): u is UserRecord => u !== undefined)
          .sort(byAge)
          .map((u) => u.id),
      ),
    listManagedUserIds: (tenantId) =>
      run((s) =>
        [...s.scimProfiles.values()].filter((p) => p.tenantId === tenantId && p.managed).map((p) => p.userId),
      ),
    pageUsers: (tenantId, { offset, limit }) =>
      run((s) => {
        checkPage(offset, limit);
        const users = [...s.users.values()].filter((u) => u.tenantId === tenantId).sort(byAge);
        return { total: users.length, users: users.slice(offset, offset + limit).map(copy) };
      }),

    createGroup: (group) =>
      run((s) => {
        if (!s.tenants.has(group.tenantId)) throw new TypeError('unknown tenant');
        if (s.scimGroups.has(group.id)) throw new TypeError('duplicate group id');
        s.scimGroups.set(group.id, copy(group));
      }),
    findGroup: (tenantId, groupId) => run((s) => copyOrNull(groupOf(s, tenantId, groupId))),
    pageGroups: (tenantId, { displayName, offset, limit }) =>
      run((s) => {
        checkPage(offset, limit);
        const wanted = displayName === undefined ? undefined : asciiLower(displayName);
        const groups = [...s.scimGroups.values()]
          .filter(
            (g) => g.tenantId === tenantId && (wanted === undefined || asciiLower(g.displayName) === wanted),
          )
          .sort(byAge);
        return { total: groups.length, groups: groups.slice(offset, offset + limit).map(copy) };
      }),
    updateGroup: (tenantId, groupId, { displayName, updatedAt }) =>
      run((s) => {
        const group = groupOf(s, tenantId, groupId);
        if (!group) return false;
        s.scimGroups.set(groupId, { ...group, displayName, updatedAt: new Date(updatedAt) });
        return true;
      }),
    deleteGroup: (tenantId, groupId) =>
      run((s) => {
        if (!groupOf(s, tenantId, groupId)) return false;
        s.scimGroups.delete(groupId);
        for (const [key, m] of [...s.scimMembers]) if (m.groupId === groupId) s.scimMembers.delete(key);
        return true;
      }),
    setGroupMembers: (tenantId, groupId, userIds) =>
      run((s) => {
        if (!groupOf(s, tenantId, groupId)) throw new TypeError('unknown group');
        if (userIds.some((id) => !userOf(s, tenantId, id))) throw new TypeError('unknown user');
        for (const [key, m] of [...s.scimMembers]) if (m.groupId === groupId) s.scimMembers.delete(key);
        for (const userId of new Set(userIds)) {
          s.scimMembers.set(membershipKey(groupId, userId), { tenantId, groupId, userId });
        }
      }),
    listGroupMembers: (tenantId, groupIds) =>
      run((s) => {
        const wanted = new Set(groupIds);
        return [...s.scimMembers.values()]
          .filter((m) => m.tenantId === tenantId && wanted.has(m.groupId))
          .sort((a, b) => compare(a.groupId, b.groupId) || compare(a.userId, b.userId))
          .map(({ groupId, userId }) => ({ groupId, userId }));
      }),
    groupsOfUsers: (tenantId, userIds) =>
      run((s) => {
        const wanted = new Set(userIds);
        return [...s.scimMembers.values()]
          .filter((m) => m.tenantId === tenantId && wanted.has(m.userId))
          .map((m) => ({ userId: m.userId, group: s.scimGroups.get(m.groupId) as ScimGroupRecord }))
          .sort(
            (a, b) =>
              compare(a.userId, b.userId) ||
              compare(a.group.displayName, b.group.displayName) ||
              compare(a.group.id, b.group.id),
          )
          .map(copy);
      }),
  };
}
