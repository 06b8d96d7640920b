import type { UserRecord } from '../vocabulary/records.js';
import type { ScimGroupRole } from '../vocabulary/scim.js';

/**
 * A tenant's SCIM token as stored: its SHA-256 hash (hex), never the token.
 *
 * @example
 * const token: ScimTokenRecord | null = await stores.scim.findTokenByHash(sha256Hex(bearer));
 */
export interface ScimTokenRecord {
  tenantId: string;
  /** SHA-256 of the token, lower-case hex. */
  tokenHash: string;
  createdAt: Date;
  /** When it last authenticated a request (written at most once a minute); `null` if never. */
  lastUsedAt: Date | null;
}

/**
 * What a directory keeps of a user beside the user itself: its `externalId`, its names, and whether the
 * directory manages it (created or linked it: its role then follows its groups). A user without one is a
 * user no directory has touched.
 *
 * @example
 * const [profile] = await stores.scim.findProfiles(tenantId, [userId]);
 */
export interface ScimProfileRecord {
  tenantId: string;
  userId: string;
  externalId: string | null;
  givenName: string | null;
  familyName: string | null;
  formattedName: string | null;
  displayName: string | null;
  /** Created or linked by the directory. */
  managed: boolean;
  /** The last change a directory made to the user (its `meta.lastModified`). */
  updatedAt: Date;
}

/**
 * A group of a tenant's directory as stored (its members are rows of their own).
 *
 * @example
 * const group: ScimGroupRecord | null = await stores.scim.findGroup(tenantId, groupId);
 */
export interface ScimGroupRecord {
  /** UUIDv7. */
  id: string;
  tenantId: string;
  displayName: string;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * SCIM provisioning's storage (docs/http-api.md, "SCIM 2.0 provisioning per tenant"): a tenant's token
 * and group-to-role mapping, its users' directory attributes, its groups and their members. Every method
 * that takes a tenant is scoped to it: another tenant's rows are never returned, counted or changed.
 * Deleting a user (`users.delete`) deletes its profile and memberships; deleting a tenant deletes all of
 * it. Optional on the bundle (new in 1.3): without it the SCIM routes answer `feature_unavailable`.
 *
 * @example
 * await stores.transaction(async (tx) => {
 *   await tx.tenants.lock(tenantId);
 *   await tx.scim?.setGroupMembers(tenantId, groupId, [userId]);
 * });
 */
export interface ScimStore {
  /** Stores the tenant's token, replacing the one it had (one token per tenant). */
  saveToken(token: ScimTokenRecord): Promise<void>;
  findToken(tenantId: string): Promise<ScimTokenRecord | null>;
  /** The token with that hash, whatever its tenant (authentication knows no tenant yet). */
  findTokenByHash(tokenHash: string): Promise<ScimTokenRecord | null>;
  /** Deletes the tenant's token. Returns whether it had one. */
  deleteToken(tenantId: string): Promise<boolean>;
  /** Sets `lastUsedAt` of the tenant's token if its hash is still `tokenHash` (a replaced token is not touched). */
  touchToken(tenantId: string, tokenHash: string, at: Date): Promise<void>;

  /** The tenant's group-to-role mapping, in the order it was set (empty when never set). */
  getGroupRoles(tenantId: string): Promise<ScimGroupRole[]>;
  /** Replaces the tenant's group-to-role mapping. */
  setGroupRoles(tenantId: string, groupRoles: ScimGroupRole[]): Promise<void>;

  /** Inserts or replaces the profile of a user of the tenant. */
  saveProfile(profile: ScimProfileRecord): Promise<void>;
  /** The profiles of those users of the tenant that have one (any order). */
  findProfiles(tenantId: string, userIds: readonly string[]): Promise<ScimProfileRecord[]>;
  /** The users of the tenant whose profile has that `externalId` (exact match), oldest first. */
  findUserIdsByExternalId(tenantId: string, externalId: string): Promise<string[]>;
  /** The users of the tenant the directory manages (`managed`), any order. */
  listManagedUserIds(tenantId: string): Promise<string[]>;
  /** The tenant's users, oldest first (ties by id), skipping `offset`, at most `limit`; `total` counts them all. */
  pageUsers(
    tenantId: string,
    page: { offset: number; limit: number },
  ): Promise<{ total: number; users: UserRecord[] }>;

  createGroup(group: ScimGroupRecord): Promise<void>;
  findGroup(tenantId: string, groupId: string): Promise<ScimGroupRecord | null>;
  /**
   * The tenant's groups, oldest first (ties by id), only those whose `displayName` equals `displayName`
   * ignoring ASCII case when it is given, skipping `offset`, at most `limit`; `total` counts every match.
   */
  pageGroups(
    tenantId: string,
    query: { displayName?: string; offset: number; limit: number },
  ): Promise<{ total: number; groups: ScimGroupRecord[] }>;
  /** Renames a group of the tenant and sets its `updatedAt`. Returns whether it exists. */
  updateGroup(
    tenantId: string,
    groupId: string,
    change: { displayName: string; updatedAt: Date },
  ): Promise<boolean>;
  /** Deletes a group of the tenant with its memberships. Returns whether it existed. */
  deleteGroup(tenantId: string, groupId: string): Promise<boolean>;
  /** Replaces the members of a group of the tenant (users of the tenant, no duplicates). */
  setGroupMembers(tenantId: string, groupId: string, userIds: readonly string[]): Promise<void>;
  /** The memberships of those groups of the tenant, ordered by group, then user id. */
  listGroupMembers(
    tenantId: string,
    groupIds: readonly string[],
  ): Promise<{ groupId: string; userId: string }[]>;
  /** The groups those users of the tenant belong to, ordered by user, then group `displayName`. */
  groupsOfUsers(
    tenantId: string,
    userIds: readonly string[],
  ): Promise<{ userId: string; group: ScimGroupRecord }[]>;
}
