import type { Context } from 'koa';
import {
  type ConfirmTotpInput,
  fieldError,
  type MfaCaller,
  type ReauthenticateInput,
  type SecurityPolicy,
  TenantAuthError,
  type VerifyMfaInput,
  validationError,
} from 'tenant-auth-core';
import { setTokenCookies } from '../cookies.js';
import { authenticate, keyRefused } from '../guards.js';
import {
  recoveryCodesSchema,
  securityPolicySchema,
  tokenResponseSchema,
  totpConfirmResponseSchema,
  totpSetupSchema,
} from '../http-contract.js';
import { requestBody } from '../request-body.js';
import { requestContext } from '../request-context.js';
import { toTokenResponse } from '../serialize.js';
import { type BodyOf, defineOperation, type RouteSettings, type Same } from './define.js';

// The bodies are core's inputs, field for field (an `mfaToken` picks the caller of the enrolment routes; a
// passkey's `credential` is core's to check, `unknown` there).
true satisfies Same<Omit<BodyOf<'verifyMfa'>, 'credential'>, Omit<VerifyMfaInput, 'credential'>>;
true satisfies Same<Omit<BodyOf<'confirmTotp'>, 'mfaToken'>, ConfirmTotpInput>;
true satisfies Same<Omit<BodyOf<'reauthenticate'>, 'credential'>, Omit<ReauthenticateInput, 'credential'>>;
true satisfies Same<BodyOf<'setSecurityPolicy'>, SecurityPolicy>;

/**
 * @internal Who enrols a factor: the `mfaToken` of a `mfa_setup_required` when the body has one, else the caller
 * of an access token (header, then cookie; a cookie only from an allowed origin).
 */
export async function enrollingCaller(ctx: Context, settings: RouteSettings): Promise<MfaCaller> {
  const body = requestBody(ctx);
  const mfaToken =
    typeof body === 'object' && body !== null ? (body as { mfaToken?: unknown }).mfaToken : undefined;
  if (typeof mfaToken === 'string') return { mfaToken };
  if (mfaToken !== undefined && mfaToken !== null) {
    throw validationError([fieldError('mfaToken', 'invalid_type', 'mfaToken must be a string.')]);
  }
  const tokenPlaces = { cookies: settings.cookies.read ? [settings.cookies.accessName] : [] };
  const verifying = authenticate(settings.auth, ctx, { tokenPlaces, origins: settings.origins });
  if (verifying === undefined)
    throw new TenantAuthError('invalid_token', 'An access token or an mfaToken is required.');
  const claims = await verifying;
  if (claims.actorType === 'api_key') throw keyRefused();
  return { claims };
}

