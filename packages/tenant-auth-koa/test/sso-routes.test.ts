import Koa from 'koa';
import type { AccessClaims, IdentityProvider } from 'tenant-auth-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCheckedTenantAuthKoa } from './answer-check.js';
import {
  cookieNamed,
  createTestAuth,
  listen,
  ORIGIN,
  PASSWORD,
  postJson,
  quiet,
  type Running,
  type TestAuth,
} from './helpers.js';

/*
 * The SSO operations over HTTP with providers of two ways back (`docs/http-api.md`, "Single sign-on
 * (OpenID Connect) per tenant"): the `sso_state` cookie's SameSite is the protocol's, and the callback
 * hands core the provider's answer as parameters, each sent once.
 */

/** A provider that signs in `next` once `finish` sees the state it started with; it records the params. */
function provider(protocol: string, returnsBy: 'query' | 'form') {
  const seen: Record<string, string>[] = [];
  const p: IdentityProvider & { seen: typeof seen; next: string } = {
    protocol,
    returnsBy,
    stateParameter: 'state',
    seen,
    next: '',
    checkInput: () => [],
    configure: async () => ({ ok: true, issuer: `https://${protocol}.idp.test`, settings: {}, secret: null }),
    describe: () => ({}),
    start: async (_connection, { state }) => ({
      url: `https://${protocol}.idp.test/?state=${state}`,
      kept: {},
    }),
    finish: async (connection, { params }) => {
      seen.push({ ...params });
      return {
        ok: true,
        identity: { issuer: connection.issuer, subject: p.next, email: p.next, emailVerified: true, amr: [] },
      };
    },
  };
  return p;
}

let t: TestAuth;
let server: Running;
let base: string;
const txt = new Map<string, string[][]>();
const redirecting = provider('oidc', 'query');
const posting = provider('posting', 'form');

beforeEach(async () => {
  t = createTestAuth({
    sso: {
      providers: [redirecting, posting],
      domainResolver: { resolveTxt: async (name) => txt.get(name) ?? [] },
      appUrl: ORIGIN,
    },
  });
  const app = new Koa();
  app.use(createCheckedTenantAuthKoa({ auth: t.auth, logger: quiet }).middleware());
  server = await listen(app);
  base = `${server.url}/api/v1`;
});

afterEach(() => server.close());

/** A tenant that verified `domain` and connected through `protocol`. */
async function connected(domain: string, protocol: string): Promise<AccessClaims> {
  const registered = await t.auth.register({ email: `owner@${domain}`, password: PASSWORD });
  const claims = await t.auth.verifyAccessToken(registered.accessToken);
  const added = await t.auth.addDomain(claims, { domain });
  txt.set(added.verification.name, [[added.verification.value]]);
  await t.auth.verifyDomain(claims, domain);
  await t.auth.configureSso(claims, { protocol });
  return claims;
}

async function start(email: string) {
  const res = await postJson(`${base}/auth/sso/start`, { email });
  expect(res.status).toBe(200);
  const { url } = (await res.json()) as { url: string };
  const cookie = cookieNamed(res, 'sso_state');
  return { state: new URL(url).searchParams.get('state') ?? '', cookie };
}

const callback = (query: string, cookie: string) =>
  fetch(`${base}/auth/sso/callback?${query}`, {
    redirect: 'manual',
    headers: { cookie: `sso_state=${cookie}` },
  });

describe('the SSO operations and the protocol of a connection', () => {
  it('sets a SameSite=Lax state cookie for a provider that redirects back, and hands core its query', async () => {
    await connected('lax.test', 'oidc');
    redirecting.next = 'ada@lax.test';
    const { state, cookie } = await start('ada@lax.test');
    expect(cookie?.attributes).toMatchObject({
      path: '/api/v1/auth/sso',
      'max-age': '600',
      httponly: true,
      secure: true,
      samesite: 'Lax',
    });
    const res = await callback(`code=c1&state=${state}&extra=x%2By+z`, cookie?.value ?? '');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(ORIGIN);
    expect(cookieNamed(res, 'access_token')?.value).toBeTruthy();
    expect(redirecting.seen.at(-1)).toEqual({ code: 'c1', state, extra: 'x+y z' });
  });

  it("leaves out a provider's parameter sent twice", async () => {
    await connected('twice.test', 'oidc');
    redirecting.next = 'bob@twice.test';
    const { state, cookie } = await start('bob@twice.test');
    const res = await callback(`code=c&state=${state}&iss=a&iss=b`, cookie?.value ?? '');
    expect(res.status).toBe(303);
    expect(redirecting.seen.at(-1)).toEqual({ code: 'c', state });
  });

  it('sets a SameSite=None state cookie for a provider that posts the browser back across sites', async () => {
    await connected('none.test', 'posting');
    const { cookie } = await start('cat@none.test');
    expect(cookie?.attributes).toMatchObject({
      path: '/api/v1/auth/sso',
      'max-age': '600',
      httponly: true,
      secure: true,
      samesite: 'None',
    });
  });
});
