import type { ScimAttributePath } from './attribute-path.js';
import { groupToScim, memberIdsOf } from './group-resource.js';
import {
  inResourceSchema,
  readPatchRequest,
  type ScimTargetedOperation,
  targetsOf,
} from './patch-request.js';
import { checkReadOnly, readOnlyError, readOnlyName, type ShownResource } from './read-only.js';
import { scimBadRequest } from './scim-error.js';
import { SCIM_SCHEMAS } from './scim-protocol.js';
import { groupFieldsOf, type ScimGroup, type ScimGroupFields } from './scim-records.js';
import { asciiLower, requiredText, sameName } from './scim-values.js';

/**
 * `PATCH /Groups/:id` (RFC 7644 3.5.2): `displayName`, and `members` added, replaced and removed in
 * every form the big directories send, `members[value eq "<id>"]` included. A `remove` of `members`
 * without a filter and without a value removes no one: RFC 7644 would remove every member, which is
 * how a naive server empties a group when a directory means one member (azure-docs #30826). Pure, like
 * the user applier: the new fields, or an error and nothing changed.
 */

/** The id a `members[value eq "<id>"]` filter names. */
function filteredMember(path: ScimAttributePath): string {
  const { filter } = path;
  if (filter === null || !sameName(filter.attribute, 'value') || typeof filter.value !== 'string') {
    throw scimBadRequest('invalidPath', 'A member is addressed as members[value eq "<id>"].');
  }
  if (path.subAttribute !== null) {
    throw scimBadRequest('invalidPath', 'A member is added, replaced or removed whole.');
  }
  return filter.value;
}

/** The member ids of a value, as core stores ids (lower-case): a directory may send a UUID in upper case. */
const idsIn = (value: unknown): string[] => memberIdsOf(value).map(asciiLower);

function applyToMembers(fields: ScimGroupFields, target: ScimTargetedOperation): ScimGroupFields {
  const { op, path, value } = target;
  const current = fields.memberIds;
  if (path.filter === null) {
    if (path.subAttribute !== null) {
      throw scimBadRequest('invalidPath', 'A member is addressed as members[value eq "<id>"].');
    }
    if (op === 'add') return { ...fields, memberIds: [...new Set([...current, ...idsIn(value)])] };
    if (op === 'replace') return { ...fields, memberIds: idsIn(value) };
    // remove: with a value, those members (Entra ID's form); without one, no one.
    if (value === undefined || value === null) return fields;
    const removed = new Set(idsIn(value));
    return { ...fields, memberIds: current.filter((id) => !removed.has(id)) };
  }
  const id = asciiLower(filteredMember(path));
  if (op === 'remove') return { ...fields, memberIds: current.filter((member) => member !== id) };
  if (op === 'add') throw scimBadRequest('invalidPath', 'Members are added with the path "members".');
  // replace members[value eq "<id>"]: that member by another (RFC 7644 3.5.2.3).
  if (!current.includes(id)) throw scimBadRequest('noTarget', 'No member matches the filter.');
  const replacement = idsIn(value);
  if (replacement.length !== 1) throw scimBadRequest('invalidValue', 'A member is replaced by one member.');
  const [next] = replacement as [string];
  return { ...fields, memberIds: [...new Set(current.map((member) => (member === id ? next : member)))] };
}

function applyToGroup(
  fields: ScimGroupFields,
  target: ScimTargetedOperation,
  shown: ShownResource,
): ScimGroupFields {
  const { op, path, value } = target;
  if (!inResourceSchema(path, SCIM_SCHEMAS.group)) return fields; // an extension: not stored
  const attribute = asciiLower(path.attribute);
  const readOnly = readOnlyName(shown, attribute);
  if (readOnly !== null) {
    if (op === 'remove' || path.filter !== null) throw readOnlyError(readOnly);
    checkReadOnly(shown, readOnly, path.subAttribute, value);
    return fields;
  }
  switch (attribute) {
    case 'displayname':
      if (path.filter !== null || path.subAttribute !== null) {
        throw scimBadRequest('invalidPath', 'displayName has no sub-attributes or values to filter.');
      }
      if (op === 'remove')
        throw scimBadRequest('mutability', 'displayName is required and cannot be removed.');
      return { ...fields, displayName: requiredText(value, 'displayName') };
    case 'members':
      return applyToMembers(fields, target);
    default:
      return fields; // externalId and anything else a group does not store
  }
}

/**
 * The fields `current` has after a `PATCH /Groups/:id` body, or a {@link ScimError} and nothing changed.
 * Member ids are as sent: core checks each is a user of the tenant.
 *
 * @example
 * applyGroupPatch(group, {
 *   schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
 *   Operations: [{ op: 'remove', path: `members[value eq "${userId}"]` }],
 * }, baseUrl).memberIds // without userId
 */
export function applyGroupPatch(current: ScimGroup, body: unknown, baseUrl: string): ScimGroupFields {
  const operations = readPatchRequest(body);
  const shown = groupToScim(current, baseUrl, { members: false });
  let fields = groupFieldsOf(current);
  for (const operation of operations) {
    for (const target of targetsOf(operation, SCIM_SCHEMAS.group))
      fields = applyToGroup(fields, target, shown);
  }
  return fields;
}
