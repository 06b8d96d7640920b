import type { Services } from '../../mechanisms/services.js';
import type { ScimGroupRecord } from '../../ports/scim-store.js';
import type { CompleteTransactionStores } from '../../ports/tenant-auth-stores.js';
import { fieldError, notFound, validationError } from '../../vocabulary/errors.js';
import { normalizeUuid, uuidv7 } from '../../vocabulary/ids.js';
import type { RequestContext, UserRecord } from '../../vocabulary/records.js';
import type { ScimClaims, ScimGroup, ScimGroupFields, ScimList } from '../../vocabulary/scim.js';
import { directoryWrite, tenantOf } from './scim-directory.js';
import { parseGroupFields, parsePage, scimGroupOf } from './scim-fields.js';
import { DIRECTORY, rederiveRoles } from './scim-roles.js';
import type { TenantAuthScim } from './scim-types.js';

type Reader = Pick<CompleteTransactionStores, 'scim' | 'users'>;

/** @internal Groups with their members (each with its address), their memberships read in one batch. */
async function scimGroupsOf(
  stores: Reader,
  tenantId: string,
  groups: readonly ScimGroupRecord[],
): Promise<ScimGroup[]> {
  if (groups.length === 0) return [];
  const members = new Map<string, UserRecord[]>();
  const users = new Map<string, UserRecord | null>();
  for (const { groupId, userId } of await stores.scim.listGroupMembers(
    tenantId,
    groups.map((g) => g.id),
  )) {
    if (!users.has(userId)) users.set(userId, await stores.users.findById(tenantId, userId));
    const user = users.get(userId);
    if (user) members.set(groupId, [...(members.get(groupId) ?? []), user]);
  }
  return groups.map((g) => scimGroupOf(g, members.get(g.id) ?? []));
}

async function groupById(stores: Reader, tenantId: string, rawId: string): Promise<ScimGroupRecord> {
  const id = normalizeUuid(rawId);
  const group = id === null ? null : await stores.scim.findGroup(tenantId, id);
  if (!group) throw notFound();
  return group;
}

/** Every id must be a user of the tenant (`members`: `unknown_user`): another tenant's is no one here. */
async function assertUsersOf(
  tx: CompleteTransactionStores,
  tenantId: string,
  userIds: readonly string[],
): Promise<void> {
  for (const id of userIds) {
    if (!(await tx.users.findById(tenantId, id))) {
      throw validationError([
        fieldError('members', 'unknown_user', 'Every member must be a user of the tenant.'),
      ]);
    }
  }
}

/** @internal Groups: what a tenant's directory reads and writes; the roles of their managed members follow. */
export function createScimGroups(
  services: Services,
): Pick<
  TenantAuthScim,
  'getScimGroup' | 'listScimGroups' | 'createScimGroup' | 'updateScimGroup' | 'deleteScimGroup'
> {
  const { stores, clock, random, events } = services;
  const changed = (tenantId: string, groupId: string, context: RequestContext) =>
    ({
      type: 'scim_group_changed',
      ...events.base({ tenantId, subjectId: groupId, ...DIRECTORY }, context),
    }) as const;

  return {
    async getScimGroup(directory: ScimClaims, groupId: string): Promise<ScimGroup> {
      const tenantId = tenantOf(directory);
      const [group] = await scimGroupsOf(stores, tenantId, [await groupById(stores, tenantId, groupId)]);
      return group as ScimGroup;
    },

    async listScimGroups(directory, query): Promise<ScimList<ScimGroup>> {
      const tenantId = tenantOf(directory);
      const { startIndex, count } = parsePage(query);
      const displayName: unknown = query.displayName;
      if (displayName !== undefined && typeof displayName !== 'string')
        throw validationError([fieldError('filter', 'invalid_value', 'A filter compares with a string.')]);
      const { total, groups } = await stores.scim.pageGroups(tenantId, {
        ...(displayName === undefined ? {} : { displayName }),
        offset: startIndex - 1,
        limit: count,
      });
      return { totalResults: total, startIndex, resources: await scimGroupsOf(stores, tenantId, groups) };
    },

    async createScimGroup(directory: ScimClaims, rawFields: ScimGroupFields, context: RequestContext = {}) {
      const fields = parseGroupFields(rawFields);
      return directoryWrite(events, directory, async (tx, record, tenantId) => {
        await assertUsersOf(tx, tenantId, fields.memberIds);
        const now = clock.now();
        const group: ScimGroupRecord = {
          id: uuidv7(clock, random),
          tenantId,
          displayName: fields.displayName,
          createdAt: now,
          updatedAt: now,
        };
        await tx.scim.createGroup(group);
        await tx.scim.setGroupMembers(tenantId, group.id, fields.memberIds);
        await record(changed(tenantId, group.id, context));
        await rederiveRoles(tx, events, record, {
          tenantId,
          userIds: fields.memberIds,
          actor: DIRECTORY,
          context,
        });
        return (await scimGroupsOf(tx, tenantId, [group]))[0] as ScimGroup;
      });
    },

    async updateScimGroup(directory, groupId, change, context: RequestContext = {}) {
      return directoryWrite(events, directory, async (tx, record, tenantId) => {
        const group = await groupById(tx, tenantId, groupId);
        const [current] = await scimGroupsOf(tx, tenantId, [group]);
        // Whatever `change` throws rolls the transaction back: nothing is written.
        const fields = parseGroupFields(change(current as ScimGroup));
        await assertUsersOf(tx, tenantId, fields.memberIds);
        const before = (current as ScimGroup).members.map((m) => m.id);
        const now = clock.now();
        await tx.scim.updateGroup(tenantId, group.id, { displayName: fields.displayName, updatedAt: now });
        await tx.scim.setGroupMembers(tenantId, group.id, fields.memberIds);
        await record(changed(tenantId, group.id, context));
        // Members added, removed, or kept under a new name: each one's role follows, in this transaction.
        const userIds = [...before, ...fields.memberIds];
        await rederiveRoles(tx, events, record, { tenantId, userIds, actor: DIRECTORY, context });
        return (
          await scimGroupsOf(tx, tenantId, [{ ...group, displayName: fields.displayName, updatedAt: now }])
        )[0] as ScimGroup;
      });
    },

    async deleteScimGroup(directory: ScimClaims, groupId: string, context: RequestContext = {}) {
      await directoryWrite(events, directory, async (tx, record, tenantId) => {
        const group = await groupById(tx, tenantId, groupId);
        const members = (await tx.scim.listGroupMembers(tenantId, [group.id])).map((m) => m.userId);
        await tx.scim.deleteGroup(tenantId, group.id);
        await record(changed(tenantId, group.id, context));
        await rederiveRoles(tx, events, record, { tenantId, userIds: members, actor: DIRECTORY, context });
      });
    },
  };
}
