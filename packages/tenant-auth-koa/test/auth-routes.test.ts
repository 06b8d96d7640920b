import { generateKeyPairSync } from 'node:crypto';
import Koa from 'koa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { healthCheck } from '../src/health.js';
import type { TenantAuthKoa } from '../src/index.js';
import { createRoutes } from '../src/routes.js';
import { createCheckedTenantAuthKoa } from './answer-check.js';
import {
  cookieNamed,
  createTestAuth,
  json,
  listen,
  ORIGIN,
  PASSWORD,
  postJson,
  quiet,
  type Running,
  type TestAuth,
  type TokenBody,
  uniqueEmail,
} from './helpers.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

let t: TestAuth;
let server: Running;
let base: string;
let koaSide: TenantAuthKoa;
let dbUp = true;

beforeEach(async () => {
  t = createTestAuth();
  dbUp = true;
  const app = new Koa();
  koaSide = createCheckedTenantAuthKoa({
    auth: t.auth,
    logger: quiet,
    health: {
      // Every request sees the database as it is now (the default shares one answer for a second).
      cacheSeconds: 0,
      ping: async () => {
        if (!dbUp) throw new Error('connection refused');
      },
    },
  });
  app.use(koaSide.middleware());
  server = await listen(app);
  base = `${server.url}/api/v1`;
});

afterEach(async () => {
  await server.close();
});

async function register(extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const email = uniqueEmail();
  const res = await postJson(`${base}/auth/register`, { email, password: PASSWORD, ...extra }, headers);
  const body = (await json(res)) as TokenBody;
  return { res, body, email };
}

function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

describe('POST /auth/register', () => {
  it('answers 201 with the token response, the tenant, and both cookies with the contract attributes', async () => {
    const { res, body, email } = await register({ tenantName: 'Acme Corp', deviceInfo: 'test runner' });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(Object.keys(body).sort()).toEqual(
      [
        'accessToken',
        'expiresIn',
        'refreshExpiresIn',
        'refreshToken',
        'session',
        'tenant',
        'tokenType',
        'user',
      ].sort(),
    );
    expect(body.user).toEqual({
      id: expect.stringMatching(UUID),
      email,
      tenantId: body.tenant?.id,
      role: 'owner',
      emailVerified: false,
    });
    // API 1.2: the session says how it was authenticated, and when.
    expect(Object.keys(body.session).sort()).toEqual(['amr', 'authTime', 'expiresAt', 'id']);
    expect(body.session.amr).toEqual(['pwd']);
    expect(body.session.authTime).toMatch(ISO);
    expect(body.session.expiresAt).toMatch(ISO);
    expect(body.tokenType).toBe('Bearer');
    expect(body.expiresIn).toBe(900);
    expect(body.refreshExpiresIn).toBe(604800);
    expect(body.tenant).toEqual({
      id: expect.stringMatching(UUID),
      slug: 'acme-corp',
      name: 'Acme Corp',
      createdAt: expect.stringMatching(ISO),
    });

    const access = cookieNamed(res, 'access_token');
    expect(access?.value).toBe(body.accessToken);
    expect(access?.attributes).toEqual({
      path: '/',
      'max-age': '900',
      httponly: true,
      secure: true,
      samesite: 'Lax',
    });
    const refresh = cookieNamed(res, 'refresh_token');
    expect(refresh?.value).toBe(body.refreshToken);
    expect(refresh?.attributes).toEqual({
      path: '/api/v1/auth',
      'max-age': '604800',
      httponly: true,
      secure: true,
      samesite: 'Strict',
    });
  });

  it('never trusts tenantId or role from the body', async () => {
    const other = await register();
    const { res, body } = await register({ tenantId: other.body.user.tenantId, role: 'admin' });
    expect(res.status).toBe(201);
    expect(body.user.tenantId).toBe(body.tenant?.id);
    expect(body.user.tenantId).not.toBe(other.body.user.tenantId);
    expect(body).not.toHaveProperty('role');
  });

  it('refuses an invalid email and a taken email with validation_failed field errors', async () => {
    const bad = await postJson(`${base}/auth/register`, { email: 'not-an-email', password: PASSWORD });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const problem = await json(bad);
    expect(problem).toMatchObject({
      type: 'about:blank',
      title: 'Bad Request',
      status: 400,
      code: 'validation_failed',
    });
    expect(problem.errors).toContainEqual(expect.objectContaining({ field: 'email', code: 'invalid_email' }));

    const first = await register();
    const taken = await postJson(`${base}/auth/register`, { email: first.email, password: PASSWORD });
    expect(taken.status).toBe(400);
    expect((await json(taken)).errors).toContainEqual(
      expect.objectContaining({ field: 'email', code: 'email_taken' }),
    );
  });

  it('refuses wrong types with field codes and a weak password with the policy codes', async () => {
    const res = await postJson(`${base}/auth/register`, { email: 42 });
    expect(res.status).toBe(400);
    const { errors } = await json(res);
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'email', code: 'invalid_type' }),
        expect.objectContaining({ field: 'password', code: 'required' }),
      ]),
    );
    const weak = await postJson(`${base}/auth/register`, { email: uniqueEmail(), password: 'short' });
    expect(weak.status).toBe(400);
    expect((await json(weak)).errors).toContainEqual(
      expect.objectContaining({ field: 'password', code: 'too_short' }),
    );
  });
});

