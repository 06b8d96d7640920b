import type { ScimGroup, ScimGroupFields, ScimUser, ScimUserFields } from 'tenant-auth-core';

/**
 * Users and groups as SCIM sees them are core's records (`ScimUser`, `ScimGroup` and what a directory
 * writes of them): the SCIM use cases answer them, and the appliers of this folder give back the fields
 * to be written. Re-exported here for the modules of this folder, with two helpers.
 */
export type { ScimGroup, ScimGroupFields, ScimUser, ScimUserFields };

/** The writable fields of a user. */
export function userFieldsOf(user: ScimUser): ScimUserFields {
  const { email, externalId, givenName, familyName, formattedName, displayName, active } = user;
  return { email, externalId, givenName, familyName, formattedName, displayName, active };
}

/** The writable fields of a group. */
export function groupFieldsOf(group: ScimGroup): ScimGroupFields {
  return { displayName: group.displayName, memberIds: group.members.map((member) => member.id) };
}
