import type { PasskeyInfo } from 'tenant-auth-core';
import { setTokenCookies } from '../cookies.js';
import {
  addPasskeyResponseSchema,
  creationOptionsSchema,
  passkeyListSchema,
  requestOptionsSchema,
  tokenResponseSchema,
} from '../http-contract.js';
import { requestContext } from '../request-context.js';
import { toTokenResponse } from '../serialize.js';
import { defineOperation } from './define.js';
import { enrollingCaller } from './mfa.js';

const toPasskeyJson = (p: PasskeyInfo) => ({
  id: p.id,
  name: p.name,
  createdAt: p.createdAt.toISOString(),
  lastUsedAt: p.lastUsedAt?.toISOString() ?? null,
});

/** @internal Passkeys (WebAuthn): registration, passwordless login, the second factor's options, management. */
export const PASSKEY_OPERATIONS = [
  defineOperation({
    id: 'passkeyRegistrationOptions',
    method: 'POST',
    path: '/auth/passkeys/registration/options',
    caller: 'setup',
    budget: 'general',
    tag: 'mfa',
    summary: 'WebAuthn creation options for a new passkey of the caller.',
    description:
      'With a recent access token, or the `mfaToken` of a `mfa_setup_required`. `excludeCredentials` lists the caller’s passkeys; a discoverable credential and user verification are required.',
    body: 'passkeyRegistrationOptions',
    bodyOptional: true,
    recent: true,
    success: { status: 200, body: creationOptionsSchema, description: 'The creation options (JSON form).' },
    problems: ['sso_required', 'account_disabled'],
    handler: async ({ ctx }, settings) =>
      settings.auth.passkeyRegistrationOptions(await enrollingCaller(ctx, settings)),
  }),
  defineOperation({
    id: 'addPasskey',
    method: 'POST',
    path: '/auth/passkeys',
    caller: 'setup',
    budget: 'strict',
    tag: 'mfa',
    summary: 'Register a passkey with the response of `navigator.credentials.create()`.',
    description:
      'With a setup `mfaToken`, the answer is also the token response of a new session (`amr` `["pwd","hwk","mfa"]`) and the recovery codes, and sets the cookies.',
    body: 'addPasskey',
    recent: true,
    success: {
      status: 201,
      body: addPasskeyResponseSchema,
      description: 'The passkey; with an `mfaToken` the tokens and recovery codes too.',
    },
    problems: ['sso_required', 'account_disabled'],
    handler: async ({ ctx, body }, settings) => {
      const caller = await enrollingCaller(ctx, settings);
      const input = { credential: body.credential, name: body.name, deviceInfo: body.deviceInfo };
      const result = await settings.auth.addPasskey(caller, input, requestContext(ctx));
      const passkey = toPasskeyJson(result.passkey);
      if (result.tokens === null) return { passkey };
      setTokenCookies(ctx, settings.cookies, result.tokens);
      return { ...toTokenResponse(result.tokens), recoveryCodes: result.recoveryCodes, passkey };
    },
  }),
  defineOperation({
    id: 'listPasskeys',
    method: 'GET',
    path: '/auth/passkeys',
    caller: 'access',
    budget: 'general',
    tag: 'mfa',
    summary: "The caller's passkeys.",
    success: { status: 200, body: passkeyListSchema, description: 'Oldest first.' },
    handler: async ({ caller }, { auth }) => ({
      passkeys: (await auth.listPasskeys(caller)).map(toPasskeyJson),
    }),
  }),
  defineOperation({
    id: 'removePasskey',
    method: 'DELETE',
    path: '/auth/passkeys/:id',
    caller: 'access',
    budget: 'general',
    tag: 'mfa',
    summary: 'Remove a passkey of the caller; its recovery codes go too when no other factor remains.',
    params: { id: 'Passkey id.' },
    recent: true,
    success: { status: 204, description: 'Removed.' },
    problems: ['not_found', 'mfa_required_by_tenant'],
    handler: async ({ ctx, caller, params }, { auth }) => {
      await auth.removePasskey(caller, params.id, requestContext(ctx));
    },
  }),
  defineOperation({
    id: 'passkeyLoginOptions',
    method: 'POST',
    path: '/auth/passkeys/login/options',
    caller: 'none',
    budget: 'strict',
    tag: 'auth',
    summary:
      'WebAuthn request options for a passkey login (discoverable credentials: no `allowCredentials`).',
    success: { status: 200, body: requestOptionsSchema, description: 'The request options (JSON form).' },
    handler: async (_input, { auth }) => auth.passkeyLoginOptions(),
  }),
  defineOperation({
    id: 'passkeyLogin',
    method: 'POST',
    path: '/auth/passkeys/login',
    caller: 'none',
    budget: 'strict',
    tag: 'auth',
    summary: 'Log in with a passkey (the response of `navigator.credentials.get()`).',
    description:
      'One answer, `401 invalid_credentials`, for an unknown credential, a bad signature, and an unknown or used challenge.',
    body: 'passkeyLogin',
    success: {
      status: 200,
      body: tokenResponseSchema,
      description: 'Logged in, `amr` `["hwk","mfa"]`; cookies set.',
      cookies: 'set',
    },
    problems: ['invalid_credentials', 'sso_required', 'account_disabled'],
    handler: async ({ ctx, body }, { auth, cookies }) => {
      const result = await auth.loginWithPasskey(body, requestContext(ctx));
      setTokenCookies(ctx, cookies, result);
      return toTokenResponse(result);
    },
  }),
  defineOperation({
    id: 'mfaPasskeyOptions',
    method: 'POST',
    path: '/auth/mfa/passkey/options',
    caller: 'none',
    budget: 'strict',
    tag: 'mfa',
    summary: "WebAuthn request options listing the passkeys of a `mfa_required` challenge's user.",
    body: 'mfaPasskeyOptions',
    success: { status: 200, body: requestOptionsSchema, description: 'The request options (JSON form).' },
    problems: ['invalid_token'],
    handler: async ({ body }, { auth }) => auth.mfaPasskeyOptions(body),
  }),
  defineOperation({
    id: 'reauthenticationOptions',
    method: 'POST',
    path: '/auth/reauthenticate/options',
    caller: 'access',
    budget: 'general',
    tag: 'mfa',
    summary: "WebAuthn request options for re-authenticating with one of the caller's passkeys.",
    success: { status: 200, body: requestOptionsSchema, description: 'The request options (JSON form).' },
    handler: async ({ caller }, { auth }) => auth.reauthenticationOptions(caller),
  }),
];
