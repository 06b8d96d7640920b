import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { TxtDnsServer } from './dns-txt.js';
import { api, PASSWORD, setCookies } from './http.js';

/** The redirect URI of the test servers: the default `PUBLIC_URL`'s callback. */
export const REDIRECT_URI = 'http://localhost:4000/api/v1/auth/sso/callback';
/** The default `APP_URL` of the test servers. */
export const APP_URL = 'http://localhost:5173';

/** A fresh registrable test domain. */
export const newDomain = () => `acme-${randomUUID().slice(0, 8)}.example.com`;

/** A provider a tenant connects: its issuer and client. */
export interface ProviderClient {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

/** A tenant whose owner verified `domain` and connected `provider`. */
export interface SsoTenant {
  domain: string;
  ownerEmail: string;
  ownerToken: string;
  tenantId: string;
}

/**
 * Registers an owner at `owner@<domain>`, adds and verifies the domain (the TXT record put in `dns`), and
 * connects `provider` (with `enforce` when asked).
 *
 * @example const tenant = await ssoTenant(url, dns, op);
 */
export async function ssoTenant(
  url: string,
  dns: TxtDnsServer,
  provider: ProviderClient,
  options: { enforce?: boolean; domain?: string; defaultRole?: 'admin' | 'member' } = {},
): Promise<SsoTenant> {
  const domain = options.domain ?? newDomain();
  const ownerEmail = `owner-${randomUUID().slice(0, 6)}@${domain}`;
  const reg = await api<{ accessToken: string; user: { tenantId: string } }>(url, '/auth/register', {
    body: { email: ownerEmail, password: PASSWORD },
  });
  expect(reg.status).toBe(201);
  const ownerToken = reg.body.accessToken;
  await verifiedDomain(url, dns, ownerToken, domain);
  const put = await api(url, '/tenants/me/sso', {
    method: 'PUT',
    token: ownerToken,
    body: {
      issuer: provider.issuer,
      clientId: provider.clientId,
      clientSecret: provider.clientSecret,
      enforce: options.enforce ?? false,
      ...(options.defaultRole ? { defaultRole: options.defaultRole } : {}),
    },
  });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  return { domain, ownerEmail, ownerToken, tenantId: reg.body.user.tenantId };
}

/** Adds `domain` for the caller's tenant, publishes its TXT record in `dns`, and verifies it. */
export async function verifiedDomain(url: string, dns: TxtDnsServer, token: string, domain: string) {
  const added = await api<{ domain: { verification: { name: string; value: string } } }>(
    url,
    '/tenants/me/domains',
    { token, body: { domain } },
  );
  expect(added.status).toBe(201);
  dns.records.set(added.body.domain.verification.name, [[added.body.domain.verification.value]]);
  const verified = await api(url, `/tenants/me/domains/${domain}/verify`, { method: 'POST', token });
  expect(verified.status).toBe(200);
}

/** `POST /auth/sso/start`: the authorization URL and the `sso_state` cookie. */
export async function startSso(url: string, email: string, returnTo?: string) {
  const r = await api<{ url: string }>(url, '/auth/sso/start', {
    body: { email, ...(returnTo === undefined ? {} : { returnTo }) },
  });
  expect(r.status).toBe(200);
  const cookie = setCookies(r.res).sso_state;
  expect(cookie?.value).toBeTruthy();
  return { authorizationUrl: r.body.url, stateCookie: cookie?.value ?? '', cookie };
}

/** The answer of the callback: where it sends the browser, and the cookies it sets. */
export interface CallbackAnswer {
  status: number;
  location: string;
  cookies: ReturnType<typeof setCookies>;
}

/**
 * `GET /auth/sso/callback` with the provider's redirect (`back`: its query is what counts) and the
 * `sso_state` cookie (none when `undefined`).
 */
export async function callback(
  url: string,
  back: URL,
  stateCookie: string | undefined,
): Promise<CallbackAnswer> {
  const res = await fetch(`${url}/api/v1/auth/sso/callback${back.search}`, {
    redirect: 'manual',
    headers: stateCookie === undefined ? {} : { cookie: `sso_state=${stateCookie}` },
  });
  return { status: res.status, location: res.headers.get('location') ?? '', cookies: setCookies(res) };
}

/** The `code` of an error redirect to `APP_URL/sso-error`, or `null` for any other location. */
export function ssoErrorCode(answer: CallbackAnswer): string | null {
  const location = new URL(answer.location);
  return location.pathname === '/sso-error' ? location.searchParams.get('code') : null;
}
