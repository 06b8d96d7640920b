import { checkReadOnly } from './read-only.js';
import { metaOf, type ScimMeta } from './resource-meta.js';
import { scimBadRequest } from './scim-error.js';
import { SCIM_SCHEMAS, scimLocation } from './scim-protocol.js';
import { type ScimUser, type ScimUserFields, userFieldsOf } from './scim-records.js';
import {
  asciiLower,
  isJsonObject,
  membersOf,
  optionalText,
  requiredText,
  resourceBody,
  scimBoolean,
} from './scim-values.js';

/**
 * A user to and from SCIM's JSON (docs/http-api.md, "SCIM 2.0 provisioning per tenant"): `userName` is
 * the user's one address and `emails` holds it once, primary, type work. Attributes the server does not
 * store (`password`, `nickName`, `phoneNumbers`, the enterprise extension, …) are ignored; so is
 * `groups` (read-only: a user's groups change through the groups).
 */

/** A user as SCIM shows it. Unassigned attributes are left out (RFC 7643 2.5). */
export interface ScimUserResource {
  schemas: [typeof SCIM_SCHEMAS.user];
  id: string;
  externalId?: string;
  userName: string;
  name?: { formatted?: string; familyName?: string; givenName?: string };
  displayName?: string;
  emails: [{ value: string; type: 'work'; primary: true }];
  active: boolean;
  groups: { value: string; $ref: string; display: string }[];
  meta: ScimMeta;
}

/** Copies the assigned members only. */
function assigned<T extends Record<string, string | null>>(values: T): { [K in keyof T]?: string } {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== null)) as {
    [K in keyof T]?: string;
  };
}

/**
 * A user as SCIM shows it, its URLs under `baseUrl` (`PUBLIC_URL + "/scim/v2"`).
 *
 * @example
 * userToScim(user, 'https://auth.example.com/scim/v2').meta.location // 'https://auth.example.com/scim/v2/Users/<id>'
 */
export function userToScim(user: ScimUser, baseUrl: string): ScimUserResource {
  const name = assigned({
    formatted: user.formattedName,
    familyName: user.familyName,
    givenName: user.givenName,
  });
  return {
    schemas: [SCIM_SCHEMAS.user],
    id: user.id,
    ...assigned({ externalId: user.externalId }),
    userName: user.email,
    ...(Object.keys(name).length === 0 ? {} : { name }),
    ...assigned({ displayName: user.displayName }),
    emails: [{ value: user.email, type: 'work', primary: true }],
    active: user.active,
    groups: user.groups.map((group) => ({
      value: group.id,
      $ref: scimLocation(baseUrl, 'Group', group.id),
      display: group.displayName,
    })),
    meta: metaOf('User', user, baseUrl),
  };
}

function isTrue(value: unknown): boolean {
  return value === true || (typeof value === 'string' && asciiLower(value) === 'true');
}

/**
 * The address an `emails` value (an array of emails, or one email) gives: its `type` `work` email, else
 * its primary one, else its only one when that has no type; null when none (a `home` email alone).
 */
export function workAddressOf(value: unknown): string | null {
  if (value === null) return null;
  const emails = (Array.isArray(value) ? value : [value]).map((email) => {
    if (!isJsonObject(email)) throw scimBadRequest('invalidValue', 'emails holds objects with a value.');
    return membersOf(email);
  });
  const typed = (email: Map<string, unknown>) => {
    const type = email.get('type');
    return typeof type === 'string' ? asciiLower(type) : undefined;
  };
  const chosen =
    emails.find((email) => typed(email) === 'work') ??
    emails.find((email) => isTrue(email.get('primary'))) ??
    (emails.length === 1 && typed(emails[0] as Map<string, unknown>) === undefined ? emails[0] : undefined);
  return chosen === undefined ? null : requiredText(chosen.get('value'), 'emails.value');
}

/** Whether two addresses are one, as core compares them (ASCII case ignored). */
export function sameAddress(a: string, b: string): boolean {
  return asciiLower(a.trim()) === asciiLower(b.trim());
}

function nameOf(value: unknown): Pick<ScimUserFields, 'givenName' | 'familyName' | 'formattedName'> {
  if (value === null) return { givenName: null, familyName: null, formattedName: null };
  if (!isJsonObject(value)) throw scimBadRequest('invalidValue', 'name must be an object.');
  const parts = membersOf(value);
  return {
    givenName: optionalText(parts.get('givenname') ?? null, 'name.givenName'),
    familyName: optionalText(parts.get('familyname') ?? null, 'name.familyName'),
    formattedName: optionalText(parts.get('formatted') ?? null, 'name.formatted'),
  };
}

/** A full representation over `base` (a PUT: what the body leaves out stays as it was) or over nothing (a POST). */
function readUser(members: Map<string, unknown>, base: ScimUserFields | null): ScimUserFields {
  if (!members.has('username')) throw scimBadRequest('invalidValue', 'userName is required.');
  const userName = requiredText(members.get('username'), 'userName');
  let email = userName;
  // One address: a PUT that keeps userName and changes the work email changes the address to it.
  if (base !== null && sameAddress(userName, base.email) && members.has('emails')) {
    email = workAddressOf(members.get('emails')) ?? userName;
  }
  const has = (name: string) => members.has(name);
  return {
    email,
    ...(has('name')
      ? nameOf(members.get('name'))
      : {
          givenName: base?.givenName ?? null,
          familyName: base?.familyName ?? null,
          formattedName: base?.formattedName ?? null,
        }),
    displayName: has('displayname')
      ? optionalText(members.get('displayname'), 'displayName')
      : (base?.displayName ?? null),
    externalId: has('externalid')
      ? optionalText(members.get('externalid'), 'externalId')
      : (base?.externalId ?? null),
    active: has('active') ? scimBoolean(members.get('active'), 'active') : (base?.active ?? true),
  };
}

/**
 * The user a `POST /Users` body describes: `userName` is the address (a different work email in the same
 * body is not a second address and is ignored), `active` is true unless the body says otherwise, and
 * `id`, `meta` and `groups` are read-only and ignored (RFC 7644 3.3). Core checks the address (its
 * domain, its uniqueness).
 *
 * @example
 * userFromScim({ schemas: [SCIM_SCHEMAS.user], userName: 'ada@example.com', active: 'True' }).active // true
 */
export function userFromScim(body: unknown): ScimUserFields {
  return readUser(resourceBody(body, SCIM_SCHEMAS.user), null);
}

/**
 * The user a `PUT /Users/:id` body makes of `current`: what the body gives replaces (`null` unassigns),
 * what it leaves out stays (so a directory that omits `active` or `externalId` neither reactivates nor
 * unlinks anyone). A changed `userName` changes the address; an unchanged `userName` with a changed work
 * email changes it to that email. `id` and `meta` must match the resource (`400 mutability`); `groups` is
 * ignored (read-only, RFC 7644 3.5.1).
 */
export function userReplacedFromScim(current: ScimUser, body: unknown, baseUrl: string): ScimUserFields {
  const members = resourceBody(body, SCIM_SCHEMAS.user);
  const shown = userToScim(current, baseUrl);
  for (const name of ['id', 'meta'] as const) {
    if (members.has(name)) checkReadOnly(shown, name, null, members.get(name));
  }
  return readUser(members, userFieldsOf(current));
}
