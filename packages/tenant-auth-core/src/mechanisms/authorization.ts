import type { ApiKeyRecord } from '../ports/api-key-store.js';
import type { CompleteTransactionStores } from '../ports/tenant-auth-stores.js';
import { type AccessClaims, isApiKeyPrincipal, type Principal } from '../vocabulary/claims.js';
import {
  emailNotVerified,
  fieldError,
  forbidden,
  invalidToken,
  type TenantAuthError,
  validationError,
} from '../vocabulary/errors.js';
import type { ActorType, Member, UserRecord } from '../vocabulary/records.js';
import { atLeast, type Role } from '../vocabulary/roles.js';
import { isActive } from './deactivation.js';

/** @internal A user as a member of its tenant. */
export const memberOf = (user: UserRecord): Member => ({
  id: user.id,
  email: user.email,
  role: user.role,
  emailVerified: user.emailVerified,
  createdAt: user.createdAt,
  active: isActive(user),
});

/**
 * @internal The caller as the stores know it now, whatever its token says: a removed account is
 * `invalid_token`, a role below `minimum` is `forbidden`. This is the one place a role is checked.
 */
export async function currentUser(
  stores: Pick<CompleteTransactionStores, 'users'>,
  claims: AccessClaims,
  minimum: Role = 'member',
): Promise<UserRecord> {
  const user = await stores.users.findById(claims.tenantId, claims.userId);
  // A deactivated account's tokens stop at once, as a removed one's (docs/http-api.md, "Errors added in 1.3").
  if (!user || !isActive(user)) throw invalidToken();
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
 * `invalid_token` here at once, not when it expires (docs/http-api.md, "Rules that change in 1.2 (closing holes found in 1.1)"); plain
 * reads keep the 1.0 rule and use {@link currentUser}.
 */
export async function actingUser(
  stores: Pick<CompleteTransactionStores, 'users' | 'sessions'>,
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

/**
 * @internal `authorize` for a user: the caller as a member, if its role is at least `minimum`.
 * Administration (`admin`, `owner`) needs a live session (docs/http-api.md, "Rules that change in 1.2");
 * what any member may do keeps the 1.0 rule, the account alone.
 */
export async function authorizeUser(
  stores: Pick<CompleteTransactionStores, 'users' | 'sessions'>,
  now: () => Date,
  claims: AccessClaims,
  minimum: Role,
): Promise<Member> {
  return memberOf(
    atLeast(minimum, 'admin')
      ? await actingUser(stores, claims, now(), minimum)
      : await currentUser(stores, claims, minimum),
  );
}

/**
 * @internal Who acts, whatever authenticated it: a user or an API key, as the stores know it now. What a
 * use case records of its caller (`actorId`, `actorType`, `sessionId`) and checks (`role`,
 * `emailVerified`).
 */
export interface Actor {
  actorType: ActorType;
  /** The user's id or the key's id. */
  id: string;
  tenantId: string;
  role: Role;
  /** A key counts as verified: creating it needed a verified email. */
  emailVerified: boolean;
  /** The user's email, or the key's name (what an invitation says sent it). */
  label: string;
  /** `null` for a key. */
  sessionId: string | null;
  /** The user answerable for what it does: the user, or the key's creator (`null` once gone). */
  accountableUserId: string | null;
}

/** @internal Whether a stored key works at `now`: not revoked and not expired. */
export function isKeyActive(key: ApiKeyRecord, now: Date): boolean {
  return key.revokedAt === null && (key.expiresAt === null || key.expiresAt.getTime() > now.getTime());
}

const actorOfUser = (user: UserRecord, sessionId: string | null): Actor => ({
  actorType: 'user',
  id: user.id,
  tenantId: user.tenantId,
  role: user.role,
  emailVerified: user.emailVerified,
  label: user.email,
  sessionId,
  accountableUserId: user.id,
});

/**
 * @internal The role a key acts with now: its own, lowered to its creator's current role; `null` once its
 * creator is no longer in the tenant (removed or deleted: the key then works no more). A key is only as
 * good as the user answerable for it, as an invitation is: else an administrator who was demoted or
 * removed would keep, through a key made earlier, the rights taken away (and could use them to restore
 * their own role, or to remove the administrators who demoted them).
 */
export async function keyRoleNow(
  stores: Pick<CompleteTransactionStores, 'users'>,
  key: Pick<ApiKeyRecord, 'tenantId' | 'role' | 'createdBy'>,
): Promise<Role | null> {
  if (key.createdBy === null) return null;
  const creator = await stores.users.findById(key.tenantId, key.createdBy);
  // A deactivated creator's keys stop working, as a removed one's do.
  if (!creator || !isActive(creator)) return null;
  return atLeast(creator.role, key.role) ? key.role : creator.role;
}

/**
 * The key as the stores know it now: unknown, revoked, expired or its creator gone is `invalid_token`; its
 * role is at most its creator's current one ({@link keyRoleNow}).
 */
async function currentKey(
  stores: Pick<CompleteTransactionStores, 'apiKeys' | 'users'>,
  principal: Extract<Principal, { actorType: 'api_key' }>,
  now: Date,
  minimum: Role,
): Promise<Actor> {
  const key = await stores.apiKeys.findById(principal.tenantId, principal.apiKeyId);
  if (!key || !isKeyActive(key, now)) throw invalidToken();
  const role = await keyRoleNow(stores, key);
  if (role === null) throw invalidToken();
  if (!atLeast(role, minimum)) {
    throw forbidden(
      minimum === 'owner' ? 'Only an owner may do this.' : 'Only an owner or an admin may do this.',
    );
  }
  return {
    actorType: 'api_key',
    id: key.id,
    tenantId: key.tenantId,
    role,
    emailVerified: true,
    label: key.name,
    sessionId: null,
    accountableUserId: key.createdBy,
  };
}

/**
 * @internal {@link currentUser} for any principal: a user as the stores know it now, or an API key that
 * is still active (read again from the stores, so a revoked key or a lowered role counts at once).
 */
export async function currentPrincipal(
  stores: Pick<CompleteTransactionStores, 'users' | 'apiKeys'>,
  principal: Principal,
  now: Date,
  minimum: Role = 'member',
): Promise<Actor> {
  if (isApiKeyPrincipal(principal)) return currentKey(stores, principal, now, minimum);
  return actorOfUser(await currentUser(stores, principal, minimum), principal.sessionId);
}

/**
 * @internal {@link actingUser} for any principal: a user only while its session is active, or an API key
 * that is still active.
 */
export async function actingPrincipal(
  stores: Pick<CompleteTransactionStores, 'users' | 'sessions' | 'apiKeys'>,
  principal: Principal,
  now: Date,
  minimum: Role = 'member',
): Promise<Actor> {
  if (isApiKeyPrincipal(principal)) return currentKey(stores, principal, now, minimum);
  return actorOfUser(await actingUser(stores, principal, now, minimum), principal.sessionId);
}

/** @internal Refuses API keys: `403 forbidden` (routes about a user, and the *recent* ones). */
export function assertUser(principal: Principal): asserts principal is AccessClaims {
  if (isApiKeyPrincipal(principal)) throw forbidden('An API key cannot do this; sign in as a user.');
}

/** @internal Refuses a caller whose email is not verified with `email_not_verified` (docs/http-api.md, "Rules that change in 1.2 (closing holes found in 1.1)"). */
export function assertEmailVerified(caller: Pick<UserRecord, 'emailVerified'>): void {
  if (!caller.emailVerified) throw emailNotVerified();
}

/** @internal The field error of a role that is not one. */
export function invalidRole(): TenantAuthError {
  return validationError([fieldError('role', 'invalid_role', 'The role must be owner, admin or member.')]);
}
