import { randomUUID } from 'node:crypto';
import Koa from 'koa';
import {
  type AccessClaims,
  createMemoryStores,
  type IdentityProvider,
  isTenantAuthError,
  MemoryRateLimitStore,
  type RateLimitStore,
} from 'tenant-auth-core';
import { afterEach, describe, expect, it } from 'vitest';
import type { ResponseInfo } from '../src/response-hook.js';
import type { ScimOptions } from '../src/scim/scim-options.js';
import { createTenantAuthKoa } from '../src/tenant-auth-koa.js';
import { createCheckedTenantAuthKoa } from './answer-check.js';
import {
  createTestAuth,
  json,
  listen,
  ORIGIN,
  PASSWORD,
  quiet,
  type Running,
  type TestAuth,
} from './helpers.js';

/*
 * The HTTP layer of SCIM 2.0 (docs/http-api.md, "SCIM 2.0 provisioning per tenant") on core's memory
 * stores: the token routes under the prefix, and /scim/v2's authentication, media types, error form,
 * Location, per-tenant budget and response hook. The directories' conversations and the rules core
 * decides run over the reference server (examples/server/test/scim.test.ts).
 */

const BASE_URL = 'https://auth.example.com/scim/v2';
const SCIM = 'application/scim+json';
const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';
const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

const txt = new Map<string, string[][]>();

/** Domain verification needs SSO configured; no test here signs in through a provider. */
const unusedProvider: IdentityProvider = {
  protocol: 'oidc',
  returnsBy: 'query',
  stateParameter: 'state',
  checkInput: () => [],
  configure: async () => ({ ok: true, issuer: 'https://idp.test', settings: {}, secret: null }),
  describe: () => ({}),
  start: async () => ({ url: 'https://idp.test/', kept: {} }),
  finish: async () => ({ ok: false, reason: 'not used' }) as never,
};
let server: Running | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

interface Started {
  t: TestAuth;
  url: string;
  responses: ResponseInfo[];
  logged: { level: string; line: unknown }[];
}

async function start(scim: Partial<ScimOptions> | null = {}, general?: number): Promise<Started> {
  const t = createTestAuth({
    ...(general === undefined ? {} : { rateLimit: { general, strict: 100 } }),
    sso: {
      providers: [unusedProvider],
      domainResolver: { resolveTxt: async (n) => txt.get(n) ?? [] },
      appUrl: ORIGIN,
    },
  });
  const responses: ResponseInfo[] = [];
  const logged: Started['logged'] = [];
  const logger = {
    error: (line: unknown) => logged.push({ level: 'error', line }),
    warn: (line: unknown) => logged.push({ level: 'warn', line }),
    info: () => {},
  };
  const tenantAuth = createCheckedTenantAuthKoa({
    auth: t.auth,
    logger,
    onResponse: (info) => responses.push(info),
    ...(scim === null ? {} : { scim: { baseUrl: BASE_URL, ...scim } }),
  });
  const app = new Koa();
  app.use(tenantAuth.middleware());
  server = await listen(app);
  return { t, url: server.url, responses, logged };
}

/** An owner whose tenant verified a domain of its own, and the tenant's SCIM token (made over HTTP). */
async function directory({ t, url }: Started) {
  const domain = `d-${randomUUID().slice(0, 8)}.test`;
  const registered = await t.auth.register({ email: `owner@${domain}`, password: PASSWORD });
  const claims: AccessClaims = await t.auth.verifyAccessToken(registered.accessToken);
  const added = await t.auth.addDomain(claims, { domain });
  txt.set(added.verification.name, [[added.verification.value]]);
  await t.auth.verifyDomain(claims, domain);
  const res = await fetch(`${url}/api/v1/tenants/me/scim/token`, {
    method: 'POST',
    headers: { authorization: `Bearer ${registered.accessToken}` },
  });
  expect(res.status).toBe(201);
  const body = await json(res);
  expect(body).toEqual({
    token: expect.stringMatching(/^tas_[A-Za-z0-9_-]{43}$/),
    createdAt: expect.any(String),
    baseUrl: BASE_URL,
  });
  return { domain, claims, accessToken: registered.accessToken, token: body.token as string };
}

function scim(
  url: string,
  token: string | undefined,
  method: string,
  path: string,
  init: { body?: string; type?: string } = {},
) {
  return fetch(`${url}/scim/v2${path}`, {
    method,
    headers: {
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...(init.body === undefined ? {} : { 'content-type': init.type ?? SCIM }),
    },
    ...(init.body === undefined ? {} : { body: init.body }),
  });
}

async function expectScimError(res: Response, status: number, scimType?: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/scim\+json/);
  expect(res.headers.get('cache-control')).toBe('no-store');
  const body = await json(res);
  expect(body).toMatchObject({ schemas: [ERROR_SCHEMA], status: String(status), detail: expect.any(String) });
  expect(body.scimType).toBe(scimType);
  return body;
}

const userBody = (userName: string) => JSON.stringify({ schemas: [USER_SCHEMA], userName });

