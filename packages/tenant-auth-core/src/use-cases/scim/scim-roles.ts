import type { EventLog } from '../../mechanisms/events/event-log.js';
import type { CompleteTransactionStores } from '../../ports/tenant-auth-stores.js';
import { fieldError, validationError } from '../../vocabulary/errors.js';
import type { ActorType, RequestContext } from '../../vocabulary/records.js';
import { atLeast, type Role } from '../../vocabulary/roles.js';
import type { ScimGroupRole } from '../../vocabulary/scim.js';
import { SCIM_LIMITS } from './scim-fields.js';

/** @internal Who a role change is recorded as: the directory (`scim`) or the owner who set the mapping. */
export interface RoleChangeActor {
  actorType: ActorType;
  actorId: string | null;
  sessionId: string | null;
}

/** @internal The directory as the actor of an audit event: `actorType: "scim"`, no actor id. */
export const DIRECTORY: RoleChangeActor = { actorType: 'scim', actorId: null, sessionId: null };

/**
 * @internal The role the mapping gives a managed user in these groups (by `displayName`, exact match): the
 * highest of its lines that name one of them, else `member`.
 */
export function roleFromGroups(groupRoles: readonly ScimGroupRole[], groupNames: readonly string[]): Role {
  let role: Role = 'member';
  for (const line of groupRoles) {
    if (groupNames.includes(line.group) && atLeast(line.role, role)) role = line.role;
  }
  return role;
}

/**
 * @internal Re-derives, in the caller's transaction (under the tenant lock), the role of those of `userIds`
 * the directory manages, owners excepted (owners are made by owners), and records each change as
 * `member_role_changed`. Returns how many roles changed.
 */
export async function rederiveRoles(
  tx: CompleteTransactionStores,
  events: EventLog,
  record: (event: Parameters<EventLog['record']>[0]) => Promise<void>,
  change: { tenantId: string; userIds: readonly string[]; actor: RoleChangeActor; context: RequestContext },
): Promise<number> {
  const { tenantId, actor, context } = change;
  const ids = [...new Set(change.userIds)];
  if (ids.length === 0) return 0;
  const managed = (await tx.scim.findProfiles(tenantId, ids)).filter((p) => p.managed).map((p) => p.userId);
  if (managed.length === 0) return 0;
  const groupRoles = await tx.scim.getGroupRoles(tenantId);
  const groupsOf = new Map<string, string[]>();
  for (const { userId, group } of await tx.scim.groupsOfUsers(tenantId, managed)) {
    groupsOf.set(userId, [...(groupsOf.get(userId) ?? []), group.displayName]);
  }
  let changed = 0;
  for (const userId of managed) {
    const user = await tx.users.findById(tenantId, userId);
    if (!user || user.role === 'owner') continue;
    const role = roleFromGroups(groupRoles, groupsOf.get(userId) ?? []);
    if (role === user.role) continue;
    await tx.users.setRole(tenantId, userId, role);
    await record({
      type: 'member_role_changed',
      role,
      previousRole: user.role,
      ...events.base({ tenantId, subjectId: userId, ...actor }, context),
    });
    changed += 1;
  }
  return changed;
}

/**
 * @internal A group-to-role mapping from untrusted input: at most 100 lines, each a group name (1 to 256
 * characters) and `admin` or `member`; `owner` or any other role is `validation_failed` (`role`:
 * `invalid_role`). A group named twice keeps its highest role (the derivation does the same).
 */
export function parseGroupRoles(input: unknown): ScimGroupRole[] {
  const raw: unknown = (input as { groupRoles?: unknown } | null | undefined)?.groupRoles;
  if (!Array.isArray(raw) || raw.length > SCIM_LIMITS.groupRoles) {
    throw validationError([
      fieldError(
        'groupRoles',
        'invalid_value',
        `groupRoles must be a list of at most ${SCIM_LIMITS.groupRoles}.`,
      ),
    ]);
  }
  const lines: ScimGroupRole[] = [];
  for (const line of raw as unknown[]) {
    const { group, role } = (line ?? {}) as { group?: unknown; role?: unknown };
    if (role !== 'admin' && role !== 'member') {
      throw validationError([
        fieldError('role', 'invalid_role', 'A group gives admin or member; owners are made by owners.'),
      ]);
    }
    if (typeof group !== 'string' || group.length === 0 || [...group].length > SCIM_LIMITS.displayName) {
      throw validationError([
        fieldError('group', 'invalid_value', "group must be a group's displayName (1 to 256 characters)."),
      ]);
    }
    lines.push({ group, role });
  }
  return lines;
}