describe('POST /auth/login', () => {
  it('answers 200 with the token response and cookies', async () => {
    const { email } = await register();
    const res = await postJson(`${base}/auth/login`, { email, password: PASSWORD });
    expect(res.status).toBe(200);
    const body = (await json(res)) as TokenBody;
    expect(Object.keys(body).sort()).toEqual(
      ['accessToken', 'expiresIn', 'refreshExpiresIn', 'refreshToken', 'session', 'tokenType', 'user'].sort(),
    );
    expect(body.user.email).toBe(email);
    expect(cookieNamed(res, 'access_token')?.value).toBe(body.accessToken);
    expect(cookieNamed(res, 'refresh_token')?.value).toBe(body.refreshToken);
  });

  it('answers the same 401 invalid_credentials for an unknown email and a wrong password', async () => {
    const { email } = await register();
    const wrong = await postJson(`${base}/auth/login`, { email, password: `${PASSWORD}x` });
    const unknown = await postJson(`${base}/auth/login`, { email: uniqueEmail(), password: PASSWORD });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const a = await json(wrong);
    const b = await json(unknown);
    expect(a).toEqual(b);
    expect(a).toMatchObject({ status: 401, code: 'invalid_credentials', title: 'Unauthorized' });
    expect(wrong.headers.get('www-authenticate')).toBe(unknown.headers.get('www-authenticate'));
  });

  it('answers 400 validation_failed for a malformed body', async () => {
    const res = await postJson(`${base}/auth/login`, { email: 'a@example.com' });
    expect(res.status).toBe(400);
    const problem = await json(res);
    expect(problem.code).toBe('validation_failed');
    expect(problem.errors).toContainEqual(expect.objectContaining({ field: 'password', code: 'required' }));
    const array = await postJson(`${base}/auth/login`, [1, 2]);
    expect(array.status).toBe(400);
    expect((await json(array)).code).toBe('validation_failed');
  });
});

