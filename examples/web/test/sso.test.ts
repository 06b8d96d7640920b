import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTxtDnsServer, type TxtDnsServer } from '../../server/test/helpers/dns-txt.js';
import { startOpenIdProvider, type TestOpenIdProvider } from '../../server/test/helpers/oidc-provider.js';
import { open, PASSWORD, screenshot, startWebEnv, type WebEnv } from './support/web-env.js';

/*
 * Single sign-on in Chromium, the whole redirect round trip: the app's "Sign in with SSO" page, the
 * reference server's start, oidc-provider's own login and consent pages, the server's callback, and
 * the app's account page with the session the callback's cookies carry.
 */

let env: WebEnv;
let op: TestOpenIdProvider;
let dns: TxtDnsServer;
let apiPort: number;

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
    const page = await open(context, env.appOrigin, '/sign-in');
    await page.getByRole('link', { name: 'Sign in with SSO' }).click();
    await page.getByLabel('Work email').fill(email);
    await page.getByRole('button', { name: 'Continue' }).click();
    // oidc-provider's own pages: login, then consent.
    await page.waitForURL((url) => url.origin === op.issuer);
    await page.locator('input[name="login"]').fill('grace-sub');
    await page.locator('input[name="password"]').fill('anything');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    // Back through the server's callback to the app, signed in.
    await page.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
    expect(new URL(page.url()).origin).toBe(env.appOrigin);
    await page.getByText(email).first().waitFor();
    expect(await page.getByText(email).first().isVisible()).toBe(true);
    await screenshot(page, 'sso-signed-in');
    await context.close();
  });
});
