import { randomUUID } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import { expect } from 'vitest';
import type { TxtDnsServer } from './dns-txt.js';
import { api, PASSWORD, setCookies } from './http.js';
import { type CallbackAnswer, newDomain, verifiedDomain } from './sso.js';

/** An identity provider a tenant connects by fields. */
export interface SamlIdpFields {
  entityId: string;
  ssoUrl: string;
  certificates: string[];
}

/** A tenant whose owner verified `domain` and connected a SAML identity provider. */
export interface SamlTenant {
  domain: string;
  ownerEmail: string;
  ownerToken: string;
  tenantId: string;
  sp: { entityId: string; acsUrl: string };
  /** The answer of `PUT /tenants/me/sso`. */
  sso: Record<string, unknown>;
}

/**
 * Registers an owner at `owner-…@<domain>`, verifies the domain, and connects `idp` by SAML (fields, or
 * `metadataXml` when given).
 */
export async function samlTenant(
  url: string,
  dns: TxtDnsServer,
  idp: SamlIdpFields | { metadataXml: string },
  options: { domain?: string; enforce?: boolean } = {},
): Promise<SamlTenant> {
  const domain = options.domain ?? newDomain();
  const ownerEmail = `owner-${randomUUID().slice(0, 6)}@${domain}`;
  const reg = await api<{ accessToken: string; user: { tenantId: string } }>(url, '/auth/register', {
    body: { email: ownerEmail, password: PASSWORD },
  });
  expect(reg.status).toBe(201);
  const ownerToken = reg.body.accessToken;
  await verifiedDomain(url, dns, ownerToken, domain);
  const put = await api<{ sso: Record<string, unknown> }>(url, '/tenants/me/sso', {
    method: 'PUT',
    token: ownerToken,
    body: { protocol: 'saml', ...idp, enforce: options.enforce ?? false },
  });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  const tenantId = reg.body.user.tenantId;
  return {
    domain,
    ownerEmail,
    ownerToken,
    tenantId,
    sp: {
      entityId: `http://localhost:4000/api/v1/auth/sso/saml/${tenantId}/metadata`,
      acsUrl: `http://localhost:4000/api/v1/auth/sso/saml/${tenantId}/acs`,
    },
    sso: put.body.sso,
  };
}

/** The `AuthnRequest` of an HTTP-Redirect URL: its XML, `ID` and `RelayState`. */
export function authnRequestOf(redirect: string) {
  const url = new URL(redirect);
  const xml = inflateRawSync(Buffer.from(url.searchParams.get('SAMLRequest') ?? '', 'base64')).toString(
    'utf8',
  );
  return {
    url,
    xml,
    id: /\bID="([^"]+)"/.exec(xml)?.[1] ?? '',
    relayState: url.searchParams.get('RelayState') ?? '',
  };
}

/** `POST /auth/sso/start` for a SAML tenant: the `AuthnRequest`, and the `sso_state` cookie. */
export async function startSaml(url: string, email: string, returnTo?: string) {
  const r = await api<{ url: string }>(url, '/auth/sso/start', {
    body: { email, ...(returnTo === undefined ? {} : { returnTo }) },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  const cookie = setCookies(r.res).sso_state;
  expect(cookie?.value).toBeTruthy();
  return { request: authnRequestOf(r.body.url), stateCookie: cookie?.value ?? '', cookie };
}

/** The identity provider's post to a tenant's ACS (the browser's, with the `sso_state` cookie when given). */
export async function postAcs(
  url: string,
  tenantId: string,
  form: { SAMLResponse?: string; RelayState?: string },
  stateCookie: string | undefined,
): Promise<CallbackAnswer> {
  const res = await fetch(`${url}/api/v1/auth/sso/saml/${tenantId}/acs`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      // The identity provider's page posts it: another site.
      origin: 'https://idp.example.net',
      ...(stateCookie === undefined ? {} : { cookie: `sso_state=${stateCookie}` }),
    },
    body: new URLSearchParams(form as Record<string, string>).toString(),
  });
  return { status: res.status, location: res.headers.get('location') ?? '', cookies: setCookies(res) };
}
