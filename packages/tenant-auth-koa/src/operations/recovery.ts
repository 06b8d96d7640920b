import type { ChangePasswordInput, ResetPasswordInput, TenantAuth } from 'tenant-auth-core';
import { acceptedSchema } from '../http-contract.js';
import { requestContext } from '../request-context.js';
import { type BodyOf, defineOperation, type Same } from './define.js';

true satisfies Same<BodyOf<'forgotPassword'>, Parameters<TenantAuth['forgotPassword']>[0]>;
true satisfies Same<BodyOf<'resetPassword'>, ResetPasswordInput>;
true satisfies Same<BodyOf<'changePassword'>, ChangePasswordInput>;

/** @internal Forgotten, reset and changed passwords. */
export const RECOVERY_OPERATIONS = [
  defineOperation({
    id: 'forgotPassword',
    method: 'POST',
    path: '/auth/password/forgot',
    caller: 'none',
    budget: 'strict',
    tag: 'recovery',
    summary: 'Ask for a reset link.',
    description: 'The same answer, in the same time, whether or not the address has an account.',
    body: 'forgotPassword',
    success: { status: 202, body: acceptedSchema, description: '`{}`.' },
    handler: async ({ ctx, body }, { auth }) => {
      await auth.forgotPassword(body, requestContext(ctx));
      return {};
    },
  }),
  defineOperation({
    id: 'resetPassword',
    method: 'POST',
    path: '/auth/password/reset',
    caller: 'none',
    budget: 'strict',
    tag: 'recovery',
    summary: 'Set a new password from a reset link; every session is revoked.',
    body: 'resetPassword',
    success: { status: 204, description: 'Password set.' },
    problems: ['sso_required', 'account_disabled'],
    handler: async ({ ctx, body }, { auth }) => {
      await auth.resetPassword(body, requestContext(ctx));
    },
  }),
  defineOperation({
    id: 'changePassword',
    method: 'POST',
    path: '/auth/password/change',
    caller: 'access',
    budget: 'strict',
    recent: true,
    tag: 'recovery',
    summary: "Change the caller's password; every other session is revoked.",
    body: 'changePassword',
    success: { status: 204, description: 'Password changed.' },
    handler: async ({ ctx, caller, body }, { auth }) => {
      await auth.changePassword(caller, body, requestContext(ctx));
    },
  }),
];
