import type { Context } from 'koa';
import {
  type ConfigureSsoInput,
  type Domain,
  type SsoCompletion,
  type SsoConnection,
  TenantAuthError,
} from 'tenant-auth-core';
import { FORM_MEDIA_TYPE } from '../body-rules.js';
import { readCookie, serializeCookie, setTokenCookies } from '../cookies.js';
import { requestContext } from '../request-context.js';
import {
  domainListSchema,
  domainResponseSchema,
  ssoConnectionSchema,
  ssoResponseSchema,
  ssoStartSchema,
} from '../sso-contract.js';
import { type BodyOf, defineOperation, type Same } from './define.js';

true satisfies Same<BodyOf<'addDomain'>, { domain: string }>;
// The body of `PUT /tenants/me/sso` is one protocol's input: what core takes for any protocol.
true satisfies BodyOf<'configureSso'> extends ConfigureSsoInput ? true : false;
true satisfies Same<BodyOf<'startSso'>, { email: string; returnTo?: string | undefined }>;
true satisfies Same<BodyOf<'reauthenticateSso'>, { returnTo?: string | undefined }>;

/** The cookie that binds a started sign-in to the browser (docs/http-api.md, "Single sign-on (OpenID Connect) per tenant"). */
const SSO_STATE_COOKIE = 'sso_state';

const toDomainJson = (domain: Domain) => ({
  name: domain.name,
  verified: domain.verified,
  createdAt: domain.createdAt.toISOString(),
  verifiedAt: domain.verifiedAt?.toISOString() ?? null,
  verification: domain.verification,
});

/** The connection as the contract's schema shows it: the fields it names, of whatever protocol. */
const toSsoJson = (sso: SsoConnection | null) => ({
  sso: sso && ssoConnectionSchema.parse({ ...sso, updatedAt: sso.updatedAt.toISOString() }),
});

/**
 * Sets (or, with `maxAgeSeconds` 0, clears) the `sso_state` cookie. `SameSite` is the protocol's: `Lax`
 * when the provider redirects the browser back, `None` when it posts it back across sites (a `Lax`
 * cookie is not sent on a cross-site `POST`).
 */
function setStateCookie(
  ctx: Context,
  prefix: string,
  value: string,
  maxAgeSeconds: number,
  sameSite: 'Lax' | 'None' = 'Lax',
): void {
  ctx.append(
    'Set-Cookie',
    serializeCookie(SSO_STATE_COOKIE, value, { path: `${prefix}/auth/sso`, sameSite, maxAgeSeconds }),
  );
}

/** @internal A query or form body as the provider's answer: each parameter sent once (one sent twice is left out). */
export function answerParams(search: URLSearchParams): Record<string, string> {
  const params: Record<string, string> = {};
  const twice = new Set<string>();
  for (const [name, value] of search) {
    if (Object.hasOwn(params, name)) twice.add(name);
    else params[name] = value;
  }
  for (const name of twice) delete params[name];
  return params;
}

const DOMAIN_PARAM = { name: 'The domain name.' } as const;
const TENANT_PARAM = { tenantId: "The tenant whose service provider it is (the tenant's ID)." } as const;

/** The largest body of `PUT /tenants/me/sso`: 512 KiB of metadata XML, escaped in JSON. */
const SSO_CONFIGURE_LIMIT_BYTES = 640 * 1024;

/** The largest form the ACS takes (docs/http-api.md: up to 256 KiB). */
const ACS_LIMIT_BYTES = 256 * 1024;

