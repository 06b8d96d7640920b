import type { Role } from './roles.js';

// SCIM 2.0 provisioning (docs/http-api.md, "SCIM 2.0 provisioning per tenant"), in core's words: the
// records the SCIM use cases answer and take. The HTTP layer (tenant-auth-koa's `/scim/v2`) turns them into
// RFC 7643 resources and back.

/**
 * A user of the tenant as its directory sees it.
 *
 * @example
 * const user: ScimUser = await auth.getScimUser(directory, userId);
 * console.log(user.email, user.externalId, user.active);
 */
export interface ScimUser {
  /** The user's id. */
  id: string;
  /** The one address: SCIM's `userName` and its one work email. */
  email: string;
  /** The directory's id of the user; `null` for a user no directory has linked. */
  externalId: string | null;
  givenName: string | null;
  familyName: string | null;
  /** SCIM's `name.formatted`. */
  formattedName: string | null;
  displayName: string | null;
  /** `false` once deactivated. */
  active: boolean;
  /** The groups it belongs to (read-only in SCIM). */
  groups: readonly { id: string; displayName: string }[];
  createdAt: Date;
  updatedAt: Date;
}

/**
 * What a directory writes of a user: the result of a `POST`, a `PUT` or a `PATCH`.
 *
 * @example
 * const fields: ScimUserFields = { email: 'ada@example.com', externalId: 'e-1', givenName: 'Ada', familyName: 'Lovelace', formattedName: null, displayName: 'Ada', active: true };
 */
export type ScimUserFields = Pick<
  ScimUser,
  'email' | 'externalId' | 'givenName' | 'familyName' | 'formattedName' | 'displayName' | 'active'
>;

/**
 * A group of the tenant, with its members.
 *
 * @example
 * const group: ScimGroup = await auth.getScimGroup(directory, groupId);
 * console.log(group.displayName, group.members.length);
 */
export interface ScimGroup {
  id: string;
  displayName: string;
  /** Its users, each with its address (SCIM's `display` of a member). */
  members: readonly { id: string; email: string }[];
  createdAt: Date;
  updatedAt: Date;
}

/**
 * What a directory writes of a group. `memberIds` are as sent: core checks that each is a user of the
 * tenant (`validation_failed`, field `members`, code `unknown_user` otherwise).
 *
 * @example
 * const fields: ScimGroupFields = { displayName: 'Engineering', memberIds: [userId] };
 */
export interface ScimGroupFields {
  displayName: string;
  memberIds: string[];
}

/**
 * One line of a tenant's group-to-role mapping: the members of the group named `group` (a group's
 * `displayName`, exact match) get at least `role`. Never `owner`: owners are made by owners.
 *
 * @example
 * const mapping: ScimGroupRole[] = [{ group: 'Admins', role: 'admin' }];
 */
export interface ScimGroupRole {
  group: string;
  role: Exclude<Role, 'owner'>;
}

/**
 * A tenant's SCIM connection as its administrators see it (never the token).
 *
 * @example
 * const { enabled, lastUsedAt }: ScimSettings = await auth.getScimSettings(claims);
 */
export interface ScimSettings {
  /** Whether a token exists: the directory can connect. */
  enabled: boolean;
  /** When the current token was created; `null` without one. */
  createdAt: Date | null;
  /** When the current token last authenticated a request (written at most once a minute); `null` if never. */
  lastUsedAt: Date | null;
  groupRoles: ScimGroupRole[];
}

/**
 * The principal of a request authenticated with a tenant's SCIM token: the tenant's directory.
 *
 * @example
 * const directory: ScimClaims = await auth.verifyScimToken(bearer);
 * const user = await auth.getScimUser(directory, id);
 */
export interface ScimClaims {
  actorType: 'scim';
  tenantId: string;
  /**
   * The SHA-256 (hex) of the token that was verified: every write checks, under the tenant lock, that it
   * is still the tenant's token, so a write queued behind a rotation or a revocation is refused too.
   */
  tokenHash: string;
}

/**
 * A user filter of `GET /Users`, in core's words: `userName eq` and `emails[type eq "work"].value eq`
 * are both `email` (compared as core normalises addresses); `externalId` and `id` compare exactly.
 *
 * @example
 * const filter: ScimUserFilter = { attribute: 'email', value: 'Ada@Example.com' };
 */
export interface ScimUserFilter {
  attribute: 'email' | 'externalId' | 'id';
  value: string;
}

/**
 * One page of a SCIM list: `startIndex` 1-based, at most `count` resources, and how many the query matches
 * in all.
 *
 * @example
 * const { totalResults, resources }: ScimList<ScimUser> = await auth.listScimUsers(directory, { startIndex: 1, count: 100 });
 */
export interface ScimList<T> {
  totalResults: number;
  startIndex: number;
  resources: T[];
}
