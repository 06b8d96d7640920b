import type { ChangeEmailInput, TenantAuth } from 'tenant-auth-core';
import { acceptedSchema } from '../http-contract.js';
import { requestContext } from '../request-context.js';
import { type BodyOf, defineOperation, type Same } from './define.js';

true satisfies Same<BodyOf<'verifyEmail'>, Parameters<TenantAuth['verifyEmail']>[0]>;
true satisfies Same<BodyOf<'changeEmail'>, ChangeEmailInput>;
true satisfies Same<BodyOf<'confirmEmailChange'>, Parameters<TenantAuth['confirmEmailChange']>[0]>;

/** @internal Verifying the email address, and changing it. */
export const EMAIL_OPERATIONS = [
  defineOperation({
    id: 'requestEmailVerification',
    method: 'POST',
    path: '/auth/email/verification',
    caller: 'access',
    budget: 'strict',
    tag: 'recovery',
    summary: 'Send the caller a verification link (nothing when already verified).',
    success: { status: 202, body: acceptedSchema, description: '`{}`.' },
    handler: async ({ ctx, caller }, { auth }) => {
      await auth.requestEmailVerification(caller, requestContext(ctx));
      return {};
    },
  }),
  defineOperation({
    id: 'verifyEmail',
    method: 'POST',
    path: '/auth/email/verify',
    caller: 'none',
    budget: 'strict',
    tag: 'recovery',
    summary: 'Mark the email verified from its link.',
    body: 'verifyEmail',
    success: { status: 204, description: 'Verified.' },
    handler: async ({ ctx, body }, { auth }) => {
      await auth.verifyEmail(body, requestContext(ctx));
    },
  }),
  defineOperation({
    id: 'changeEmail',
    method: 'POST',
    path: '/auth/email/change',
    caller: 'access',
    budget: 'strict',
    recent: true,
    tag: 'recovery',
    summary: 'Ask to change the email: a link to the new address, a notice to the old one.',
    body: 'changeEmail',
    success: { status: 202, body: acceptedSchema, description: '`{}`.' },
    problems: ['sso_required'],
    handler: async ({ ctx, caller, body }, { auth }) => {
      await auth.changeEmail(caller, body, requestContext(ctx));
      return {};
    },
  }),
  defineOperation({
    id: 'confirmEmailChange',
    method: 'POST',
    path: '/auth/email/change/confirm',
    caller: 'none',
    budget: 'strict',
    tag: 'recovery',
    summary: 'Confirm an email change from its link; every other session is revoked.',
    body: 'confirmEmailChange',
    success: { status: 204, description: 'Changed.' },
    problems: ['sso_required'],
    handler: async ({ ctx, body }, { auth }) => {
      await auth.confirmEmailChange(body, requestContext(ctx));
    },
  }),
];