/** @internal Second factors (TOTP, recovery codes) and recent authentication. */
export const MFA_OPERATIONS = [
  defineOperation({
    id: 'verifyMfa',
    method: 'POST',
    path: '/auth/mfa/verify',
    caller: 'none',
    budget: 'strict',
    tag: 'mfa',
    summary: 'Answer the second-factor challenge of a login, and log in.',
    description:
      'With the `mfaToken` of a `mfa_required` answer: a TOTP code, or a recovery code (used up). A wrong code counts against the token (five wrong answers end it) and against the per-account second-factor budget, never against the password throttle. A user its tenant has since held to single sign-on (`enforce`) gets `403 sso_required`.',
    body: 'verifyMfa',
    success: {
      status: 200,
      body: tokenResponseSchema,
      description: 'Logged in, `amr` `["pwd","otp","mfa"]`; cookies set.',
      cookies: 'set',
    },
    problems: ['invalid_token', 'sso_required', 'account_disabled'],
    handler: async ({ ctx, body }, { auth, cookies }) => {
      const result = await auth.verifyMfa(body, requestContext(ctx));
      setTokenCookies(ctx, cookies, result);
      return toTokenResponse(result);
    },
  }),
  defineOperation({
    id: 'setupTotp',
    method: 'POST',
    path: '/auth/mfa/totp/setup',
    caller: 'setup',
    budget: 'general',
    tag: 'mfa',
    summary: 'Start enrolling a TOTP factor: a new secret, to confirm with a code.',
    description:
      'With a recent access token, or the `mfaToken` of a `mfa_setup_required`. Replaces an unconfirmed setup.',
    body: 'setupTotp',
    bodyOptional: true,
    recent: true,
    success: { status: 200, body: totpSetupSchema, description: 'The secret, shown this once.' },
    problems: ['already_enabled', 'sso_required', 'account_disabled'],
    handler: async ({ ctx }, settings) =>
      settings.auth.setupTotp(await enrollingCaller(ctx, settings), requestContext(ctx)),
  }),
  defineOperation({
    id: 'confirmTotp',
    method: 'POST',
    path: '/auth/mfa/totp/confirm',
    caller: 'setup',
    budget: 'strict',
    tag: 'mfa',
    summary: 'Confirm a TOTP setup with a code; every other session of the user is revoked.',
    description:
      'With the `mfaToken` of a `mfa_setup_required`, the answer is also the token response of a new session (`amr` `["pwd","otp","mfa"]`), and sets the cookies.',
    body: 'confirmTotp',
    recent: true,
    success: {
      status: 200,
      body: totpConfirmResponseSchema,
      description:
        'The recovery codes (`null` when the earlier ones stay), with an `mfaToken` the tokens too.',
    },
    problems: ['sso_required', 'account_disabled'],
    handler: async ({ ctx, body }, settings) => {
      const caller = await enrollingCaller(ctx, settings);
      const input = { code: body.code, deviceInfo: body.deviceInfo };
      const result = await settings.auth.confirmTotp(caller, input, requestContext(ctx));
      if (result.tokens === null) return { recoveryCodes: result.recoveryCodes };
      setTokenCookies(ctx, settings.cookies, result.tokens);
      return { ...toTokenResponse(result.tokens), recoveryCodes: result.recoveryCodes };
    },
  }),
  defineOperation({
    id: 'disableTotp',
    method: 'DELETE',
    path: '/auth/mfa/totp',
    caller: 'access',
    budget: 'general',
    tag: 'mfa',
    summary: "Remove the caller's TOTP factor; its recovery codes go too when no other factor remains.",
    recent: true,
    success: { status: 204, description: 'Removed.' },
    problems: ['not_found', 'mfa_required_by_tenant'],
    handler: async ({ ctx, caller }, { auth }) => {
      await auth.disableTotp(caller, requestContext(ctx));
    },
  }),
  defineOperation({
    id: 'regenerateRecoveryCodes',
    method: 'POST',
    path: '/auth/mfa/recovery-codes',
    caller: 'access',
    budget: 'general',
    tag: 'mfa',
    summary: 'A new set of recovery codes; the old set stops working.',
    recent: true,
    success: { status: 200, body: recoveryCodesSchema, description: 'The new codes, shown this once.' },
    problems: ['mfa_not_enabled'],
    handler: async ({ ctx, caller }, { auth }) => auth.regenerateRecoveryCodes(caller, requestContext(ctx)),
  }),
  defineOperation({
    id: 'reauthenticate',
    method: 'POST',
    path: '/auth/reauthenticate',
    caller: 'access',
    budget: 'strict',
    tag: 'mfa',
    summary: 'Prove who you are again: new tokens for the same session, `auth_time` now.',
    description:
      'A user without a factor sends `password`; a user with one sends `password` and `method` + `code`. Wrong passwords count towards the per-account login throttle, wrong codes towards the second-factor budget. A user held to single sign-on by `enforce` re-authenticates at its provider: `403 sso_required` here.',
    body: 'reauthenticate',
    problems: ['sso_required'],
    success: {
      status: 200,
      body: tokenResponseSchema,
      description: 'The token response of the same session; cookies set.',
      cookies: 'set',
    },
    handler: async ({ ctx, caller, body }, { auth, cookies }) => {
      const result = await auth.reauthenticate(caller, body, requestContext(ctx));
      setTokenCookies(ctx, cookies, result);
      return toTokenResponse(result);
    },
  }),
  defineOperation({
    id: 'getSecurityPolicy',
    method: 'GET',
    path: '/tenants/me/security',
    caller: 'admin',
    budget: 'general',
    tag: 'tenants',
    summary: "The tenant's security policy.",
    success: { status: 200, body: securityPolicySchema, description: 'The policy.' },
    handler: async ({ caller }, { auth }) => auth.getSecurityPolicy(caller),
  }),
  defineOperation({
    id: 'setSecurityPolicy',
    method: 'PATCH',
    path: '/tenants/me/security',
    caller: 'access',
    budget: 'general',
    tag: 'tenants',
    summary: "Change the tenant's security policy (owner).",
    description:
      'Turning `requireMfa` on revokes at once every session of the tenant whose `amr` has neither `mfa` nor `sso`.',
    body: 'setSecurityPolicy',
    recent: true,
    success: { status: 200, body: securityPolicySchema, description: 'The policy.' },
    problems: ['forbidden', 'mfa_not_enabled'],
    handler: async ({ ctx, caller, body }, { auth }) =>
      auth.setSecurityPolicy(caller, body, requestContext(ctx)),
  }),
];
