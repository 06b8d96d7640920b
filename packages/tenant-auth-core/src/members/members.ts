import {
  type Actor,
  actingPrincipal,
  assertEmailVerified,
  currentPrincipal,
  invalidRole,
  memberOf,
} from '../authorization.js';
import type { Principal } from '../claims.js';
import { forbidden, notFound, TenantAuthError } from '../errors.js';
import { normalizeUuid } from '../ids.js';
import { LIST_LIMITS } from '../list-limits.js';
import type { Member, RequestContext, UserRecord } from '../records.js';
import type { Services } from '../services.js';
import type { TransactionStores } from '../stores/tenant-auth-stores.js';
import { isRole, type Role } from './roles.js';

const lastOwner = () =>
  new TenantAuthError(
    'last_owner',
    'The tenant would be left without an owner; make someone else an owner first.',
  );

/**
 * @internal The rules of who may change whom, stated once: admins and owners administer; only an owner
 * touches an owner or grants `owner`; a tenant keeps at least one owner (counted under the tenant lock).
 */
async function checkChange(
  tx: TransactionStores,
  caller: Actor,
  target: UserRecord,
  change: { to: Role } | 'remove',
): Promise<void> {
  const touchesOwner = target.role === 'owner' || (change !== 'remove' && change.to === 'owner');
  if (touchesOwner && caller.role !== 'owner')
    throw forbidden('Only an owner may change an owner or make one.');
  const losesOwner = target.role === 'owner' && (change === 'remove' || change.to !== 'owner');
  if (losesOwner && (await tx.users.countByRole(target.tenantId, 'owner')) <= 1) throw lastOwner();
}

/** @internal Listing members, changing their roles, removing them. */
export function createMembers(services: Services) {
  const { stores, events, cache, clock } = services;

  /** Runs a change to one member under the tenant lock, with the caller re-read inside it. */
  async function underLock<T>(
    principal: Principal,
    rawUserId: string,
    fn: (
      tx: TransactionStores,
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

  return {
    async list(principal: Principal): Promise<Member[]> {
      await currentPrincipal(stores, principal, clock.now());
      const limit = LIST_LIMITS.members;
      return (await stores.users.listByTenant(principal.tenantId, { limit })).slice(0, limit).map(memberOf);
    },

    async changeRole(
      principal: Principal,
      rawUserId: string,
      role: unknown,
      context: RequestContext = {},
    ): Promise<Member> {
      return underLock(principal, rawUserId, async (tx, caller, target, record) => {
        if (!isRole(role)) throw invalidRole();
        if (target.role === role) return memberOf(target);
        await checkChange(tx, caller, target, { to: role });
        // Checked last, just before the change (API.md 1.2).
        assertEmailVerified(caller);
        await tx.users.setRole(target.tenantId, target.id, role);
        const parties = {
          tenantId: target.tenantId,
          actorId: caller.id,
          actorType: caller.actorType,
          subjectId: target.id,
          sessionId: caller.sessionId,
        };
        await record({
          type: 'member_role_changed',
          role,
          previousRole: target.role,
          ...events.base(parties, context),
        });
        return memberOf({ ...target, role });
      });
    },

    async remove(principal: Principal, rawUserId: string, context: RequestContext = {}): Promise<void> {
      await underLock(principal, rawUserId, async (tx, caller, target, record) => {
        await checkChange(tx, caller, target, 'remove');
        // Deleting the user deletes its sessions in the same transaction: no request of it gets through
        // a session check once this commits.
        await tx.users.delete(target.tenantId, target.id);
        const parties = {
          tenantId: target.tenantId,
          actorId: caller.id,
          actorType: caller.actorType,
          subjectId: target.id,
          sessionId: caller.sessionId,
        };
        await record({ type: 'member_removed', ...events.base(parties, context) });
      });
      cache.forgetAll();
    },
  };
}
