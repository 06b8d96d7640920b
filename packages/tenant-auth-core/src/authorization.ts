import type { AccessClaims } from './claims.js';
import { forbidden, invalidToken, TenantAuthError } from './errors.js';
import { atLeast, type Role } from './members/roles.js';
import type { Member, UserRecord } from './records.js';
import type { TransactionStores } from './stores/tenant-auth-stores.js';

/** @internal A user as a member of its tenant. */
export const memberOf = (user: UserRecord): Member => ({
  id: user.id,
  email: user.email,
  role: user.role,
  emailVerified: user.emailVerified,
  createdAt: user.createdAt,
});

/**
 * @internal The caller as the stores know it now, whatever its token says: a removed account is
 * `invalid_token`, a role below `minimum` is `forbidden`. This is the one place a role is checked.
 */
export async function currentUser(
  stores: Pick<TransactionStores, 'users'>,
  claims: AccessClaims,
  minimum: Role = 'member',
): Promise<UserRecord> {
  const user = await stores.users.findById(claims.tenantId, claims.userId);
  if (!user) throw invalidToken();
  if (!atLeast(user.role, minimum)) {
    throw forbidden(
      minimum === 'owner' ? 'Only an owner may do this.' : 'Only an owner or an admin may do this.',
    );
  }
  return user;
}

/** @internal The field error of a role that is not one. */
export function invalidRole(): TenantAuthError {
  return new TenantAuthError('validation_failed', 'The request is invalid.', {
    errors: [{ field: 'role', code: 'invalid_role', message: 'The role must be owner, admin or member.' }],
  });
}
