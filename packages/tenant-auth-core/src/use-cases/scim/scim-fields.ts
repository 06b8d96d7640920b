import { isActive } from '../../mechanisms/deactivation.js';
import { parseEmail } from '../../mechanisms/inputs/email.js';
import type { ScimGroupRecord, ScimProfileRecord } from '../../ports/scim-store.js';
import { type FieldError, fieldError, validationError } from '../../vocabulary/errors.js';
import { normalizeUuid } from '../../vocabulary/ids.js';
import type { UserRecord } from '../../vocabulary/records.js';
import type { ScimGroup, ScimGroupFields, ScimUser, ScimUserFields } from '../../vocabulary/scim.js';

/** @internal Limits of what a directory writes and reads. */
export const SCIM_LIMITS = {
  /** A name, a `displayName` (a user's or a group's). */
  displayName: 256,
  externalId: 512,
  /** Members of one group. */
  groupMembers: 10_000,
  /** Lines of the group-to-role mapping. */
  groupRoles: 100,
  /** `count` of a page (higher is capped). */
  page: 200,
} as const;

/** @internal A user as its directory sees it. */
export function scimUserOf(
  user: UserRecord,
  profile: ScimProfileRecord | undefined,
  groups: readonly ScimGroupRecord[],
): ScimUser {
  return {
    id: user.id,
    email: user.email,
    externalId: profile?.externalId ?? null,
    givenName: profile?.givenName ?? null,
    familyName: profile?.familyName ?? null,
    formattedName: profile?.formattedName ?? null,
    displayName: profile?.displayName ?? null,
    active: isActive(user),
    groups: groups.map((g) => ({ id: g.id, displayName: g.displayName })),
    createdAt: user.createdAt,
    updatedAt: profile?.updatedAt ?? user.createdAt,
  };
}

/** @internal A group with its members. */
export const scimGroupOf = (group: ScimGroupRecord, members: readonly UserRecord[]): ScimGroup => ({
  id: group.id,
  displayName: group.displayName,
  members: members.map((u) => ({ id: u.id, email: u.email })),
  createdAt: group.createdAt,
  updatedAt: group.updatedAt,
});

/** A text attribute: a string of at most `max` characters without control characters, or null (`''` is null). */
function text(errors: FieldError[], field: string, value: unknown, max: number): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'string') {
    errors.push(fieldError(field, 'invalid_type', `${field} must be a string.`));
    return null;
  }
  if ([...value].length > max) errors.push(fieldError(field, 'too_long', `At most ${max} characters.`));
  else if (/\p{Cc}/u.test(value))
    errors.push(fieldError(field, 'invalid_value', `${field} cannot hold control characters.`));
  return value === '' ? null : value;
}

/**
 * @internal A user's fields as a directory wrote them, checked: `email` an address (`userName`:
 * `invalid_email`; the domain is the caller's to check), the names and `externalId` texts, `active` a boolean.
 */
export function parseUserFields(fields: ScimUserFields): ScimUserFields {
  const errors: FieldError[] = [];
  const parsed = parseEmail(fields?.email);
  if (!parsed.ok) errors.push({ ...parsed.error, field: 'userName' });
  const active: unknown = fields?.active;
  if (typeof active !== 'boolean')
    errors.push(fieldError('active', 'invalid_type', 'active must be a boolean.'));
  const result: ScimUserFields = {
    email: parsed.ok ? parsed.email : '',
    externalId: text(errors, 'externalId', fields?.externalId, SCIM_LIMITS.externalId),
    givenName: text(errors, 'name.givenName', fields?.givenName, SCIM_LIMITS.displayName),
    familyName: text(errors, 'name.familyName', fields?.familyName, SCIM_LIMITS.displayName),
    formattedName: text(errors, 'name.formatted', fields?.formattedName, SCIM_LIMITS.displayName),
    displayName: text(errors, 'displayName', fields?.displayName, SCIM_LIMITS.displayName),
    active: active === true,
  };
  if (errors.length > 0) throw validationError(errors);
  return result;
}

/**
 * @internal A group's fields as a directory wrote them, checked: `displayName` trimmed, 1 to 256 characters;
 * `memberIds` ids (each a UUID, once; whether each is a user of the tenant is the caller's to check, as
 * `members`: `unknown_user`).
 */
export function parseGroupFields(fields: ScimGroupFields): { displayName: string; memberIds: string[] } {
  const errors: FieldError[] = [];
  const raw: unknown = fields?.displayName;
  const displayName = typeof raw === 'string' ? raw.trim() : '';
  if (typeof raw !== 'string' && raw !== undefined && raw !== null)
    errors.push(fieldError('displayName', 'invalid_type', 'displayName must be a string.'));
  else if (displayName === '')
    errors.push(fieldError('displayName', 'required', 'A displayName is required.'));
  else if ([...displayName].length > SCIM_LIMITS.displayName)
    errors.push(fieldError('displayName', 'too_long', `At most ${SCIM_LIMITS.displayName} characters.`));
  else if (/\p{Cc}/u.test(displayName))
    errors.push(fieldError('displayName', 'invalid_value', 'displayName cannot hold control characters.'));
  const rawIds: unknown = fields?.memberIds ?? [];
  const memberIds: string[] = [];
  if (!Array.isArray(rawIds) || rawIds.length > SCIM_LIMITS.groupMembers) {
    errors.push(
      fieldError(
        'members',
        'invalid_value',
        `members must be a list of at most ${SCIM_LIMITS.groupMembers}.`,
      ),
    );
  } else {
    for (const id of rawIds as unknown[]) {
      const userId = normalizeUuid(id);
      if (userId === null) {
        errors.push(fieldError('members', 'unknown_user', 'Every member must be a user of the tenant.'));
        break;
      }
      if (!memberIds.includes(userId)) memberIds.push(userId);
    }
  }
  if (errors.length > 0) throw validationError(errors);
  return { displayName, memberIds };
}

/** @internal `startIndex` (1-based; below 1 is 1) and `count` (0 to 200; above is capped) of a list, checked. */
export function parsePage(query: { startIndex: unknown; count: unknown }): {
  startIndex: number;
  count: number;
} {
  const { startIndex, count } = query ?? {};
  const errors: FieldError[] = [];
  if (typeof startIndex !== 'number' || !Number.isSafeInteger(startIndex))
    errors.push(fieldError('startIndex', 'invalid_value', 'startIndex must be an integer.'));
  if (typeof count !== 'number' || !Number.isSafeInteger(count))
    errors.push(fieldError('count', 'invalid_value', 'count must be an integer.'));
  if (errors.length > 0) throw validationError(errors);
  return {
    startIndex: Math.max(1, startIndex as number),
    count: Math.min(SCIM_LIMITS.page, Math.max(0, count as number)),
  };
}
