import type { Services } from '../../mechanisms/services.js';
import type { Principal, TokenResponse } from '../../vocabulary/claims.js';
import type { Invitation, Member, RequestContext } from '../../vocabulary/records.js';
import type { Role } from '../../vocabulary/roles.js';
import { type AcceptInvitationInput, type CreateInvitationInput, createInvitations } from './invitations.js';
import { createMembership, type UpdateMemberInput } from './membership.js';

/**
 * The members' part of `TenantAuth` (docs/http-api.md, "Roles and members"): a tenant's members, their
 * roles, and the invitations that bring new ones in.
 *
 * @example
 * const members: TenantAuthMembers = auth;
 * const list = await members.listMembers(claims);
 */
export interface TenantAuthMembers {
  /** The members of the caller's tenant, oldest first, at most 1,000. Any member may list them. */
  listMembers(principal: Principal): Promise<Member[]>;
  /**
   * Changes a member's role (admin). Fails with `not_found` (not in the caller's tenant), `forbidden`
   * (the caller is not an admin; an admin touching an owner or granting `owner`), `last_owner`, and
   * `validation_failed` (`invalid_role`).
   */
  changeMemberRole(
    principal: Principal,
    userId: string,
    role: Role,
    context?: RequestContext,
  ): Promise<Member>;
  /**
   * Changes a member's role and/or whether it is active (admin; `PATCH /tenants/me/members/:userId`, 1.3),
   * in one transaction. `active: false` deactivates the account: its sessions, refresh tokens and the API
   * keys it created are revoked with it, and every sign-in answers `account_disabled`; `active: true`
   * restores it. Audited as `member_role_changed`, `user_deactivated`, `user_reactivated`. Same failures
   * as {@link TenantAuthMembers.changeMemberRole} (`last_owner` for the tenant's last active owner), and
   * `validation_failed` (`active`: `invalid_type`); `feature_unavailable` on a store set without
   * `users.setActive`.
   *
   * @example
   * const member = await auth.updateMember(claims, userId, { active: false });
   */
  updateMember(
    principal: Principal,
    userId: string,
    input: UpdateMemberInput,
    context?: RequestContext,
  ): Promise<Member>;
  /**
   * Removes a member (admin): the account is deleted and every session of it with it, in one
   * transaction. Same failures as {@link TenantAuthMembers.changeMemberRole}.
   */
  removeMember(principal: Principal, userId: string, context?: RequestContext): Promise<void>;
  /**
   * Invites an address into the caller's tenant (admin): a one-time token (7 days by default) and an
   * email with its link, written in one transaction; a pending invitation of the same address is
   * replaced. Fails with `validation_failed` (`invalid_email`, `email_taken`, `invalid_role`),
   * `forbidden` (an admin inviting an owner), `rate_limited` (too many emails to that address),
   * `unavailable` (no `mail` configured).
   */
  createInvitation(
    principal: Principal,
    input: CreateInvitationInput,
    context?: RequestContext,
  ): Promise<Invitation>;
  /** Pending invitations of the caller's tenant, newest first, at most 1,000 (admin). */
  listInvitations(principal: Principal): Promise<Invitation[]>;
  /** Revokes a pending invitation (admin): its link stops working. `not_found` for any other id. */
  revokeInvitation(principal: Principal, invitationId: string, context?: RequestContext): Promise<void>;
  /**
   * Accepts an invitation: creates the user in the inviting tenant with the invited role and a verified
   * email, and signs it in. The token is consumed in the same transaction, so a failure leaves it usable.
   * Fails with `validation_failed` (`token`: `invalid_or_expired`; the password rules; `email_taken`).
   */
  acceptInvitation(input: AcceptInvitationInput, context?: RequestContext): Promise<TokenResponse>;
}

/** @internal Members and invitations of a tenant. */
export function createMembers(services: Services): TenantAuthMembers {
  return { ...createMembership(services), ...createInvitations(services) };
}