describe('the SCIM token routes under the prefix', () => {
  it('answer 501 feature_unavailable, and nothing is served at /scim/v2, without the scim option', async () => {
    const started = await start(null);
    const registered = await started.t.auth.register({ email: 'owner@solo.test', password: PASSWORD });
    const res = await fetch(`${started.url}/api/v1/tenants/me/scim`, {
      headers: { authorization: `Bearer ${registered.accessToken}` },
    });
    expect(res.status).toBe(501);
    expect(await json(res)).toMatchObject({ code: 'feature_unavailable' });
    expect((await fetch(`${started.url}/scim/v2/Users`)).status).toBe(404);
  });

  it('show the connection, never the token', async () => {
    const started = await start();
    const { token, accessToken } = await directory(started);
    const res = await fetch(`${started.url}/api/v1/tenants/me/scim`, {
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({
      scim: {
        enabled: true,
        baseUrl: BASE_URL,
        createdAt: expect.any(String),
        lastUsedAt: null,
        groupRoles: [],
      },
    });
    expect(text).not.toContain(token);
  });
});

describe('/scim/v2', () => {
  it('needs the token on every route, discovery included: 401 in SCIM form with WWW-Authenticate', async () => {
    const started = await start();
    const { token, accessToken } = await directory(started);
    for (const path of ['/ServiceProviderConfig', '/Schemas', '/ResourceTypes', '/Users', '/Nothing']) {
      const res = await scim(started.url, undefined, 'GET', path);
      await expectScimError(res, 401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
    }
    const wrong = await scim(started.url, `tas_${'x'.repeat(43)}`, 'GET', '/Users');
    await expectScimError(wrong, 401);
    expect(wrong.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    await expectScimError(await scim(started.url, accessToken, 'GET', '/Users'), 401);
    const config = await scim(started.url, token, 'GET', '/ServiceProviderConfig');
    expect(config.status).toBe(200);
    expect(config.headers.get('content-type')).toMatch(/^application\/scim\+json/);
    expect(config.headers.get('access-control-allow-origin')).toBeNull();
    expect(await json(config)).toMatchObject({ meta: { location: `${BASE_URL}/ServiceProviderConfig` } });
  });

  it('answers routing, media-type, JSON and size failures in SCIM form', async () => {
    const started = await start({ bodyLimitBytes: 2048 });
    const { token } = await directory(started);
    await expectScimError(await scim(started.url, token, 'GET', '/Nothing'), 404);
    await expectScimError(await scim(started.url, token, 'GET', `/Users/${randomUUID()}`), 404);
    const wrongMethod = await scim(started.url, token, 'DELETE', '/Users');
    await expectScimError(wrongMethod, 405);
    expect(wrongMethod.headers.get('allow')).toContain('POST');
    await expectScimError(
      await scim(started.url, token, 'POST', '/Users', { body: '{}', type: 'text/plain' }),
      415,
    );
    await expectScimError(
      await scim(started.url, token, 'POST', '/Users', { body: '{"userName":' }),
      400,
      'invalidSyntax',
    );
    const big = JSON.stringify({ schemas: [USER_SCHEMA], userName: 'x'.repeat(4096) });
    await expectScimError(await scim(started.url, token, 'POST', '/Users', { body: big }), 413);
    await expectScimError(
      await scim(started.url, token, 'GET', `/Users?filter=${encodeURIComponent('name.familyName co "x"')}`),
      400,
      'invalidFilter',
    );
    await expectScimError(await scim(started.url, token, 'GET', '/Users?count=ten'), 400, 'invalidValue');
  });

  it('creates with Location (application/json too), maps email_taken to 409 uniqueness and validation to 400 invalidValue, logging no error', async () => {
    const started = await start();
    const { token, domain } = await directory(started);
    const created = await scim(started.url, token, 'POST', '/Users', {
      body: userBody(`ada@${domain}`),
      type: 'application/json',
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('content-type')).toMatch(/^application\/scim\+json/);
    const user = await json(created);
    expect(created.headers.get('location')).toBe(`${BASE_URL}/Users/${user.id}`);
    expect(user.meta.location).toBe(`${BASE_URL}/Users/${user.id}`);
    const again = await expectScimError(
      await scim(started.url, token, 'POST', '/Users', { body: userBody(`Ada@${domain}`) }),
      409,
      'uniqueness',
    );
    expect(again.detail).not.toContain('ada@');
    await expectScimError(
      await scim(started.url, token, 'POST', '/Users', { body: userBody('eve@elsewhere.test') }),
      400,
      'invalidValue',
    );
    expect(started.logged.filter((l) => l.level === 'error')).toEqual([]);
  });

  it('applies a PATCH whole or not at all, and deactivates the last owner never (409 mutability)', async () => {
    const started = await start();
    const { token, domain, claims } = await directory(started);
    const user = await json(
      await scim(started.url, token, 'POST', '/Users', { body: userBody(`bo@${domain}`) }),
    );
    const patch = (id: string, ...operations: unknown[]) =>
      scim(started.url, token, 'PATCH', `/Users/${id}`, {
        body: JSON.stringify({ schemas: [PATCH_SCHEMA], Operations: operations }),
      });
    await expectScimError(
      await patch(
        user.id,
        { op: 'replace', path: 'displayName', value: 'Bo' },
        { op: 'replace', path: 'active', value: 'perhaps' },
      ),
      400,
      'invalidValue',
    );
    const read = await json(await scim(started.url, token, 'GET', `/Users/${user.id}`));
    expect(read.displayName).toBeUndefined();
    const changed = await patch(user.id, { op: 'Replace', path: 'active', value: 'False' });
    expect(changed.status).toBe(200);
    expect((await json(changed)).active).toBe(false);
    await expectScimError(
      await patch(claims.userId, { op: 'replace', path: 'active', value: false }),
      409,
      'mutability',
    );
  });

  it("counts each tenant's budget in the store, answers 429 with Retry-After beyond it, and lets requests through when the store fails", async () => {
    const store = new MemoryRateLimitStore();
    const started = await start({ rateLimit: { max: 3, windowSeconds: 60, store } });
    const busy = await directory(started);
    const calm = await directory(started);
    for (let i = 0; i < 3; i++) {
      const res = await scim(started.url, busy.token, 'GET', '/Schemas');
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-remaining')).toBe(String(2 - i));
    }
    const refused = await scim(started.url, busy.token, 'GET', '/Users');
    await expectScimError(refused, 429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('ratelimit-limit')).toBe('3');
    expect((await scim(started.url, calm.token, 'GET', '/Users')).status).toBe(200);
    await server?.close();

    const failing: RateLimitStore = { hit: async () => Promise.reject(new Error('store down')) };
    const down = await start({ rateLimit: { max: 1, store: failing } });
    const tenant = await directory(down);
    for (let i = 0; i < 3; i++)
      expect((await scim(down.url, tenant.token, 'GET', '/Schemas')).status).toBe(200);
    expect(down.logged.filter((l) => l.level === 'warn')).toHaveLength(1);
  });

  it("counts tokens that do not verify against the address's general budget, and valid ones never", async () => {
    const started = await start({}, 3);
    const { token } = await directory(started); // the token route spends 1 of the address's 3
    for (let i = 0; i < 5; i++) expect((await scim(started.url, token, 'GET', '/Schemas')).status).toBe(200);
    await expectScimError(await scim(started.url, `tas_${'y'.repeat(43)}`, 'GET', '/Users'), 401);
    await expectScimError(await scim(started.url, `tas_${'z'.repeat(43)}`, 'GET', '/Users'), 401);
    await expectScimError(await scim(started.url, `tas_${'w'.repeat(43)}`, 'GET', '/Users'), 429);
    expect((await scim(started.url, token, 'GET', '/Users')).status).toBe(200);
  });

  it('tells the response hook the route template, never the id', async () => {
    const started = await start();
    const { token } = await directory(started);
    const id = randomUUID();
    await scim(started.url, token, 'GET', `/Users/${id}`);
    expect(started.responses.at(-1)).toMatchObject({
      route: '/scim/v2/Users/:id',
      method: 'GET',
      status: 404,
    });
    expect(JSON.stringify(started.responses)).not.toContain(id);
  });

  it('answers 501 in SCIM form when the stores have no SCIM store', async () => {
    const { scim: _scim, ...stores } = createMemoryStores();
    const t = createTestAuth({ stores });
    const app = new Koa();
    app.use(
      createCheckedTenantAuthKoa({ auth: t.auth, logger: quiet, scim: { baseUrl: BASE_URL } }).middleware(),
    );
    server = await listen(app);
    await expectScimError(await scim(server.url, `tas_${'v'.repeat(43)}`, 'GET', '/Users'), 501);
    const registered = await t.auth.register({ email: 'owner@bare.test', password: PASSWORD });
    const res = await fetch(`${server.url}/api/v1/tenants/me/scim`, {
      headers: { authorization: `Bearer ${registered.accessToken}` },
    });
    expect(res.status).toBe(501);
    expect(await json(res)).toMatchObject({ code: 'feature_unavailable' });
  });

  it('is mounted at the path of its base URL, or at the path the option says', async () => {
    const t = createTestAuth();
    const mounted = (scimOptions: ScimOptions) =>
      createTenantAuthKoa({ auth: t.auth, logger: quiet, scim: scimOptions });
    const app = new Koa();
    app.use(mounted({ baseUrl: 'https://example.com/auth/scim/v2/' }).middleware());
    server = await listen(app);
    const res = await fetch(`${server.url}/auth/scim/v2/Users`);
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^application\/scim\+json/);
    for (const bad of [
      { baseUrl: 'not a url' },
      { baseUrl: 'ftp://example.com/scim/v2' },
      { baseUrl: 'https://example.com/' },
      { baseUrl: BASE_URL, rateLimit: { max: 0 } },
      { baseUrl: BASE_URL, path: '/api/v1' },
    ]) {
      let thrown: unknown;
      try {
        mounted(bad);
      } catch (err) {
        thrown = err;
      }
      expect(isTenantAuthError(thrown, 'invalid_configuration'), JSON.stringify(bad)).toBe(true);
    }
  });
});
