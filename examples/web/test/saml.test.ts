import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestIdpServer, type TestIdpServer } from '../../../test-support/saml/test-idp-server.js';
import { selfSignedCertificate } from '../../../test-support/saml/x509.js';
import { startTxtDnsServer, type TxtDnsServer } from '../../server/test/helpers/dns-txt.js';
import { expectFlash, open, screenshot, signUp, startWebEnv, type WebEnv } from './support/web-env.js';

/*
 * SAML 2.0 single sign-on in Chromium, the whole round trip: an owner connects the test identity
 * provider on the single sign-on page by its metadata and reads the values to register there (entity ID,
 * ACS URL); a user of the verified domain then signs in through the app's "Sign in with SSO" page, the
 * provider's page posts its signed response across sites to the server's ACS (the SameSite=None state
 * cookie goes with it), and the app's account page shows the session.
 */

let env: WebEnv;
let idp: TestIdpServer;
let dns: TxtDnsServer;
let apiPort: number;

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
  idp = await startTestIdpServer({ user: { nameId: 'nobody@example.com' } });
  env = await startWebEnv({
    PORT: String(apiPort),
    PUBLIC_URL: `http://localhost:${apiPort}`,
    DNS_SERVERS: dns.address,
    OUTBOUND_ALLOW_LOOPBACK: 'true',
  });
});

afterAll(async () => {
  await env?.close();
  await idp?.close();
  await dns?.close();
});

describe('the example web app: SAML single sign-on', () => {
  it('an owner connects a SAML provider by its metadata; a user signs in through its form post', async () => {
    const domain = `saml-${Date.now().toString(36)}.example.com`;
    const context = await env.browser.newContext();
    const page = await open(context, env.appOrigin, '/');
    await signUp(page, `owner@${domain}`);
    await page.getByRole('link', { name: 'Single sign-on', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Single sign-on' }).waitFor();

    // The domain, proved through the DNS responder the server asks.
    await page.getByLabel('Domain', { exact: true }).fill(domain);
    await page.getByRole('button', { name: 'Add domain' }).click();
    await expectFlash(page, `${domain} was added.`);
    const item = page.locator(`li[id="domain-${domain}"]`);
    const name = (await item.locator('.txt-name').textContent()) ?? '';
    const value = (await item.locator('.txt-value').textContent()) ?? '';
    dns.records.set(name, [[value]]);
    await page.getByRole('button', { name: `Verify ${domain}` }).click();
    await expectFlash(page, `${domain} is verified.`);

    // SAML by metadata: the provider's XML pasted, then the values to register there, each with Copy.
    await page.getByLabel('Protocol').selectOption('saml');
    expect(await page.getByLabel('Client secret').count()).toBe(0);
    const metadata = await (await fetch(`${idp.url}/metadata`)).text();
    await page.getByLabel('Identity provider metadata (XML)').fill(metadata);
    await page.getByRole('button', { name: 'Save identity provider' }).click();
    await expectFlash(page, 'The identity provider is saved.');
    const facts = page.locator('#sso-connection');
    await facts.waitFor();
    expect(await facts.textContent()).toContain('SAML 2.0');
    expect(await facts.locator('.certificate .fingerprint').count()).toBe(1);
    // A certificate a year from its end: no expiry warning.
    expect(await facts.locator('.certificate-expiring').count()).toBe(0);
    const spEntityId = (await page.locator('#sp-entity-id').textContent()) ?? '';
    const acsUrl = (await page.locator('#sp-acs-url').textContent()) ?? '';
    expect(acsUrl).toMatch(new RegExp(`^http://localhost:${apiPort}/api/v1/auth/sso/saml/[^/]+/acs$`));
    expect(await page.locator('#sp-metadata-url').textContent()).toBe(spEntityId);
    await screenshot(page, 'single-sign-on-saml');
    idp.register({ entityId: spEntityId, acsUrl });

    // A key rollover by fields: the provider's certificate and its successor... which ends in 10 days,
    // warned about on the page.
    const soon = selfSignedCertificate({ notAfter: new Date(Date.now() + 10.5 * 86_400_000) });
    await page.getByLabel('Signing certificates (PEM)').fill(`${idp.certificate.pem}\n${soon.pem}`);
    await page.getByRole('button', { name: 'Save identity provider' }).click();
    await expectFlash(page, 'The identity provider is saved.');
    await expect.poll(() => facts.locator('.certificate').count()).toBe(2);
    const warnings = facts.locator('.certificate-expiring');
    expect(await warnings.count()).toBe(1);
    expect(await warnings.textContent()).toBe('Expires in 10 days: add its successor');
    await context.close();

    // A user of the domain: "Sign in with SSO", the provider's page posts back, the account page.
    const email = `ines@${domain}`;
    idp.user = { nameId: email };
    const userContext = await env.browser.newContext();
    const signIn = await open(userContext, env.appOrigin, '/sign-in');
    await signIn.getByRole('link', { name: 'Sign in with SSO' }).click();
    await signIn.getByLabel('Work email').fill(email);
    await signIn.getByRole('button', { name: 'Continue' }).click();
    await signIn.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
    expect(new URL(signIn.url()).origin).toBe(env.appOrigin);
    await signIn.getByText(email).first().waitFor();
    // The provider saw one request, from this SP, for its ACS.
    const request = idp.requests.at(-1);
    expect(request).toMatchObject({ issuer: spEntityId, acsUrl, forceAuthn: false });
    await userContext.close();
  }, 120_000);
});