describe('POST /auth/refresh', () => {
  it('rotates a refresh token from the cookie, the body field or the Bearer header', async () => {
    const { body: first } = await register();
    const viaCookie = await fetch(`${base}/auth/refresh`, {
      method: 'POST',
      headers: { cookie: `refresh_token=${first.refreshToken}`, origin: ORIGIN },
    });
    expect(viaCookie.status).toBe(200);
    const second = (await json(viaCookie)) as TokenBody;
    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect(second.session.id).toBe(first.session.id);
    expect(cookieNamed(viaCookie, 'refresh_token')?.value).toBe(second.refreshToken);
    expect(cookieNamed(viaCookie, 'access_token')?.attributes['max-age']).toBe('900');

    const viaBody = await postJson(`${base}/auth/refresh`, { refreshToken: second.refreshToken });
    expect(viaBody.status).toBe(200);
    const third = (await json(viaBody)) as TokenBody;

    const viaBearer = await fetch(`${base}/auth/refresh`, {
      method: 'POST',
      headers: bearer(third.refreshToken),
    });
    expect(viaBearer.status).toBe(200);
  });

  it('prefers the Bearer header over the body field and the cookie', async () => {
    const { body } = await register();
    const res = await fetch(`${base}/auth/refresh`, {
      method: 'POST',
      headers: {
        ...bearer('not-a-jwt'),
        'content-type': 'application/json',
        cookie: `refresh_token=${body.refreshToken}`,
        origin: ORIGIN,
      },
      body: JSON.stringify({ refreshToken: body.refreshToken }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
  });

  it('answers 401 invalid_token with WWW-Authenticate when no token or a bad one is sent', async () => {
    const none = await fetch(`${base}/auth/refresh`, { method: 'POST' });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect(await json(none)).toMatchObject({ code: 'invalid_token', status: 401 });

    const { body } = await register();
    const accessAsRefresh = await postJson(`${base}/auth/refresh`, { refreshToken: body.accessToken });
    expect(accessAsRefresh.status).toBe(401);
    expect(accessAsRefresh.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect((await json(accessAsRefresh)).code).toBe('invalid_token');
  });

  it('gives 20 racing requests within the grace period the same child, and treats a later replay as theft', async () => {
    const { body } = await register();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => postJson(`${base}/auth/refresh`, { refreshToken: body.refreshToken })),
    );
    const bodies = (await Promise.all(results.map((r) => r.json()))) as TokenBody[];
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(new Set(bodies.map((b) => b.refreshToken)).size).toBe(1);
    const child = bodies[0]?.refreshToken ?? '';

    t.clock.advance(11_000);
    const replay = await fetch(`${base}/auth/refresh`, {
      method: 'POST',
      headers: { cookie: `refresh_token=${body.refreshToken}`, origin: ORIGIN },
    });
    expect(replay.status).toBe(401);
    expect((await json(replay)).code).toBe('invalid_token');
    // A dead refresh cookie is cleared.
    expect(cookieNamed(replay, 'refresh_token')?.attributes['max-age']).toBe('0');
    const current = await postJson(`${base}/auth/refresh`, { refreshToken: child });
    expect(current.status).toBe(401);
  });
});

describe('POST /auth/logout', () => {
  it('revokes the session named by an access token, answers 204 and clears both cookies', async () => {
    const { body } = await register();
    const res = await fetch(`${base}/auth/logout`, { method: 'POST', headers: bearer(body.accessToken) });
    expect(res.status).toBe(204);
    const access = cookieNamed(res, 'access_token');
    const refresh = cookieNamed(res, 'refresh_token');
    expect(access?.value).toBe('');
    expect(access?.attributes).toMatchObject({
      path: '/',
      'max-age': '0',
      httponly: true,
      secure: true,
      samesite: 'Lax',
    });
    expect(new Date(String(access?.attributes.expires)).getTime()).toBeLessThan(Date.now());
    expect(refresh?.value).toBe('');
    expect(refresh?.attributes).toMatchObject({ path: '/api/v1/auth', 'max-age': '0', samesite: 'Strict' });

    const after = await postJson(`${base}/auth/refresh`, { refreshToken: body.refreshToken });
    expect(after.status).toBe(401);
  });

  it('accepts the refresh token from the cookie (same origin) or the Bearer header', async () => {
    const a = await register();
    const viaCookie = await fetch(`${base}/auth/logout`, {
      method: 'POST',
      headers: {
        cookie: `refresh_token=${a.body.refreshToken}; access_token=${a.body.accessToken}`,
        origin: ORIGIN,
      },
    });
    expect(viaCookie.status).toBe(204);
    expect((await postJson(`${base}/auth/refresh`, { refreshToken: a.body.refreshToken })).status).toBe(401);

    const b = await register();
    const viaBearer = await fetch(`${base}/auth/logout`, {
      method: 'POST',
      headers: bearer(b.body.refreshToken),
    });
    expect(viaBearer.status).toBe(204);
    expect((await postJson(`${base}/auth/refresh`, { refreshToken: b.body.refreshToken })).status).toBe(401);
  });

  it('answers 401 invalid_token without a token or with a bad one', async () => {
    const none = await fetch(`${base}/auth/logout`, { method: 'POST' });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    const bad = await fetch(`${base}/auth/logout`, { method: 'POST', headers: bearer('abc.def.ghi') });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
  });
});

describe('tenants', () => {
  it("GET /tenants/me and /tenants/:id answer the caller's tenant", async () => {
    const { body } = await register({ tenantName: 'Blue Team' });
    const me = await fetch(`${base}/tenants/me`, { headers: bearer(body.accessToken) });
    expect(me.status).toBe(200);
    expect(await json(me)).toEqual(body.tenant);
    const byId = await fetch(`${base}/tenants/${body.user.tenantId}`, { headers: bearer(body.accessToken) });
    expect(byId.status).toBe(200);
    expect(await json(byId)).toEqual(body.tenant);
  });

  it('answers the same 404 for another tenant, an unknown id and a malformed id (never 403)', async () => {
    const a = await register();
    const b = await register();
    const answers = await Promise.all(
      [b.body.user.tenantId, '018f0000-0000-7000-8000-000000000000', 'not-a-uuid'].map((id) =>
        fetch(`${base}/tenants/${id}`, { headers: bearer(a.body.accessToken) }),
      ),
    );
    const bodies = await Promise.all(answers.map((r) => r.json()));
    expect(answers.map((r) => r.status)).toEqual([404, 404, 404]);
    expect(bodies[0]).toEqual(bodies[1]);
    expect(bodies[1]).toEqual(bodies[2]);
    expect(bodies[0]).toMatchObject({ code: 'not_found', status: 404, title: 'Not Found' });
  });

  it('answers 401 without a token', async () => {
    const res = await fetch(`${base}/tenants/me`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });
});

describe('sessions', () => {
  it("lists the caller's active sessions with the user agent sent and the current one marked", async () => {
    const { body, email } = await register();
    const login = await postJson(
      `${base}/auth/login`,
      { email, password: PASSWORD },
      {
        'user-agent':
          'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/537.36 Chrome/126.0 Safari/537.36',
      },
    );
    const second = (await json(login)) as TokenBody;
    const res = await fetch(`${base}/sessions`, { headers: bearer(second.accessToken) });
    expect(res.status).toBe(200);
    const { sessions } = await json(res);
    expect(sessions).toHaveLength(2);
    const current = sessions.find((s: { current: boolean }) => s.current);
    expect(current).toEqual({
      id: second.session.id,
      deviceInfo: 'Chrome on macOS',
      ipAddress: expect.stringMatching(/127\.0\.0\.1/),
      userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/537.36 Chrome/126.0 Safari/537.36',
      createdAt: expect.stringMatching(ISO),
      lastUsedAt: expect.stringMatching(ISO),
      expiresAt: expect.stringMatching(ISO),
      current: true,
    });
    expect(sessions.find((s: { id: string }) => s.id === body.session.id)?.current).toBe(false);
  });

  it("DELETE /sessions/:id revokes one of the caller's sessions; another user's is 404", async () => {
    const a = await register();
    const a2 = (await (
      await postJson(`${base}/auth/login`, { email: a.email, password: PASSWORD })
    ).json()) as TokenBody;
    const b = await register();

    const foreign = await fetch(`${base}/sessions/${b.body.session.id}`, {
      method: 'DELETE',
      headers: bearer(a.body.accessToken),
    });
    expect(foreign.status).toBe(404);
    expect((await json(foreign)).code).toBe('not_found');
    expect((await postJson(`${base}/auth/refresh`, { refreshToken: b.body.refreshToken })).status).toBe(200);

    const own = await fetch(`${base}/sessions/${a2.session.id}`, {
      method: 'DELETE',
      headers: bearer(a.body.accessToken),
    });
    expect(own.status).toBe(204);
    expect((await postJson(`${base}/auth/refresh`, { refreshToken: a2.refreshToken })).status).toBe(401);
  });

  it('DELETE /sessions revokes all, or all but the current one with ?except=current', async () => {
    const a = await register();
    const login = () =>
      postJson(`${base}/auth/login`, { email: a.email, password: PASSWORD }).then(
        (r) => r.json() as Promise<TokenBody>,
      );
    const a2 = await login();
    const a3 = await login();

    const except = await fetch(`${base}/sessions?except=current`, {
      method: 'DELETE',
      headers: bearer(a.body.accessToken),
    });
    expect(except.status).toBe(200);
    expect(await json(except)).toEqual({ revoked: 2 });
    expect((await postJson(`${base}/auth/refresh`, { refreshToken: a2.refreshToken })).status).toBe(401);
    expect((await postJson(`${base}/auth/refresh`, { refreshToken: a3.refreshToken })).status).toBe(401);
    const kept = await postJson(`${base}/auth/refresh`, { refreshToken: a.body.refreshToken });
    expect(kept.status).toBe(200);
    const keptBody = (await json(kept)) as TokenBody;

    const all = await fetch(`${base}/sessions`, { method: 'DELETE', headers: bearer(keptBody.accessToken) });
    expect(await json(all)).toEqual({ revoked: 1 });
    expect((await postJson(`${base}/auth/refresh`, { refreshToken: keptBody.refreshToken })).status).toBe(
      401,
    );
  });

  it('refuses an unknown ?except value', async () => {
    const a = await register();
    const res = await fetch(`${base}/sessions?except=everything`, {
      method: 'DELETE',
      headers: bearer(a.body.accessToken),
    });
    expect(res.status).toBe(400);
    expect((await json(res)).code).toBe('validation_failed');
  });
});

describe('requireAuth token sources', () => {
  it('reads the access token from the cookie when there is no Authorization header', async () => {
    const { body } = await register();
    const res = await fetch(`${base}/tenants/me`, {
      headers: { cookie: `access_token=${body.accessToken}` },
    });
    expect(res.status).toBe(200);
  });

  it('uses the Authorization header first: a bad header is refused even with a good cookie', async () => {
    const { body } = await register();
    const res = await fetch(`${base}/tenants/me`, {
      headers: { authorization: 'Bearer abc.def.ghi', cookie: `access_token=${body.accessToken}` },
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    const basic = await fetch(`${base}/tenants/me`, {
      headers: { authorization: 'Basic dXNlcjpwYXNz', cookie: `access_token=${body.accessToken}` },
    });
    expect(basic.status).toBe(401);
  });

  it('refuses a refresh token where an access token is required, and an expired access token', async () => {
    const { body } = await register();
    expect((await fetch(`${base}/tenants/me`, { headers: bearer(body.refreshToken) })).status).toBe(401);
    t.clock.advance(901_000);
    const expired = await fetch(`${base}/tenants/me`, { headers: bearer(body.accessToken) });
    expect(expired.status).toBe(401);
    expect((await json(expired)).code).toBe('invalid_token');
  });
});

describe('health', () => {
  it('answers ok with an access token, 503 degraded while the database is down, and recovers', async () => {
    const { body } = await register();
    const ok = await fetch(`${base}/health`, { headers: bearer(body.accessToken) });
    expect(ok.status).toBe(200);
    expect(await json(ok)).toEqual({ status: 'ok', database: 'ok' });
    dbUp = false;
    const down = await fetch(`${base}/health`, { headers: bearer(body.accessToken) });
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('5');
    expect(await json(down)).toEqual({ status: 'degraded', database: 'unavailable' });
    dbUp = true;
    expect((await fetch(`${base}/health`, { headers: bearer(body.accessToken) })).status).toBe(200);
    expect((await fetch(`${base}/health`)).status).toBe(401);
  });
});

describe('public documents', () => {
  it('GET /.well-known/jwks.json answers no keys for HMAC', async () => {
    const res = await fetch(`${base}/.well-known/jwks.json`);
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ keys: [] });
  });

  it('GET /.well-known/jwks.json answers the public key for EdDSA', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const eddsa = createTestAuth({
      accessToken: { algorithm: 'EdDSA', keys: [{ kid: 'k1', publicKey, privateKey }] },
    });
    const app = new Koa();
    app.use(createCheckedTenantAuthKoa({ auth: eddsa.auth, logger: quiet }).middleware());
    const other = await listen(app);
    try {
      const res = await fetch(`${other.url}/api/v1/.well-known/jwks.json`);
      const { keys } = await json(res);
      expect(keys).toEqual([expect.objectContaining({ kty: 'OKP', crv: 'Ed25519', kid: 'k1' })]);
      expect(keys[0]).not.toHaveProperty('d');
    } finally {
      await other.close();
    }
  });

  it('GET /openapi.json is an OpenAPI 3.1 document covering every route and method of the router', async () => {
    const res = await fetch(`${base}/openapi.json`);
    expect(res.status).toBe(200);
    const doc = await json(res);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: '/api/v1' }]);
    const definitions = createRoutes({
      auth: t.auth,
      prefix: '/api/v1',
      cookies: koaSide.cookies,
      origins: koaSide.origins,
      health: healthCheck({ ping: async () => {} }),
      scim: undefined,
      openapiJson: '{}',
      bodyLimitBytes: 16 * 1024,
    });
    const routes = definitions.map((route) => ({ method: route.method.toLowerCase(), path: route.path }));
    expect(routes.length).toBeGreaterThanOrEqual(12);
    for (const { method, path } of routes) {
      const openapiPath = path.replace(/:(\w+)/g, '{$1}');
      const operation = doc.paths[openapiPath]?.[method];
      expect(operation, `${method} ${openapiPath}`).toBeDefined();
      expect(Object.keys(operation.responses).length).toBeGreaterThan(1);
    }
    // Every $ref resolves.
    const text = JSON.stringify(doc);
    for (const [, kind, name] of text.matchAll(/"#\/components\/(\w+)\/(\w+)"/g)) {
      expect(doc.components[kind as string]?.[name as string], `${kind}/${name}`).toBeDefined();
    }
    expect(doc.components.schemas.RegisterRequest.properties).toHaveProperty('tenantName');
    expect(doc.components.schemas.Problem.required).toEqual(['type', 'title', 'status', 'code', 'detail']);
    expect(doc.components.securitySchemes.accessCookie).toMatchObject({
      type: 'apiKey',
      in: 'cookie',
      name: 'access_token',
    });
  });
});
