import type { ApiKeyStore } from '../ports/api-key-store.js';
import type { CompleteTransactionStores, UserStore } from '../ports/tenant-auth-stores.js';
import { errorOf, TenantAuthError } from '../vocabulary/errors.js';
import type { UserRecord } from '../vocabulary/records.js';
import type { Role } from '../vocabulary/roles.js';
import type { ApiKeyRevocations } from './api-key-revocations.js';
import type { ActiveSessionCache } from './sessions/active-session-cache.js';

// Deactivation (docs/http-api.md, "Errors added in 1.3"): a deactivated account keeps its data but signs in
// no more. Every sign-in path asks `assertActive` once the credential is proven (the right password is
// `account_disabled`, never `invalid_credentials`), and again under the tenant lock where it writes the
// session, the lock a deactivation takes: a sign-in racing a deactivation either finishes first (and its
// session is revoked with the others) or is refused. Access tokens and refresh tokens of the user are
// refused wherever the user is read (`invalid_token`), so nothing that slipped through a race is usable.

/** @internal Whether the user may sign in: a store without the flag (1.2) has only active users. */
export const isActive = (user: Pick<UserRecord, 'active'>): boolean => user.active !== false;

/** @internal `403 account_disabled`. */
export const accountDisabled = (): TenantAuthError => errorOf('account_disabled');

/** @internal Refuses a deactivated user with `account_disabled`. */
export function assertActive(user: Pick<UserRecord, 'active'>): void {
  if (!isActive(user)) throw accountDisabled();
}

/**
 * @internal {@link assertActive} on the user as the transaction reads it now (call it under the tenant
 * lock, where the session is written). A user gone meanwhile is refused too.
 */
export async function assertStillActive(
  tx: Pick<CompleteTransactionStores, 'users'>,
  user: Pick<UserRecord, 'tenantId' | 'id'>,
): Promise<void> {
  const now = await tx.users.findById(user.tenantId, user.id);
  if (!now || !isActive(now)) throw accountDisabled();
}

// The store verbs of deactivation are optional (new in 1.3): `completeStores` fills them in with these
// stand-ins, and the functions below fall back on them too.

/** @internal Stand-in of `users.setActive`: a store without it cannot deactivate anyone. */
export async function setActiveUnavailable(): Promise<never> {
  throw new TenantAuthError(
    'feature_unavailable',
    'This server does not offer this feature: its storage has no deactivation (users.setActive).',
  );
}

/** @internal Stand-in of `users.countActiveByRole`: a store that cannot deactivate has only active users. */
export const countActiveByRoleOf =
  (users: UserStore) =>
  (tenantId: string, role: Role): Promise<number> =>
    users.countActiveByRole ? users.countActiveByRole(tenantId, role) : users.countByRole(tenantId, role);

/** @internal Stand-in of `apiKeys.revokeCreatedBy`: the creator's keys, through the tenant's list, one by one. */
export const revokeCreatedByOf =
  (apiKeys: ApiKeyStore) =>
  async (tenantId: string, userId: string, at: Date): Promise<number> => {
    if (apiKeys.revokeCreatedBy) return apiKeys.revokeCreatedBy(tenantId, userId, at);
    const keys = await apiKeys.listByTenant(tenantId, { limit: Number.MAX_SAFE_INTEGER });
    let revoked = 0;
    for (const key of keys) {
      if (key.createdBy === userId && (await apiKeys.revoke(tenantId, key.id, at))) revoked += 1;
    }
    return revoked;
  };

const setActiveOf = (users: UserStore) => users.setActive?.bind(users) ?? setActiveUnavailable;

/** @internal How many active owners the tenant has: the last one is protected (`last_owner`). */
export function countActiveOwners(
  tx: Pick<CompleteTransactionStores, 'users'>,
  tenantId: string,
): Promise<number> {
  return countActiveByRoleOf(tx.users)(tenantId, 'owner');
}

/**
 * @internal Refuses with `last_owner` a change that would take the tenant's last active owner away (a
 * demotion, a deactivation, a removal of `target`): call it under the tenant lock, where the count holds.
 *
 * @example
 * await assertNotLastActiveOwner(tx, target);
 */
export async function assertNotLastActiveOwner(
  tx: Pick<CompleteTransactionStores, 'users'>,
  target: Pick<UserRecord, 'tenantId' | 'role' | 'active'>,
): Promise<void> {
  if (target.role === 'owner' && isActive(target) && (await countActiveOwners(tx, target.tenantId)) <= 1)
    throw errorOf('last_owner');
}

/**
 * @internal Removes a member of its tenant (an admin's `DELETE /tenants/me/members/:userId`, a directory's
 * `DELETE /Users/:id`), under the tenant lock its caller holds: never the last active owner; the account
 * goes with its sessions in this transaction, so no request of it passes a session check once it commits.
 */
export async function removeUser(
  tx: Pick<CompleteTransactionStores, 'users'>,
  target: Pick<UserRecord, 'tenantId' | 'id' | 'role' | 'active'>,
): Promise<void> {
  await assertNotLastActiveOwner(tx, target);
  await tx.users.delete(target.tenantId, target.id);
}

/**
 * @internal Deactivates a user inside its caller's transaction (which holds the tenant lock): the flag, its
 * sessions (and so its refresh tokens) and the API keys it created, all revoked in this one transaction.
 */
export async function deactivateUser(
  tx: Pick<CompleteTransactionStores, 'users' | 'sessions' | 'apiKeys'>,
  user: Pick<UserRecord, 'tenantId' | 'id'>,
  at: Date,
): Promise<{ sessions: number; apiKeys: number }> {
  await setActiveOf(tx.users)(user.tenantId, user.id, false);
  const sessions = await tx.sessions.revokeAllForUser(user.tenantId, user.id, at);
  const apiKeys = await revokeCreatedByOf(tx.apiKeys)(user.tenantId, user.id, at);
  return { sessions, apiKeys };
}

/** @internal Reactivates a user (its revoked sessions and keys stay revoked). */
export async function reactivateUser(
  tx: Pick<CompleteTransactionStores, 'users'>,
  user: Pick<UserRecord, 'tenantId' | 'id'>,
): Promise<void> {
  await setActiveOf(tx.users)(user.tenantId, user.id, true);
}

/**
 * @internal Once a change that ended a user's access is committed (deactivated, removed): this process's
 * caches forget what they trusted, the active sessions and the verified API keys alike, so that neither a
 * session nor a key of that user is accepted here again.
 */
export function forgetEndedAccess(services: {
  cache: Pick<ActiveSessionCache, 'forgetAll'>;
  apiKeyRevocations: ApiKeyRevocations;
}): void {
  services.cache.forgetAll();
  services.apiKeyRevocations.bump();
}
