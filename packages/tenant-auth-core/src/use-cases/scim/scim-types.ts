import type { AccessClaims, Principal } from '../../vocabulary/claims.js';
import type { RequestContext } from '../../vocabulary/records.js';
import type {
  ScimClaims,
  ScimGroup,
  ScimGroupFields,
  ScimGroupRole,
  ScimList,
  ScimSettings,
  ScimUser,
  ScimUserFields,
  ScimUserFilter,
} from '../../vocabulary/scim.js';

/**
 * SCIM's part of `TenantAuth` (docs/http-api.md, "SCIM 2.0 provisioning per tenant"): the token and the
 * group-to-role mapping its owners manage, and the use cases a tenant's directory drives through its token.
 * Every write of a directory is one transaction under the tenant lock, audited with `actorType: "scim"`;
 * a managed user's role is re-derived from its groups in the same transaction. Without the `scim` store
 * every method fails with `feature_unavailable`.
 *
 * @example
 * const { token } = await auth.createScimToken(claims);
 * const directory = await auth.verifyScimToken(token);
 * const user = await auth.createScimUser(directory, { email: 'ada@example.com', externalId: 'e-1', givenName: null, familyName: null, formattedName: null, displayName: null, active: true });
 */
export interface TenantAuthScim {
  /**
   * Creates the tenant's SCIM token (owner, recent authentication), replacing the previous one, which stops
   * at once: `tas_` and 43 base64url characters, answered this once (stored as SHA-256). Audited
   * `scim_token_created`. Fails with `forbidden`, `reauthentication_required`.
   */
  createScimToken(
    claims: AccessClaims,
    context?: RequestContext,
  ): Promise<{ token: string; createdAt: Date }>;
  /** The tenant's SCIM connection, never the token (admin). */
  getScimSettings(principal: Principal): Promise<ScimSettings>;
  /**
   * Deletes the tenant's SCIM token (owner, recent authentication): requests with it fail at once.
   * Audited `scim_token_revoked`. Fails with `not_found` when there is none.
   */
  revokeScimToken(claims: AccessClaims, context?: RequestContext): Promise<void>;
  /**
   * Replaces the group-to-role mapping (owner, recent authentication) and re-derives the role of every
   * managed user in the same transaction. Fails with `validation_failed` (`groupRoles`; `role`:
   * `invalid_role`, owner included).
   */
  setScimGroupRoles(
    claims: AccessClaims,
    input: { groupRoles: ScimGroupRole[] },
    context?: RequestContext,
  ): Promise<ScimGroupRole[]>;

  /**
   * The directory behind a SCIM token (`tas_…`); records its use at most once a minute. Fails with
   * `invalid_token` for anything else, a replaced or revoked token included.
   */
  verifyScimToken(token: string): Promise<ScimClaims>;

  /** A user of the tenant. Fails with `not_found`. */
  getScimUser(directory: ScimClaims, userId: string): Promise<ScimUser>;
  /** The tenant's users (every user, provisioned or not), oldest first, filtered, one page. */
  listScimUsers(
    directory: ScimClaims,
    query: { filter?: ScimUserFilter; startIndex: number; count: number },
  ): Promise<ScimList<ScimUser>>;
  /**
   * Provisions a user: verified email, no password, role from its groups (else `member`). An address of
   * a user of this tenant no directory manages links that user instead (`linked: true`, same id, it keeps
   * its password). Fails with `validation_failed` (`userName`: `invalid_email`, `domain_not_verified`),
   * `email_taken` (in use, here by a managed user or in another tenant).
   */
  createScimUser(
    directory: ScimClaims,
    fields: ScimUserFields,
    context?: RequestContext,
  ): Promise<{ user: ScimUser; linked: boolean }>;
  /**
   * Changes a user: `change` gets the user as the transaction reads it (under the tenant lock) and
   * answers its new fields (a `PUT` replaces them, a `PATCH` applies its operations): every change or
   * none. `active: false` deactivates (sessions, refresh tokens and the keys it created revoked), `true`
   * reactivates. Fails with `not_found`, `validation_failed`, `email_taken`, `last_owner` (the last
   * active owner), and with whatever `change` throws (nothing written).
   */
  updateScimUser(
    directory: ScimClaims,
    userId: string,
    change: (current: ScimUser) => ScimUserFields,
    context?: RequestContext,
  ): Promise<ScimUser>;
  /** Removes a user as removing a member does. Fails with `not_found`, `last_owner`. */
  deleteScimUser(directory: ScimClaims, userId: string, context?: RequestContext): Promise<void>;

  /** A group of the tenant. Fails with `not_found`. */
  getScimGroup(directory: ScimClaims, groupId: string): Promise<ScimGroup>;
  /** The tenant's groups, oldest first, those named `displayName` (ASCII case ignored) when given, one page. */
  listScimGroups(
    directory: ScimClaims,
    query: { displayName?: string; startIndex: number; count: number },
  ): Promise<ScimList<ScimGroup>>;
  /**
   * Creates a group with its members; their roles follow. Fails with `validation_failed`
   * (`displayName`; `members`: `unknown_user` for an id that is no user of the tenant).
   */
  createScimGroup(
    directory: ScimClaims,
    fields: ScimGroupFields,
    context?: RequestContext,
  ): Promise<ScimGroup>;
  /**
   * Changes a group: `change` gets the group as the transaction reads it and answers its new fields; the
   * roles of the members added and removed follow, in the same transaction. Fails with `not_found`,
   * `validation_failed`, and whatever `change` throws (nothing written).
   */
  updateScimGroup(
    directory: ScimClaims,
    groupId: string,
    change: (current: ScimGroup) => ScimGroupFields,
    context?: RequestContext,
  ): Promise<ScimGroup>;
  /** Deletes a group; the roles of its members follow. Fails with `not_found`. */
  deleteScimGroup(directory: ScimClaims, groupId: string, context?: RequestContext): Promise<void>;
}
