/**
 * Users and groups as SCIM sees them, in core's words (`email`, `createdAt`): what the SCIM use cases
 * will give the HTTP layer, and what the appliers of this folder give back to be written. Core will own
 * these records; until it does they are stated here.
 */

/** A user of the tenant, with what a directory writes. */
export interface ScimUser {
  id: string;
  /** The one address: SCIM's `userName` and its one work email. */
  email: string;
  /** The directory's id of the user; null for a user no directory has linked. */
  externalId: string | null;
  givenName: string | null;
  familyName: string | null;
  /** SCIM's `name.formatted`. */
  formattedName: string | null;
  displayName: string | null;
  /** False once deactivated. */
  active: boolean;
  /** The groups it belongs to (read-only in SCIM). */
  groups: readonly { id: string; displayName: string }[];
  createdAt: Date;
  updatedAt: Date;
}

/** What a directory may write of a user: the result of a `POST`, a `PUT` or a `PATCH`. */
export type ScimUserFields = Pick<
  ScimUser,
  'email' | 'externalId' | 'givenName' | 'familyName' | 'formattedName' | 'displayName' | 'active'
>;

/** A group of the tenant. */
export interface ScimGroup {
  id: string;
  displayName: string;
  /** Its users, each with its address (SCIM's `display` of a member). */
  members: readonly { id: string; email: string }[];
  createdAt: Date;
  updatedAt: Date;
}

/**
 * What a directory may write of a group. `memberIds` are as sent: core checks that each is a user of the
 * tenant (`400 invalidValue` otherwise).
 */
export interface ScimGroupFields {
  displayName: string;
  memberIds: string[];
}

/** The writable fields of a user. */
export function userFieldsOf(user: ScimUser): ScimUserFields {
  const { email, externalId, givenName, familyName, formattedName, displayName, active } = user;
  return { email, externalId, givenName, familyName, formattedName, displayName, active };
}

/** The writable fields of a group. */
export function groupFieldsOf(group: ScimGroup): ScimGroupFields {
  return { displayName: group.displayName, memberIds: group.members.map((member) => member.id) };
}
