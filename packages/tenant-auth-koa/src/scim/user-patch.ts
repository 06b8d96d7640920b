import type { ScimAttributePath } from './attribute-path.js';
import {
  inResourceSchema,
  readPatchRequest,
  type ScimTargetedOperation,
  targetsOf,
} from './patch-request.js';
import { checkReadOnly, readOnlyError, readOnlyName, type ShownResource } from './read-only.js';
import { scimBadRequest } from './scim-error.js';
import { SCIM_SCHEMAS } from './scim-protocol.js';
import { type ScimUser, type ScimUserFields, userFieldsOf } from './scim-records.js';
import {
  asciiLower,
  isJsonObject,
  membersOf,
  optionalText,
  requiredText,
  sameName,
  scimBoolean,
} from './scim-values.js';
import { userToScim, workAddressOf } from './user-resource.js';

/**
 * `PATCH /Users/:id` (RFC 7644 3.5.2) as the big directories send it: Entra ID's `"op": "Replace"` and
 * `"active": "False"`, Okta's `replace` without a path, `emails[type eq "work"].value`,
 * `name.givenName`, `externalId`. The applier is pure: it makes the new fields from the current user or
 * throws, so a patch applies all its operations or none (core writes the result under its lock).
 */

function plain(path: ScimAttributePath): void {
  if (path.filter !== null || path.subAttribute !== null) {
    throw scimBadRequest('invalidPath', `${path.attribute} has no sub-attributes or values to filter.`);
  }
}

function cannotRemove(attribute: string): never {
  throw scimBadRequest('mutability', `${attribute} is required and cannot be removed.`);
}

/** `emails[type eq "work"]` or `emails[primary eq true]`: the one email this server keeps. */
function isWorkEmailFilter(path: ScimAttributePath): boolean {
  const { filter } = path;
  if (filter === null) return false;
  if (sameName(filter.attribute, 'type')) {
    return typeof filter.value === 'string' && asciiLower(filter.value) === 'work';
  }
  return sameName(filter.attribute, 'primary') && filter.value === true;
}

function applyToEmails(fields: ScimUserFields, target: ScimTargetedOperation): ScimUserFields {
  const { op, path, value } = target;
  if (path.filter !== null && !isWorkEmailFilter(path)) {
    if (sameName(path.filter.attribute, 'type')) return fields; // a home or other email: not stored
    throw scimBadRequest('invalidPath', 'An email is addressed as emails[type eq "work"].');
  }
  if (path.subAttribute !== null) {
    // emails[type eq "work"].value (or emails.value); its type, primary and display are fixed.
    if (!sameName(path.subAttribute, 'value')) return fields;
    if (op === 'remove') cannotRemove('The work email');
    return { ...fields, email: requiredText(value, 'emails.value') };
  }
  if (op === 'remove') cannotRemove('The work email');
  if (path.filter !== null) {
    if (!isJsonObject(value)) throw scimBadRequest('invalidValue', 'An email is an object with a value.');
    const address = membersOf(value).get('value');
    return address === undefined ? fields : { ...fields, email: requiredText(address, 'emails.value') };
  }
  return { ...fields, email: workAddressOf(value) ?? fields.email };
}

const NAME_PARTS = {
  givenname: 'givenName',
  familyname: 'familyName',
  formatted: 'formattedName',
} as const satisfies Record<string, keyof ScimUserFields>;

function setNamePart(fields: ScimUserFields, part: string, value: unknown): ScimUserFields {
  const key = asciiLower(part);
  if (!Object.hasOwn(NAME_PARTS, key)) return fields; // middleName, honorificPrefix, …: not stored
  const field = NAME_PARTS[key as keyof typeof NAME_PARTS];
  const shownName = field === 'formattedName' ? 'formatted' : field;
  return { ...fields, [field]: optionalText(value, `name.${shownName}`) };
}

function applyToName(fields: ScimUserFields, target: ScimTargetedOperation): ScimUserFields {
  const { op, path, value } = target;
  if (path.filter !== null) throw scimBadRequest('invalidPath', 'name is not multi-valued.');
  if (path.subAttribute !== null)
    return setNamePart(fields, path.subAttribute, op === 'remove' ? null : value);
  if (op === 'remove' || value === null) {
    return { ...fields, givenName: null, familyName: null, formattedName: null };
  }
  if (!isJsonObject(value)) throw scimBadRequest('invalidValue', 'name must be an object.');
  // add and replace both merge: sub-attributes the value leaves out stay (RFC 7644 3.5.2.3).
  let next = fields;
  for (const [part, given] of membersOf(value)) next = setNamePart(next, part, given);
  return next;
}

function applyToUser(
  fields: ScimUserFields,
  target: ScimTargetedOperation,
  shown: ShownResource,
): ScimUserFields {
  const { op, path, value } = target;
  if (!inResourceSchema(path, SCIM_SCHEMAS.user)) return fields; // an extension (enterprise, custom): not stored
  const attribute = asciiLower(path.attribute);
  const readOnly = readOnlyName(shown, attribute);
  if (readOnly !== null) {
    if (op === 'remove' || path.filter !== null) throw readOnlyError(readOnly);
    checkReadOnly(shown, readOnly, path.subAttribute, value);
    return fields;
  }
  switch (attribute) {
    case 'username':
      plain(path);
      if (op === 'remove') cannotRemove('userName');
      return { ...fields, email: requiredText(value, 'userName') };
    case 'emails':
      return applyToEmails(fields, target);
    case 'name':
      return applyToName(fields, target);
    case 'displayname':
      plain(path);
      return { ...fields, displayName: op === 'remove' ? null : optionalText(value, 'displayName') };
    case 'externalid':
      plain(path);
      return { ...fields, externalId: op === 'remove' ? null : optionalText(value, 'externalId') };
    case 'active':
      plain(path);
      if (op === 'remove') cannotRemove('active');
      return { ...fields, active: scimBoolean(value, 'active') };
    default:
      return fields; // an attribute of RFC 7643 this server does not store (nickName, password, …), or another
  }
}

/**
 * The fields `current` has after a `PATCH /Users/:id` body, or a {@link ScimError} (`400` with RFC 7644's
 * `scimType`) and nothing changed. `baseUrl` (`PUBLIC_URL + "/scim/v2"`) is where the resource lives,
 * to compare a `meta` the directory echoes.
 *
 * @example
 * applyUserPatch(user, {
 *   schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
 *   Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
 * }, baseUrl).active // false
 */
export function applyUserPatch(current: ScimUser, body: unknown, baseUrl: string): ScimUserFields {
  const operations = readPatchRequest(body);
  const shown = userToScim(current, baseUrl);
  let fields = userFieldsOf(current);
  for (const operation of operations) {
    for (const target of targetsOf(operation, SCIM_SCHEMAS.user)) fields = applyToUser(fields, target, shown);
  }
  return fields;
}