/** `303` to where core sends the browser after an answer of the provider, the `sso_state` cookie cleared. */
function redirectAfterSso(
  ctx: Context,
  result: SsoCompletion,
  settings: { cookies: Parameters<typeof setTokenCookies>[1]; prefix: string },
  sameSite: 'Lax' | 'None',
): void {
  setStateCookie(ctx, settings.prefix, '', 0, sameSite);
  if (result.ok) setTokenCookies(ctx, settings.cookies, result.tokens);
  ctx.set('Cache-Control', 'no-store');
  ctx.status = 303;
  ctx.set('Location', result.redirectTo);
  // No body (Koa would write "See Other"): the browser follows Location.
  ctx.body = '';
}

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
    summary: "Connect the tenant's identity provider, OpenID Connect or SAML 2.0 (owner).",
    description:
      'OpenID Connect: the issuer\'s discovery document is fetched and checked first (`issuer`: `issuer_unreachable`); the client secret is stored sealed and never returned. SAML (`protocol: "saml"`): the IdP\'s `metadataXml` (`invalid_metadata`), or `entityId`, `ssoUrl` (`invalid_url`) and PEM `certificates` (`invalid_certificate`: not a certificate, expired, or an RSA key under 2048 bits); the body may be up to 640 KiB. Turning `enforce` on revokes the password and passkey sessions of the users it holds.',
    body: 'configureSso',
    // A SAML identity provider's metadata (Entra ID's is about 25 KiB; up to 512 KiB taken), as JSON text.
    request: { limitBytes: SSO_CONFIGURE_LIMIT_BYTES },
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
    summary: "The tenant's SSO connection, OpenID Connect or SAML (never the client secret).",
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
    summary: "Remove the tenant's SSO connection (owner).",
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
      'Sets the `sso_state` cookie (`HttpOnly; Secure; SameSite=Lax; Path=<prefix>/auth/sso; Max-Age=600`; `SameSite=None` for a protocol whose provider posts the browser back), which binds `state`, the tenant and what the protocol keeps (OpenID Connect: `nonce` and the PKCE verifier) to this browser.',
    body: 'startSso',
    success: {
      status: 200,
      body: ssoStartSchema,
      description: 'The authorization URL to send the browser to.',
    },
    problems: ['not_found'],
    handler: async ({ ctx, body }, { auth, prefix }) => {
      const started = await auth.startSso(body);
      setStateCookie(ctx, prefix, started.stateCookie, started.maxAgeSeconds, started.sameSite);
      return { url: started.url };
    },
  }),
  defineOperation({
    id: 'reauthenticateSso',
    method: 'POST',
    path: '/auth/sso/reauthenticate',
    caller: 'access',
    budget: 'strict',
    tag: 'sso',
    summary: "Prove who you are again at the tenant's identity provider, for the same session.",
    description:
      "For any user of a tenant with an SSO connection (it is also how an owner links its identity). Sets the `sso_state` cookie as `POST /auth/sso/start` does; the authorization URL asks the provider for a fresh login (`prompt=login`, `max_age=0`). The callback checks that the provider authenticated the user's own identity (`identity_mismatch`; an owner without one links it when the provider's verified address is the owner's, and only from a recent session: otherwise `403 reauthentication_required`) within `REAUTH_MAX_AGE_SECONDS` (`invalid_id_token`), then rotates the same session (`auth_time` now, `amr` keeps `sso`) and `303`s to `returnTo` with its auth cookies. A refused one leaves the session as it was.",
    body: 'reauthenticateSso',
    success: {
      status: 200,
      body: ssoStartSchema,
      description: 'The authorization URL to send the browser to.',
    },
    problems: ['not_found', 'reauthentication_required'],
    handler: async ({ ctx, caller, body }, { auth, prefix }) => {
      const started = await auth.reauthenticateSso(caller, body);
      setStateCookie(ctx, prefix, started.stateCookie, started.maxAgeSeconds, started.sameSite);
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
      '`303` to `returnTo` (or `APP_URL`) with the auth cookies of a new session (`amr` `["sso"]`), or to `APP_URL/sso-error?code=<code>` (`invalid_state`, `idp_error`, `invalid_id_token`, `domain_mismatch`, `email_taken`, `identity_mismatch`, `email_not_verified`, `link_required`, `account_disabled`). The `sso_state` cookie is cleared either way.',
    query: 'ssoCallbackQuery',
    success: { status: 303, description: 'To the application, or to its error page.', cookies: 'set' },
    answersItself: true,
    handler: async ({ ctx }, { auth, cookies, prefix }) => {
      const result = await auth.completeSso(
        {
          stateCookie: readCookie(ctx, SSO_STATE_COOKIE),
          params: answerParams(new URLSearchParams(ctx.querystring)),
        },
        requestContext(ctx),
      );
      redirectAfterSso(ctx, result, { cookies, prefix }, 'Lax');
    },
  }),
  defineOperation({
    id: 'samlMetadata',
    method: 'GET',
    path: '/auth/sso/saml/:tenantId/metadata',
    caller: 'none',
    budget: 'general',
    tag: 'sso',
    summary: "The tenant's SAML service provider metadata, for its identity provider.",
    description:
      '`application/samlmetadata+xml`: the entity ID `spEntityId`, one assertion consumer service (HTTP-POST) at `acsUrl`, `WantAssertionsSigned="true"`, NameID formats emailAddress and persistent.',
    params: TENANT_PARAM,
    success: { status: 200, mediaType: 'application/samlmetadata+xml', description: 'The metadata (XML).' },
    problems: ['not_found'],
    answersItself: true,
    handler: async ({ ctx, params }, { auth }) => {
      const doc = await auth.ssoProviderDocument(params.tenantId, 'saml');
      if (!doc) throw new TenantAuthError('not_found', 'This tenant has no SAML connection.');
      ctx.status = 200;
      ctx.type = doc.mediaType;
      ctx.set('Cache-Control', 'no-store');
      ctx.body = doc.body;
    },
  }),
  defineOperation({
    id: 'samlAcs',
    method: 'POST',
    path: '/auth/sso/saml/:tenantId/acs',
    caller: 'none',
    budget: 'general',
    tag: 'sso',
    summary:
      "The identity provider's SAML response (HTTP-POST binding): a new session, then `303` to the application.",
    description:
      "Posted by the identity provider's page across sites (so exempt from the same-origin rule; the signed response, its `InResponseTo` and the `sso_state` cookie bind it). `303` as `GET /auth/sso/callback`, or to `APP_URL/sso-error?code=<code>` (its codes, or `invalid_response`). Only SP-initiated sign-ins: an unsolicited response is `invalid_state`.",
    params: TENANT_PARAM,
    body: 'samlAcsForm',
    request: { mediaTypes: [FORM_MEDIA_TYPE], limitBytes: ACS_LIMIT_BYTES, crossSite: true },
    success: { status: 303, description: 'To the application, or to its error page.', cookies: 'set' },
    answersItself: true,
    handler: async ({ ctx, params, body }, { auth, cookies, prefix }) => {
      const form: Record<string, string> = {};
      if (typeof body.SAMLResponse === 'string') form.SAMLResponse = body.SAMLResponse;
      if (typeof body.RelayState === 'string') form.RelayState = body.RelayState;
      const result = await auth.completeSso(
        { stateCookie: readCookie(ctx, SSO_STATE_COOKIE), params: form, tenantId: params.tenantId },
        requestContext(ctx),
      );
      redirectAfterSso(ctx, result, { cookies, prefix }, 'None');
    },
  }),
];
