import { checkReadOnly } from './read-only.js';
import { metaOf, type ScimMeta } from './resource-meta.js';
import { scimBadRequest } from './scim-error.js';
import { SCIM_SCHEMAS, scimLocation } from './scim-protocol.js';
import { groupFieldsOf, type ScimGroup, type ScimGroupFields } from './scim-records.js';
import { asciiLower, isJsonObject, membersOf, requiredText, resourceBody } from './scim-values.js';

/**
 * A group to and from SCIM's JSON: its writable attributes are `displayName` and `members` (users of the
 * tenant); anything else a directory sends (`externalId`, Entra ID's own schema URN) is ignored.
 */

/** A group as SCIM shows it. */
export interface ScimGroupResource {
  schemas: [typeof SCIM_SCHEMAS.group];
  id: string;
  displayName: string;
  /** Left out when the request says `excludedAttributes=members` (Entra ID does). */
  members?: { value: string; $ref: string; display: string }[];
  meta: ScimMeta;
}

/**
 * A group as SCIM shows it; `members: false` leaves its members out (`excludedAttributes=members`).
 *
 * @example
 * groupToScim(group, baseUrl, { members: false }).members // undefined
 */
export function groupToScim(
  group: ScimGroup,
  baseUrl: string,
  options: { members?: boolean } = {},
): ScimGroupResource {
  return {
    schemas: [SCIM_SCHEMAS.group],
    id: group.id,
    displayName: group.displayName,
    ...(options.members === false
      ? {}
      : {
          members: group.members.map((member) => ({
            value: member.id,
            $ref: scimLocation(baseUrl, 'User', member.id),
            display: member.email,
          })),
        }),
    meta: metaOf('Group', group, baseUrl),
  };
}

/**
 * The user ids a `members` value names: an array of members, or one member, each an object whose
 * `value` is a user's id (`display` and `$ref` are ignored; a `type` other than `User` is refused:
 * members are users). Repeated ids count once.
 */
export function memberIdsOf(value: unknown): string[] {
  if (value === null) return [];
  const ids = (Array.isArray(value) ? value : [value]).map((member) => {
    if (!isJsonObject(member))
      throw scimBadRequest('invalidValue', "members holds objects with a user's id.");
    const fields = membersOf(member);
    const type = fields.get('type');
    if (type !== undefined && type !== null && (typeof type !== 'string' || asciiLower(type) !== 'user')) {
      throw scimBadRequest('invalidValue', 'A member is a user.');
    }
    const id = requiredText(fields.get('value'), 'members.value');
    if (id === '') throw scimBadRequest('invalidValue', "members.value must be a user's id.");
    return id;
  });
  return [...new Set(ids)];
}

function readGroup(members: Map<string, unknown>, base: ScimGroupFields | null): ScimGroupFields {
  if (!members.has('displayname')) throw scimBadRequest('invalidValue', 'displayName is required.');
  return {
    displayName: requiredText(members.get('displayname'), 'displayName'),
    memberIds: members.has('members') ? memberIdsOf(members.get('members')) : (base?.memberIds ?? []),
  };
}

/**
 * The group a `POST /Groups` body describes (`id` and `meta` ignored, RFC 7644 3.3).
 *
 * @example
 * groupFromScim({ schemas: [SCIM_SCHEMAS.group], displayName: 'Admins', members: [{ value: userId }] })
 */
export function groupFromScim(body: unknown): ScimGroupFields {
  return readGroup(resourceBody(body, SCIM_SCHEMAS.group), null);
}

/**
 * The group a `PUT /Groups/:id` body makes of `current`: `displayName` replaced, `members` replaced when
 * given and kept when left out; `id` and `meta` must match the resource (`400 mutability`).
 */
export function groupReplacedFromScim(current: ScimGroup, body: unknown, baseUrl: string): ScimGroupFields {
  const members = resourceBody(body, SCIM_SCHEMAS.group);
  const shown = groupToScim(current, baseUrl, { members: false });
  for (const name of ['id', 'meta'] as const) {
    if (members.has(name)) checkReadOnly(shown, name, null, members.get(name));
  }
  return readGroup(members, groupFieldsOf(current));
}
