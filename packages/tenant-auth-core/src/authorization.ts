import type { AccessClaims } from './claims.js';
import { emailNotVerified, forbidden, invalidToken, TenantAuthError } from './errors.js';
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

/**
 * @internal The caller of a change (an administrator's work, or a change to the caller's own account):
 * as {@link currentUser}, and only while the token's session is still active, read from the stores
 * (never from the per-request cache). The access token of a logged-out or revoked session is
 * `invalid_token` here at once, not when it expires (API.md 1.2, "Rules that change in 1.2"); plain
 * reads keep the 1.0 rule and use {@link currentUser}.
 */
export async function actingUser(
  stores: Pick<TransactionStores, 'users' | 'sessions'>,
  claims: AccessClaims,
  now: Date,
  minimum: Role = 'member',
): Promise<UserRecord> {
  const session = await stores.sessions.findById(claims.tenantId, claims.sessionId);
  if (
    !session ||
    session.userId !== claims.userId ||
    session.revokedAt !== null ||
    session.expiresAt.getTime() <= now.getTime()
  ) {
    throw invalidToken();
  }
  return currentUser(stores, claims, minimum);
}

/** @internal Refuses a caller whose email is not verified with `email_not_verified` (API.md 1.2). */
export function assertEmailVerified(caller: UserRecord): void {
  if (!caller.emailVerified) throw emailNotVerified();
}

/** @internal The field error of a role that is not one. */
export function invalidRole(): TenantAuthError {
  return new TenantAuthError('validation_failed', 'The request is invalid.', {
    errors: [{ field: 'role', code: 'invalid_role', message: 'The role must be owner, admin or member.' }],
  });
}
