import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { createMemoryStores, createTenantAuth, type TenantAuth } from 'tenant-auth-core';
import { createTenantAuthKoa } from 'tenant-auth-koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOidcProvider } from '../../examples/server/src/sso/oidc.js';
import { createSignedLinkProvider, SIGNED_LINK, signLink } from './add-a-sign-in-protocol.js';

/*
 * The signed-link protocol registered beside OpenID Connect, driven start → finish through core on the
 * memory stores, and through the Koa adapter on a real port.
 */

const CALLBACK = 'https://auth.acme.test/api/v1/auth/sso/callback';
const APP_URL = 'https://app.acme.test';
const KEY = 'a-key-the-tenant-shares-with-its-link-provider';
const PASSWORD = 'Tr1cky-Harbour-Lantern';

/** Core with both protocols: one line each in `providers`. */
function createAuth(txt: Map<string, string[][]>): TenantAuth {
  return createTenantAuth({
    stores: createMemoryStores(),
    accessToken: { secret: 'recipe-access-secret-0123456789abcdef' },
    refreshSecret: 'recipe-refresh-secret-0123456789abcdef',
    passwordHashing: { cost: 4 },
    rateLimit: false,
    logger: { error() {}, warn() {}, info() {} },
    sso: {
      providers: [
        createOidcProvider({ redirectUri: CALLBACK }),
        createSignedLinkProvider({ callbackUrl: CALLBACK }),
      ],
      domainResolver: { resolveTxt: async (name) => txt.get(name) ?? [] },
      appUrl: APP_URL,
    },
  });
}

/** An owner who verified `domain` and connected its signed-link provider. */
async function connectedTenant(auth: TenantAuth, txt: Map<string, string[][]>, domain: string) {
  const registered = await auth.register({ email: `owner@${domain}`, password: PASSWORD });
  const claims = await auth.verifyAccessToken(registered.accessToken);
  const added = await auth.addDomain(claims, { domain });
  txt.set(added.verification.name, [[added.verification.value]]);
  await auth.verifyDomain(claims, domain);
  await auth.configureSso(claims, {
    protocol: SIGNED_LINK,
    issuer: 'https://links.acme.test',
    signingKey: KEY,
  });
  return claims;
}

const paramsOf = (url: URL) => Object.fromEntries(url.searchParams);

describe('a sign-in protocol added beside OpenID Connect (core, memory stores)', () => {
  const txt = new Map<string, string[][]>();
  const auth = createAuth(txt);

  it('connects a tenant by it, and signs a user in: start, the signed link back, finish', async () => {
    const claims = await connectedTenant(auth, txt, 'acme.test');
    expect(await auth.getSso(claims)).toMatchObject({
      protocol: SIGNED_LINK,
      issuer: 'https://links.acme.test',
      callbackUrl: CALLBACK,
    });
    expect(JSON.stringify(await auth.getSso(claims))).not.toContain(KEY);

    const started = await auth.startSso({ email: 'ada@acme.test', returnTo: `${APP_URL}/welcome` });
    expect(started.sameSite).toBe('Lax');
    const back = signLink(new URL(started.url), KEY, { sub: 'link-user-1', email: 'ada@acme.test' });
    const done = await auth.completeSso({ stateCookie: started.stateCookie, params: paramsOf(back) });
    expect(done).toMatchObject({
      ok: true,
      redirectTo: `${APP_URL}/welcome`,
      tokens: { user: { email: 'ada@acme.test', emailVerified: true }, session: { amr: ['sso'] } },
    });
  });

  it('refuses a link signed with another key, one for another sign-in, and a checked owner input', async () => {
    const claims = await connectedTenant(auth, txt, 'beta.test');
    const first = await auth.startSso({ email: 'bob@beta.test' });
    const forged = signLink(new URL(first.url), 'another-key-another-key-another-key', {
      sub: 'x',
      email: 'bob@beta.test',
    });
    expect(
      await auth.completeSso({ stateCookie: first.stateCookie, params: paramsOf(forged) }),
    ).toMatchObject({
      ok: false,
      code: 'invalid_id_token',
    });
    // A link signed for the first sign-in does not finish a second one in the same browser.
    const link = signLink(new URL(first.url), KEY, { sub: 'b', email: 'bob@beta.test' });
    const second = await auth.startSso({ email: 'bob@beta.test' });
    expect(await auth.completeSso({ stateCookie: second.stateCookie, params: paramsOf(link) })).toMatchObject(
      {
        ok: false,
        code: 'invalid_state',
      },
    );
    await expect(
      auth.configureSso(claims, {
        protocol: SIGNED_LINK,
        issuer: 'http://links.beta.test',
        signingKey: 'short',
      }),
    ).rejects.toMatchObject({
      code: 'validation_failed',
      errors: [
        { field: 'issuer', code: 'invalid_value' },
        { field: 'signingKey', code: 'too_short' },
      ],
    });
  });
});

describe('a sign-in protocol added beside OpenID Connect (Koa, a real port)', () => {
  const txt = new Map<string, string[][]>();
  const auth = createAuth(txt);
  let base = '';
  let close: () => Promise<void> = async () => {};

  beforeAll(async () => {
    const app = new Koa();
    app.use(createTenantAuthKoa({ auth }).middleware());
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => new Promise((resolve) => server.close(() => resolve()));
  });
  afterAll(() => close());

  it('POST /auth/sso/start, the provider, GET /auth/sso/callback: a session in cookies and a 303 to the app', async () => {
    await connectedTenant(auth, txt, 'gamma.test');
    const start = await fetch(`${base}/api/v1/auth/sso/start`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'cat@gamma.test' }),
    });
    expect(start.status).toBe(200);
    const stateCookie = start.headers.getSetCookie().find((c) => c.startsWith('sso_state='));
    expect(stateCookie).toMatch(/; HttpOnly; Secure; SameSite=Lax$/);
    const { url } = (await start.json()) as { url: string };
    const back = signLink(new URL(url), KEY, { sub: 'link-user-3', email: 'cat@gamma.test' });
    // The browser follows the link to the server's public callback (here its local port).
    const callback = await fetch(`${base}${back.pathname}${back.search}`, {
      redirect: 'manual',
      headers: { cookie: (stateCookie ?? '').split(';')[0] ?? '' },
    });
    expect(callback.status).toBe(303);
    expect(callback.headers.get('location')).toBe(APP_URL);
    const cookies = callback.headers.getSetCookie();
    expect(cookies.some((c) => /^access_token=[^;]+;/.test(c))).toBe(true);
    expect(cookies.some((c) => /^sso_state=;.*Max-Age=0/.test(c))).toBe(true);
  });
});
