import type { TenantAuth } from 'tenant-auth-core';
import { clearTokenCookies } from '../cookies.js';
import { meSchema } from '../http-contract.js';
import { requestContext } from '../request-context.js';
import { type BodyOf, defineOperation, type Same } from './define.js';

true satisfies Same<BodyOf<'deleteAccount'>, Parameters<TenantAuth['deleteAccount']>[1]>;

/** @internal The caller's account as a whole. */
export const ACCOUNT_OPERATIONS = [
  defineOperation({
    id: 'getMe',
    method: 'GET',
    path: '/users/me',
    caller: 'access',
    budget: 'general',
    tag: 'recovery',
    summary: "The caller's account and its second factors.",
    success: { status: 200, body: meSchema, description: 'The account.' },
    handler: async ({ caller }, { auth }) => {
      const me = await auth.getMe(caller);
      return { ...me, createdAt: me.createdAt.toISOString() };
    },
  }),
  defineOperation({
    id: 'deleteAccount',
    method: 'DELETE',
    path: '/users/me',
    caller: 'access',
    budget: 'strict',
    recent: true,
    tag: 'recovery',
    summary: "Delete the caller's account; a tenant whose only member leaves goes with it.",
    body: 'deleteAccount',
    success: { status: 204, description: 'Deleted; cookies cleared.', cookies: 'cleared' },
    problems: ['last_owner'],
    handler: async ({ ctx, caller, body }, { auth, cookies }) => {
      await auth.deleteAccount(caller, body, requestContext(ctx));
      // The account is gone: so are its tokens, in this browser too.
      clearTokenCookies(ctx, cookies);
    },
  }),
];
