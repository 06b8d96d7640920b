import type { Context } from 'koa';
import type { ConfigureSsoInput, Domain, SsoConnection } from 'tenant-auth-core';
import { readCookie, serializeCookie, setTokenCookies } from '../cookies.js';
import { requestContext } from '../request-context.js';
import {
  domainListSchema,
  domainResponseSchema,
  ssoResponseSchema,
  ssoStartSchema,
} from '../sso-contract.js';
import { type BodyOf, defineOperation, type Same } from './define.js';

true satisfies Same<BodyOf<'addDomain'>, { domain: string }>;
true satisfies Same<BodyOf<'configureSso'>, ConfigureSsoInput>;
true satisfies Same<BodyOf<'startSso'>, { email: string; returnTo?: string | undefined }>;

/** The cookie that binds a started sign-in to the browser (API.md 1.2). */
const SSO_STATE_COOKIE = 'sso_state';

const toDomainJson = (domain: Domain) => ({
  name: domain.name,
  verified: domain.verified,
  createdAt: domain.createdAt.toISOString(),
  verifiedAt: domain.verifiedAt?.toISOString() ?? null,
  verification: domain.verification,
});

const toSsoJson = (sso: SsoConnection | null) => ({
  sso: sso && { ...sso, updatedAt: sso.updatedAt.toISOString() },
});

function setStateCookie(ctx: Context, prefix: string, value: string, maxAgeSeconds: number): void {
  ctx.append(
    'Set-Cookie',
    serializeCookie(SSO_STATE_COOKIE, value, { path: `${prefix}/auth/sso`, sameSite: 'Lax', maxAgeSeconds }),
  );
}

const DOMAIN_PARAM = { name: 'The domain name.' } as const;

