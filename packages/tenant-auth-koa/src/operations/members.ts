import type { TenantAuth } from 'tenant-auth-core';
import { memberListSchema, memberSchema } from '../http-contract.js';
import { requestContext } from '../request-context.js';
import { toMemberJson } from '../serialize.js';
import { type BodyOf, defineOperation, type Same } from './define.js';

// The role rules are core's; these routes only translate.
true satisfies Same<
  BodyOf<'changeMemberRole'>['role'],
  Parameters<TenantAuth['changeMemberRole']>[2] | undefined
>;
true satisfies Same<Required<BodyOf<'changeMemberRole'>>['active'], boolean>;

/** @internal The members of the caller's tenant and their roles. */
export const MEMBER_OPERATIONS = [
  defineOperation({
    id: 'listMembers',
    method: 'GET',
    path: '/tenants/me/members',
    caller: 'access',
    apiKeys: true,
    budget: 'general',
    tag: 'members',
    summary: "The members of the caller's tenant.",
    success: { status: 200, body: memberListSchema, description: 'Members, oldest first.' },
    handler: async ({ caller }, { auth }) => ({
      members: (await auth.listMembers(caller)).map(toMemberJson),
    }),
  }),
  defineOperation({
    id: 'changeMemberRole',
    method: 'PATCH',
    path: '/tenants/me/members/:userId',
    caller: 'admin',
    apiKeys: true,
    budget: 'general',
    tag: 'members',
    summary: "Change a member's role, or deactivate or reactivate it.",
    description:
      'Owners and admins; only an owner grants or takes `owner`, and an admin cannot change an owner. `active: false` deactivates the account: its sessions, refresh tokens and the API keys it created are revoked in the same transaction, and every sign-in answers `403 account_disabled`; `active: true` restores it. The last active owner cannot be demoted or deactivated (`409 last_owner`).',
    params: { userId: 'User id.' },
    body: 'changeMemberRole',
    success: { status: 200, body: memberSchema, description: 'The member, with its role and `active`.' },
    problems: ['not_found', 'last_owner', 'email_not_verified'],
    handler: async ({ ctx, caller, params, body }, { auth }) =>
      toMemberJson(
        await auth.updateMember(
          caller,
          params.userId,
          { role: body.role, active: body.active },
          requestContext(ctx),
        ),
      ),
  }),
  defineOperation({
    id: 'removeMember',
    method: 'DELETE',
    path: '/tenants/me/members/:userId',
    caller: 'admin',
    apiKeys: true,
    budget: 'general',
    tag: 'members',
    summary: 'Remove a member: the account and every session of it.',
    description: 'Owners and admins; an admin cannot remove an owner.',
    params: { userId: 'User id.' },
    success: { status: 204, description: 'Removed.' },
    problems: ['not_found', 'last_owner'],
    handler: async ({ ctx, caller, params }, { auth }) => {
      await auth.removeMember(caller, params.userId, requestContext(ctx));
    },
  }),
];
