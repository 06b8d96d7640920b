/**
 * The roles, highest first: `owner` > `admin` > `member`. The one list of them: the types, the token
 * check, the HTTP contract and the database column are derived from it.
 *
 * @example
 * const options = ROLES.map((role) => ({ value: role, label: role }));
 */
export const ROLES = ['owner', 'admin', 'member'] as const;

/**
 * A user's role in its tenant: `owner` > `admin` > `member`. Owners and admins administer the tenant;
 * only owners grant or take `owner`, and a tenant always keeps one.
 *
 * @example
 * const canInvite = (role: Role) => role === 'owner' || role === 'admin';
 */
export type Role = (typeof ROLES)[number];

const RANK: Record<Role, number> = { member: 1, admin: 2, owner: 3 };

/** @internal Whether `value` is a role. */
export const isRole = (value: unknown): value is Role =>
  typeof value === 'string' && (ROLES as readonly string[]).includes(value);

/** @internal Whether `role` is at least `minimum` (owner > admin > member). */
export const atLeast = (role: Role, minimum: Role) => RANK[role] >= RANK[minimum];
