import {
  type Actor,
  actingPrincipal,
  assertEmailVerified,
  currentPrincipal,
  invalidRole,
  memberOf,
} from '../../mechanisms/authorization.js';
import {
  assertNotLastActiveOwner,
  deactivateUser,
  forgetEndedAccess,
  isActive,
  reactivateUser,
  removeUser,
} from '../../mechanisms/deactivation.js';
import type { Services } from '../../mechanisms/services.js';
import { heldToSso, revokeSessionsSsoDidNotMake } from '../../mechanisms/sso/sso-hold.js';
import type { CompleteTransactionStores } from '../../ports/tenant-auth-stores.js';
import type { Principal } from '../../vocabulary/claims.js';
import { fieldError, forbidden, notFound, validationError } from '../../vocabulary/errors.js';
import { normalizeUuid } from '../../vocabulary/ids.js';
import { LIST_LIMITS } from '../../vocabulary/list-limits.js';
import type { Member, RequestContext, UserRecord } from '../../vocabulary/records.js';
import { isRole, type Role } from '../../vocabulary/roles.js';

/**
 * @internal The rules of who may change whom, stated once: admins and owners administer; only an owner
 * touches an owner or grants `owner`; a tenant keeps at least one owner (counted under the tenant lock).
 */
async function checkChange(
  tx: CompleteTransactionStores,
  caller: Actor,
  target: UserRecord,
  change: { to: Role; active?: boolean } | 'remove',
): Promise<void> {
  const touchesOwner = target.role === 'owner' || (change !== 'remove' && change.to === 'owner');
  if (touchesOwner && caller.role !== 'owner')
    throw forbidden('Only an owner may change an owner or make one.');
  // The last *active* owner (docs/http-api.md, "Errors added in 1.3"): a deactivated owner cannot act, so
  // it does not count, and an active one is not demoted, deactivated or removed while it is the last.
  const losesOwner = change === 'remove' || change.to !== 'owner' || change.active === false;
  if (losesOwner) await assertNotLastActiveOwner(tx, target);
}

/**
 * Input of {@link TenantAuthMembers.updateMember}: what changes (`PATCH /tenants/me/members/:userId`).
 *
 * @example
 * const input: UpdateMemberInput = { active: false };
 */
export interface UpdateMemberInput {
  /** The new role (`owner`, `admin`, `member`). */
  role?: unknown;
  /** `false` deactivates the account (its sessions and API keys are revoked), `true` restores it. */
  active?: unknown;
}

/** @internal Listing members, changing their roles, removing them. */
export function createMembership(services: Services) {
  const { stores, events, clock } = services;

  /** Runs a change to one member under the tenant lock, with the caller re-read inside it. */
  async function underLock<T>(
    principal: Principal,
    rawUserId: string,
    fn: (
      tx: CompleteTransactionStores,
      caller: Actor,
      target: UserRecord,
      record: Parameters<Parameters<typeof events.transaction>[0]>[1],
    ) => Promise<T>,
  ): Promise<T> {
    const userId = normalizeUuid(rawUserId);
    // Checked before the lock too, so a member (or a removed account with a live token) cannot make the
    // tenant's writers wait; checked again under it, where it counts.
    await actingPrincipal(stores, principal, clock.now(), 'admin');
    return events.transaction(async (tx, record) => {
      await tx.tenants.lock(principal.tenantId);
      const caller = await actingPrincipal(tx, principal, clock.now(), 'admin');
      const target = userId === null ? null : await tx.users.findById(principal.tenantId, userId);
      if (!target) throw notFound();
      return fn(tx, caller, target, record);
    });
  }

  /** A role change and/or an (de)activation of one member, in one transaction under the tenant lock. */
  async function update(
    principal: Principal,
    rawUserId: string,
    input: { role?: unknown; active?: unknown },
    context: RequestContext,
  ): Promise<Member> {
    // Sessions ended by the change: the cache of active sessions forgets them at once.
    let sessionsEnded = false;
    const member = await underLock(principal, rawUserId, async (tx, caller, target, record) => {
      if (input.role !== undefined && !isRole(input.role)) throw invalidRole();
      if (input.active !== undefined && typeof input.active !== 'boolean') {
        throw validationError([fieldError('active', 'invalid_type', 'active must be a boolean.')]);
      }
      const role: Role = (input.role as Role | undefined) ?? target.role;
      const active = (input.active as boolean | undefined) ?? isActive(target);
      const roleChanges = role !== target.role;
      const activeChanges = active !== isActive(target);
      if (!roleChanges && !activeChanges) return memberOf(target);
      await checkChange(tx, caller, target, { to: role, active });
      // Checked last, just before the change (docs/http-api.md, "Rules that change in 1.2 (closing holes found in 1.1)").
      assertEmailVerified(caller);
      const parties = {
        tenantId: target.tenantId,
        actorId: caller.id,
        actorType: caller.actorType,
        subjectId: target.id,
        sessionId: caller.sessionId,
      };
      if (roleChanges) {
        await tx.users.setRole(target.tenantId, target.id, role);
        // An owner demoted into a domain its tenant enforces SSO for is held now: its password and
        // passkey sessions end with the change (docs/http-api.md, "Rules that change in 1.3").
        if (active && (await heldToSso(tx, { ...target, role })))
          sessionsEnded = (await revokeSessionsSsoDidNotMake(tx, target, clock.now())) > 0;
        await record({
          type: 'member_role_changed',
          role,
          previousRole: target.role,
          ...events.base(parties, context),
        });
      }
      if (activeChanges && !active) {
        // Its sessions (refresh tokens with them) and the API keys it created end in this transaction.
        await deactivateUser(tx, target, clock.now());
        sessionsEnded = true;
        await record({ type: 'user_deactivated', ...events.base(parties, context) });
      } else if (activeChanges) {
        await reactivateUser(tx, target);
        await record({ type: 'user_reactivated', ...events.base(parties, context) });
      }
      return memberOf({ ...target, role, active });
    });
    if (sessionsEnded) forgetEndedAccess(services);
    return member;
  }

  return {
    async listMembers(principal: Principal): Promise<Member[]> {
      await currentPrincipal(stores, principal, clock.now());
      const limit = LIST_LIMITS.members;
      return (await stores.users.listByTenant(principal.tenantId, { limit })).slice(0, limit).map(memberOf);
    },

    async changeMemberRole(
      principal: Principal,
      rawUserId: string,
      role: unknown,
      context: RequestContext = {},
    ): Promise<Member> {
      // The 1.1 verb: a role is required.
      return update(principal, rawUserId, { role: role ?? null }, context);
    },

    async updateMember(
      principal: Principal,
      rawUserId: string,
      input: UpdateMemberInput,
      context: RequestContext = {},
    ): Promise<Member> {
      return update(principal, rawUserId, { role: input?.role, active: input?.active }, context);
    },

    async removeMember(principal: Principal, rawUserId: string, context: RequestContext = {}): Promise<void> {
      await underLock(principal, rawUserId, async (tx, caller, target, record) => {
        await checkChange(tx, caller, target, 'remove');
        await removeUser(tx, target);
        const parties = {
          tenantId: target.tenantId,
          actorId: caller.id,
          actorType: caller.actorType,
          subjectId: target.id,
          sessionId: caller.sessionId,
        };
        await record({ type: 'member_removed', ...events.base(parties, context) });
      });
      forgetEndedAccess(services);
    },
  };
}