/** @internal Single sign-on: the tenant's domains and connection, and signing in through it. */
export const SSO_OPERATIONS = [
  defineOperation({
    id: 'addDomain',
    method: 'POST',
    path: '/tenants/me/domains',
    caller: 'access',
    budget: 'general',
    tag: 'sso',
    summary: 'Add an email domain to the tenant (owner), with the TXT record that will prove it.',
    body: 'addDomain',
    recent: true,
    success: { status: 201, body: domainResponseSchema, description: 'The domain, unverified.' },
    problems: ['forbidden', 'domain_taken'],
    handler: async ({ ctx, caller, body }, { auth }) => ({
      domain: toDomainJson(await auth.addDomain(caller, body, requestContext(ctx))),
    }),
  }),
  defineOperation({
    id: 'listDomains',
    method: 'GET',
    path: '/tenants/me/domains',
    caller: 'admin',
    budget: 'general',
    tag: 'sso',
    summary: "The tenant's email domains.",
    success: { status: 200, body: domainListSchema, description: 'The domains, oldest first.' },
    handler: async ({ caller }, { auth }) => ({
      domains: (await auth.listDomains(caller)).map(toDomainJson),
    }),
  }),
  defineOperation({
    id: 'verifyDomain',
    method: 'POST',
    path: '/tenants/me/domains/:name/verify',
    caller: 'access',
    budget: 'general',
    tag: 'sso',
    summary: 'Verify a domain (owner) once its TXT record holds the value.',
    params: DOMAIN_PARAM,
    recent: true,
    success: { status: 200, body: domainResponseSchema, description: 'The domain, verified.' },
    problems: ['forbidden', 'not_found', 'domain_not_verified', 'domain_taken'],
    handler: async ({ ctx, caller, params }, { auth }) => ({
      domain: toDomainJson(await auth.verifyDomain(caller, params.name, requestContext(ctx))),
    }),
  }),
  defineOperation({
    id: 'removeDomain',
    method: 'DELETE',
    path: '/tenants/me/domains/:name',
    caller: 'access',
    budget: 'general',
    tag: 'sso',
    summary: 'Remove a domain of the tenant (owner).',
    params: DOMAIN_PARAM,
    recent: true,
    success: { status: 204, description: 'Removed.' },
    problems: ['forbidden', 'not_found'],
    handler: async ({ ctx, caller, params }, { auth }) => {
      await auth.removeDomain(caller, params.name, requestContext(ctx));
    },
  }),
  defineOperation({
    id: 'configureSso',
    method: 'PUT',
    path: '/tenants/me/sso',
    caller: 'access',
    budget: 'general',
    tag: 'sso',
    summary: "Connect the tenant's OpenID Connect provider (owner).",
    description:
      "The issuer's discovery document is fetched and checked first (`issuer`: `issuer_unreachable`). The client secret is stored sealed and never returned. Turning `enforce` on revokes the password and passkey sessions of the users it holds.",
    body: 'configureSso',
    recent: true,
    success: { status: 200, body: ssoResponseSchema, description: 'The connection.' },
    problems: ['forbidden'],
    handler: async ({ ctx, caller, body }, { auth }) =>
      toSsoJson(await auth.configureSso(caller, body, requestContext(ctx))),
  }),
  defineOperation({
    id: 'getSso',
    method: 'GET',
    path: '/tenants/me/sso',
    caller: 'admin',
    budget: 'general',
    tag: 'sso',
    summary: "The tenant's OpenID Connect connection (never the client secret).",
    success: { status: 200, body: ssoResponseSchema, description: 'The connection, or `null`.' },
    handler: async ({ caller }, { auth }) => toSsoJson(await auth.getSso(caller)),
  }),
  defineOperation({
    id: 'removeSso',
    method: 'DELETE',
    path: '/tenants/me/sso',
    caller: 'access',
    budget: 'general',
    tag: 'sso',
    summary: "Remove the tenant's OpenID Connect connection (owner).",
    recent: true,
    success: { status: 204, description: 'Removed.' },
    problems: ['forbidden', 'not_found'],
    handler: async ({ ctx, caller }, { auth }) => {
      await auth.removeSso(caller, requestContext(ctx));
    },
  }),
  defineOperation({
    id: 'startSso',
    method: 'POST',
    path: '/auth/sso/start',
    caller: 'none',
    budget: 'strict',
    tag: 'sso',
    summary: "Start signing in through the identity provider of the address's domain.",
    description:
      'Sets the `sso_state` cookie (`HttpOnly; Secure; SameSite=Lax; Path=<prefix>/auth/sso; Max-Age=600`), which binds `state`, `nonce` and the PKCE verifier to this browser.',
    body: 'startSso',
    success: {
      status: 200,
      body: ssoStartSchema,
      description: 'The authorization URL to send the browser to.',
    },
    problems: ['not_found'],
    handler: async ({ ctx, body }, { auth, prefix }) => {
      const started = await auth.startSso(body);
      setStateCookie(ctx, prefix, started.stateCookie, started.maxAgeSeconds);
      return { url: started.url };
    },
  }),
  defineOperation({
    id: 'ssoCallback',
    method: 'GET',
    path: '/auth/sso/callback',
    caller: 'none',
    budget: 'general',
    tag: 'sso',
    summary: "The identity provider's redirect back: a new session, then `303` to the application.",
    description:
      '`303` to `returnTo` (or `APP_URL`) with the auth cookies of a new session (`amr` `["sso"]`), or to `APP_URL/sso-error?code=<code>` (`invalid_state`, `idp_error`, `invalid_id_token`, `domain_mismatch`, `email_taken`, `identity_mismatch`). The `sso_state` cookie is cleared either way.',
    query: 'ssoCallbackQuery',
    success: { status: 303, description: 'To the application, or to its error page.', cookies: 'set' },
    answersItself: true,
    handler: async ({ ctx }, { auth, cookies, prefix }) => {
      const result = await auth.completeSso(
        { stateCookie: readCookie(ctx, SSO_STATE_COOKIE), search: ctx.search },
        requestContext(ctx),
      );
      setStateCookie(ctx, prefix, '', 0);
      if (result.ok) setTokenCookies(ctx, cookies, result.tokens);
      ctx.set('Cache-Control', 'no-store');
      ctx.status = 303;
      ctx.set('Location', result.redirectTo);
      // No body (Koa would write "See Other"): the browser follows Location.
      ctx.body = '';
    },
  }),
];
