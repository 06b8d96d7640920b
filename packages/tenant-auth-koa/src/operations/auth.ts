import type { Context } from 'koa';
import { isTenantAuthError, type LoginInput, type RegisterInput, TenantAuthError } from 'tenant-auth-core';
import { clearTokenCookies, setTokenCookies } from '../cookies.js';
import { assertSameOriginRequest } from '../csrf.js';
import { registerResponseSchema, tokenResponseSchema } from '../http-contract.js';
import { requestContext } from '../request-context.js';
import { type FoundToken, findToken } from '../request-tokens.js';
import { toRegisterResponse, toTokenResponse } from '../serialize.js';
import { type BodyOf, defineOperation, type Same } from './define.js';

// The bodies are core's inputs, field for field: a field renamed on either side fails to compile here.
true satisfies Same<BodyOf<'register'>, RegisterInput>;
true satisfies Same<BodyOf<'login'>, LoginInput>;

/** A token found in a cookie may only be used by an allowed origin to change state. */
function checkOrigin(ctx: Context, found: FoundToken | undefined, origins: ReadonlySet<string>): FoundToken {
  if (found === undefined) throw new TenantAuthError('invalid_token', 'A token is required.');
  if (found.via === 'cookie') assertSameOriginRequest(ctx, origins);
  return found;
}

/** @internal Registration, login, refresh and logout. */
export const AUTH_OPERATIONS = [
  defineOperation({
    id: 'register',
    method: 'POST',
    path: '/auth/register',
    caller: 'none',
    budget: 'strict',
    tag: 'auth',
    summary: 'Create a tenant and its owner, and log in.',
    description: 'A verification email is sent to the address.',
    body: 'register',
    success: {
      status: 201,
      body: registerResponseSchema,
      description: 'Registered and logged in; cookies set.',
      cookies: 'set',
    },
    handler: async ({ ctx, body }, { auth, cookies }) => {
      const result = await auth.register(body, requestContext(ctx));
      setTokenCookies(ctx, cookies, result);
      return toRegisterResponse(result);
    },
  }),
  defineOperation({
    id: 'login',
    method: 'POST',
    path: '/auth/login',
    caller: 'none',
    budget: 'strict',
    tag: 'auth',
    summary: 'Log in with email and password.',
    description:
      'When the user has a second factor: `401 mfa_required` with an `mfaToken` for `POST /auth/mfa/verify` (no session, no cookie). When the tenant requires one and the user has none: `401 mfa_setup_required` with an `mfaToken` to enrol with.',
    body: 'login',
    success: {
      status: 200,
      body: tokenResponseSchema,
      description: 'Logged in; cookies set.',
      cookies: 'set',
    },
    problems: [
      'mfa_required',
      'mfa_setup_required',
      'invalid_credentials',
      'sso_required',
      'account_disabled',
    ],
    handler: async ({ ctx, body }, { auth, cookies }) => {
      const result = await auth.login(body, requestContext(ctx));
      setTokenCookies(ctx, cookies, result);
      return toTokenResponse(result);
    },
  }),
  defineOperation({
    id: 'refresh',
    method: 'POST',
    path: '/auth/refresh',
    caller: 'refresh',
    budget: 'strict',
    tag: 'auth',
    summary: 'Rotate a refresh token.',
    description:
      'The refresh token is read from `Authorization: Bearer`, then the `refreshToken` field, then the refresh cookie. Requests presenting the same token within the reuse grace period all receive the same new token; a token presented after that is a replay, and revokes the session.',
    body: 'refresh',
    bodyOptional: true,
    success: {
      status: 200,
      body: tokenResponseSchema,
      description: 'A new token pair; cookies set.',
      cookies: 'set',
    },
    handler: async ({ ctx }, { auth, cookies, origins }) => {
      const places = { bodyField: 'refreshToken', cookies: cookies.read ? [cookies.refreshName] : [] };
      const found = checkOrigin(ctx, findToken(ctx, places), origins);
      try {
        const result = await auth.refresh(found.token, requestContext(ctx));
        setTokenCookies(ctx, cookies, result);
        return toTokenResponse(result);
      } catch (err) {
        // A refresh cookie that no longer works (expired, revoked, replayed) is useless to the browser.
        if (found.via === 'cookie' && isTenantAuthError(err, 'invalid_token'))
          clearTokenCookies(ctx, cookies);
        throw err;
      }
    },
  }),
  defineOperation({
    id: 'logout',
    method: 'POST',
    path: '/auth/logout',
    caller: 'logout',
    budget: 'general',
    tag: 'auth',
    summary: 'Revoke the session of an access or refresh token, and clear the cookies.',
    success: { status: 204, description: 'Logged out; cookies cleared.', cookies: 'cleared' },
    handler: async ({ ctx }, { auth, cookies, origins }) => {
      const places = { cookies: cookies.read ? [cookies.refreshName, cookies.accessName] : [] };
      const found = checkOrigin(ctx, findToken(ctx, places), origins);
      // Cleared whatever happens next: a client asking to log out must not keep its cookies.
      clearTokenCookies(ctx, cookies);
      await auth.logout(found.token, requestContext(ctx));
    },
  }),
];
