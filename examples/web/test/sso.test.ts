import { createServer } from 'node:net';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTxtDnsServer, type TxtDnsServer } from '../../server/test/helpers/dns-txt.js';
import { startOpenIdProvider, type TestOpenIdProvider } from '../../server/test/helpers/oidc-provider.js';
import {
  expectFlash,
  open,
  PASSWORD,
  screenshot,
  signUp,
  startWebEnv,
  type WebEnv,
} from './support/web-env.js';

/*
 * Single sign-on in Chromium, the whole redirect round trip: the app's "Sign in with SSO" page, the
 * reference server's start, oidc-provider's own login and consent pages, the server's callback, and
 * the app's account page with the session the callback's cookies carry. And the owner's page: a domain
 * proved through the loopback DNS responder, the connection to the test provider, removed again.
 */

let env: WebEnv;
let op: TestOpenIdProvider;
let dns: TxtDnsServer;
let apiPort: number;
const REAUTH_MAX_AGE_SECONDS = 20;

/** A free TCP port on loopback: the server's PUBLIC_URL must name its port before it starts. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  apiPort = await freePort();
  dns = await startTxtDnsServer();
  op = await startOpenIdProvider(`http://localhost:${apiPort}/api/v1/auth/sso/callback`);
  env = await startWebEnv({
    PORT: String(apiPort),
    PUBLIC_URL: `http://localhost:${apiPort}`,
    DNS_SERVERS: dns.address,
    SSO_ALLOW_INSECURE_ISSUERS: 'true',
    // Short, so the re-authentication test sees a sign-in grow old: the other tests' recent steps
    // (an owner's, just after signing up) take a few seconds.
    REAUTH_MAX_AGE_SECONDS: String(REAUTH_MAX_AGE_SECONDS),
  });
});

afterAll(async () => {
  await env?.close();
  await op?.close();
  await dns?.close();
});

/** The fields of the answers this test reads. */
interface Answer {
  accessToken?: string;
  domain?: { verification: { name: string; value: string } };
}

