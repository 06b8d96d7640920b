import type { AcceptInvitationInput, CreateInvitationInput } from 'tenant-auth-core';
import { setTokenCookies } from '../cookies.js';
import { invitationListSchema, invitationResponseSchema, tokenResponseSchema } from '../http-contract.js';
import { requestContext } from '../request-context.js';
import { toInvitationJson, toTokenResponse } from '../serialize.js';
import { type BodyOf, defineOperation, type Same } from './define.js';

true satisfies Same<BodyOf<'createInvitation'>, CreateInvitationInput>;
true satisfies Same<BodyOf<'acceptInvitation'>, AcceptInvitationInput>;

/** @internal Inviting to the caller's tenant, and joining it by invitation. */
export const INVITATION_OPERATIONS = [
  defineOperation({
    id: 'createInvitation',
    method: 'POST',
    path: '/tenants/me/invitations',
    caller: 'admin',
    apiKeys: true,
    // It answers whether an address has an account (email_taken), so it is no faster a probe than registration.
    budget: 'strict',
    tag: 'members',
    summary: 'Invite an address with a role; a pending invitation of it is replaced.',
    description: 'Owners and admins; only an owner invites an `owner`.',
    body: 'createInvitation',
    success: {
      status: 201,
      body: invitationResponseSchema,
      description: 'Invited; the email is on its way.',
    },
    problems: ['email_not_verified'],
    handler: async ({ ctx, caller, body }, { auth }) => ({
      invitation: toInvitationJson(await auth.createInvitation(caller, body, requestContext(ctx))),
    }),
  }),
  defineOperation({
    id: 'listInvitations',
    method: 'GET',
    path: '/tenants/me/invitations',
    caller: 'admin',
    apiKeys: true,
    budget: 'general',
    tag: 'members',
    summary: 'Pending invitations.',
    description: 'Owners and admins.',
    success: { status: 200, body: invitationListSchema, description: 'Pending invitations, newest first.' },
    handler: async ({ caller }, { auth }) => ({
      invitations: (await auth.listInvitations(caller)).map(toInvitationJson),
    }),
  }),
  defineOperation({
    id: 'revokeInvitation',
    method: 'DELETE',
    path: '/tenants/me/invitations/:id',
    caller: 'admin',
    apiKeys: true,
    budget: 'general',
    tag: 'members',
    summary: 'Revoke a pending invitation; its link stops working.',
    description: 'Owners and admins.',
    params: { id: 'Invitation id.' },
    success: { status: 204, description: 'Revoked.' },
    problems: ['not_found'],
    handler: async ({ ctx, caller, params }, { auth }) => {
      await auth.revokeInvitation(caller, params.id, requestContext(ctx));
    },
  }),
  defineOperation({
    id: 'acceptInvitation',
    method: 'POST',
    path: '/auth/invitations/accept',
    caller: 'none',
    budget: 'strict',
    tag: 'auth',
    summary: 'Accept an invitation: create the account in the inviting tenant, and log in.',
    description:
      'Into a tenant that requires a second factor, the account is created and the answer is `401 mfa_setup_required` with an `mfaToken` to enrol with (no session, no cookie). For an address the tenant signs in through single sign-on (`enforce`, a verified domain, not an owner), the account is created and the answer is `403 sso_required` (no session, no cookie).',
    body: 'acceptInvitation',
    success: {
      status: 201,
      body: tokenResponseSchema,
      description: 'Joined and logged in; cookies set.',
      cookies: 'set',
    },
    problems: ['mfa_setup_required', 'sso_required'],
    handler: async ({ ctx, body }, { auth, cookies }) => {
      const result = await auth.acceptInvitation(body, requestContext(ctx));
      setTokenCookies(ctx, cookies, result);
      return toTokenResponse(result);
    },
  }),
];