/** The API as a script: JSON in and out, a bearer token when given. */
async function call(path: string, init: { method?: string; token?: string; body?: unknown } = {}) {
  const res = await fetch(`${env.api.origin}/api/v1${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: {
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  return { status: res.status, body: (await res.json().catch(() => ({}))) as Answer };
}

describe('the example web app: single sign-on', () => {
  it('signs a user of a verified domain in through the provider, and lands on the account page', async () => {
    const domain = `sso-${Date.now().toString(36)}.example.com`;
    const owner = await call('/auth/register', { body: { email: `owner@${domain}`, password: PASSWORD } });
    expect(owner.status).toBe(201);
    const token = owner.body.accessToken ?? '';
    const added = await call('/tenants/me/domains', { token, body: { domain } });
    const record = added.body.domain?.verification;
    if (!record) throw new Error('no verification record');
    dns.records.set(record.name, [[record.value]]);
    expect((await call(`/tenants/me/domains/${domain}/verify`, { method: 'POST', token })).status).toBe(200);
    const put = await call('/tenants/me/sso', {
      method: 'PUT',
      token,
      body: { issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret },
    });
    expect(put.status).toBe(200);
    const email = `grace@${domain}`;
    op.accounts.set('grace-sub', { email });

    const context = await env.browser.newContext();
    const page = await signInWithSso(context, email, 'grace-sub');
    expect(new URL(page.url()).origin).toBe(env.appOrigin);
    await page.getByText(email).first().waitFor();
    expect(await page.getByText(email).first().isVisible()).toBe(true);
    await screenshot(page, 'sso-signed-in');
    await context.close();
  });

  it('an owner adds and verifies a domain, connects the provider (no secret in the page), then removes both', async () => {
    const domain = `owner-${Date.now().toString(36)}.example.com`;
    const context = await env.browser.newContext();
    const page = await open(context, env.appOrigin, '/');
    await signUp(page, `owner@${domain}`);
    await page.getByRole('link', { name: 'Single sign-on' }).click();
    await page.getByRole('heading', { level: 1, name: 'Single sign-on' }).waitFor();
    expect(await page.locator('#no-domains').textContent()).toBe('No domain yet.');
    expect(await page.locator('#sso-none').textContent()).toBe('Not connected.');

    // Added: the page shows the TXT record to create, and focus moves to the new domain.
    await page.getByLabel('Domain', { exact: true }).fill(domain);
    await page.getByRole('button', { name: 'Add domain' }).click();
    await expectFlash(page, `${domain} was added.`);
    const item = page.locator(`li[id="domain-${domain}"]`);
    const name = (await item.locator('.txt-name').textContent()) ?? '';
    const value = (await item.locator('.txt-value').textContent()) ?? '';
    expect(name).toBe(`_tenant-auth-challenge.${domain}`);
    expect(value).toMatch(/^tenant-auth-domain-verification=\S+$/);
    expect(await focused(page)).toBe(`domain-${domain}`);

    // Not published yet: the refusal is said in words, in the alert, which takes the focus.
    await page.getByRole('button', { name: `Verify ${domain}` }).click();
    const alert = page.locator('form.errors .form-alert');
    await expect
      .poll(async () => (await alert.textContent()) ?? '')
      .toContain('The DNS record is not there yet');
    expect(await focused(page, 'className')).toBe('form-alert');
    // Published in the DNS responder the server asks: verified.
    dns.records.set(name, [[value]]);
    await page.getByRole('button', { name: `Verify ${domain}` }).click();
    await expectFlash(page, `${domain} is verified.`);
    // The success badge: getByText('Verified') would also match "Not verified" (a case-blind substring)
    // and pass before the page redrew.
    await item.locator('.badge.success', { hasText: 'Verified' }).waitFor();
    expect(await alert.isVisible()).toBe(false);
    expect(await item.locator('.txt-name').count()).toBe(0);
    expect(await focused(page)).toBe(`domain-${domain}`);

    // The connection: listed after saving, the secret nowhere in the page (nor left in its field).
    await page.getByLabel('Issuer').fill(op.issuer);
    await page.getByLabel('Client ID').fill(op.clientId);
    await page.getByLabel('Client secret').fill(op.clientSecret);
    await page.getByRole('button', { name: 'Save identity provider' }).click();
    await expectFlash(page, 'The identity provider is saved.');
    const facts = page.locator('#sso-connection');
    await facts.waitFor();
    expect(await facts.textContent()).toContain(op.issuer);
    expect(await facts.textContent()).toContain(op.clientId);
    expect(await facts.textContent()).toContain(`http://localhost:${apiPort}/api/v1/auth/sso/callback`);
    expect(await focused(page)).toBe('sso-title');
    expect(await page.getByLabel('Client secret').inputValue()).toBe('');
    expect(await page.content()).not.toContain(op.clientSecret);
    await screenshot(page, 'single-sign-on');

    // Removed: the connection, then the domain, each after a confirmation.
    await page.getByRole('button', { name: 'Remove identity provider' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove identity provider' }).click();
    await expectFlash(page, 'The identity provider was removed.');
    await page.locator('#sso-none').waitFor();
    await page.getByRole('button', { name: `Remove ${domain}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove domain' }).click();
    await expectFlash(page, `${domain} was removed.`);
    await page.locator('#no-domains').waitFor();
    expect(await focused(page)).toBe('domains-title');
    await context.close();
  });
});

describe('the example web app: re-authentication at the identity provider', () => {
  it('a user the organisation holds to SSO confirms at the provider and comes back to the page it left', async () => {
    const domain = `held-${Date.now().toString(36)}.example.com`;
    const owner = await call('/auth/register', { body: { email: `owner@${domain}`, password: PASSWORD } });
    const token = owner.body.accessToken ?? '';
    const record = (await call('/tenants/me/domains', { token, body: { domain } })).body.domain?.verification;
    if (!record) throw new Error('no verification record');
    dns.records.set(record.name, [[record.value]]);
    expect((await call(`/tenants/me/domains/${domain}/verify`, { method: 'POST', token })).status).toBe(200);
    // enforce: members of the domain sign in through the provider only (no password stands in).
    const put = await call('/tenants/me/sso', {
      method: 'PUT',
      token,
      body: { issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret, enforce: true },
    });
    expect(put.status).toBe(200);
    const email = `heidi@${domain}`;
    op.accounts.set('heidi-sub', { email });

    const context = await env.browser.newContext();
    const page = await signInWithSso(context, email, 'heidi-sub');
    const signedInAt = Date.now();

    // The sign-in grows older than REAUTH_MAX_AGE_SECONDS: setting up a factor is refused, and the
    // dialog offers the provider (not a password).
    await page.waitForTimeout(Math.max(0, signedInAt + (REAUTH_MAX_AGE_SECONDS + 1) * 1000 - Date.now()));
    await page.getByRole('link', { name: 'Security', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Security' }).waitFor();
    const securityUrl = page.url();
    await page.getByRole('button', { name: 'Set up authenticator app' }).click();
    const dialog = page.getByRole('dialog', { name: 'Confirm it is you' });
    await dialog.waitFor();
    expect(await dialog.getByLabel('Password').count()).toBe(0);
    await screenshot(page, 'sso-reauthentication');
    await dialog.getByRole('button', { name: 'Continue' }).click();

    // At the provider: a fresh login (prompt=login), then back through the server to /security.
    await page.waitForURL((url) => url.origin === op.issuer);
    await page.locator('input[name="login"]').fill('heidi-sub');
    await page.locator('input[name="password"]').fill('anything');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    const consent = page.getByRole('button', { name: 'Continue' });
    await page.waitForURL((url) => url.origin === env.appOrigin || url.origin === op.issuer);
    if (new URL(page.url()).origin === op.issuer && (await consent.count()) > 0) await consent.click();
    await page.waitForURL((url) => url.origin === env.appOrigin);
    await page.getByRole('heading', { level: 1, name: 'Security' }).waitFor();
    expect(page.url()).toBe(securityUrl);

    // Recent now: the setup opens without a dialog.
    await page.getByRole('button', { name: 'Set up authenticator app' }).click();
    await page.getByRole('img', { name: /QR code/ }).waitFor();
    expect(await page.getByRole('dialog', { name: 'Confirm it is you' }).count()).toBe(0);
    await context.close();
  }, 120_000);
});

/**
 * "Sign in with SSO" in a new page of `context`: the work email, oidc-provider's own login (as `sub`) and
 * consent pages, and back through the server's callback to the app's account page, signed in.
 */
async function signInWithSso(context: BrowserContext, email: string, sub: string): Promise<Page> {
  const page = await open(context, env.appOrigin, '/sign-in');
  await page.getByRole('link', { name: 'Sign in with SSO' }).click();
  await page.getByLabel('Work email').fill(email);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL((url) => url.origin === op.issuer);
  await page.locator('input[name="login"]').fill(sub);
  await page.locator('input[name="password"]').fill('anything');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
  return page;
}

/** The id (or another property) of the element that has the focus. */
async function focused(page: Page, property: 'id' | 'className' = 'id'): Promise<string | undefined> {
  return page.evaluate(
    (p) =>
      (globalThis as unknown as { document: { activeElement: Record<string, string> | null } }).document
        .activeElement?.[p],
    property,
  );
}
