import { randomUUID } from 'node:crypto';
import { ManualClock } from 'tenant-auth-core/testing';
import type { RegisterResponseJson, TokenResponseJson } from 'tenant-auth-koa/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, PASSWORD, setCookies, uniqueEmail } from './helpers/http.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from './helpers/postgres.js';
import { startTestServer, type TestServer } from './helpers/test-server.js';

/** A token response; registration's also carries the tenant. */
type TokenBody = TokenResponseJson & Partial<Pick<RegisterResponseJson, 'tenant'>>;

interface Problem {
  type: string;
  title: string;
  status: number;
  code: string;
  detail?: string;
  errors?: { field: string; code: string; message: string }[];
}

const backends = [{ name: 'pglite' }, ...(TEST_DATABASE_URL ? [{ name: 'postgres' }] : [])];

describe.each(backends)('the /api/v1 contract on $name', ({ name }) => {
  let server: TestServer;
  let db: TestDatabase | undefined;
  const clock = new ManualClock(Date.now());
  let url: string;

  beforeAll(async () => {
    if (name === 'postgres') db = await createTestDatabase(TEST_DATABASE_URL as string);
    server = await startTestServer({ DATABASE_URL: db?.url ?? 'memory:' }, { clock });
    url = server.baseUrl;
  });
  afterAll(async () => {
    await server?.close();
    await db?.drop();
  });

  async function register(extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
    const email = uniqueEmail();
    const r = await api<TokenBody>(url, '/auth/register', {
      body: { email, password: PASSWORD, ...extra },
      headers,
    });
    expect(r.status).toBe(201);
    return { ...r.body, email, cookies: setCookies(r.res) };
  }

  function expectProblem(
    r: { status: number; headers: Headers; body: unknown },
    status: number,
    code: string,
  ) {
    expect(r.status).toBe(status);
    expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(r.body).toMatchObject({ type: 'about:blank', status, code, title: expect.any(String) });
    const text = JSON.stringify(r.body);
    expect(text).not.toMatch(/stack|select |insert |at .*\.ts:/i);
  }

  describe('POST /auth/register', () => {
    it('creates a tenant and its owner and answers 201 with the token response and cookies', async () => {
      const email = uniqueEmail('ada');
      const r = await api<TokenBody>(url, '/auth/register', {
        body: { email: email.toUpperCase(), password: PASSWORD, tenantName: 'Analytical Engines' },
      });
      expect(r.status).toBe(201);
      expect(r.body).toEqual({
        user: {
          id: expect.any(String),
          email,
          tenantId: expect.any(String),
          role: 'owner',
          emailVerified: false,
        },
        // API 1.2: how the session was authenticated, and when.
        session: {
          id: expect.any(String),
          expiresAt: expect.any(String),
          amr: ['pwd'],
          authTime: expect.any(String),
        },
        accessToken: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
        refreshToken: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
        tokenType: 'Bearer',
        expiresIn: 900,
        refreshExpiresIn: 604800,
        tenant: {
          id: r.body.user.tenantId,
          slug: expect.any(String),
          name: 'Analytical Engines',
          createdAt: expect.any(String),
        },
      });
      // Whole seconds, like the refresh token's `exp`.
      expect(new Date(r.body.session.expiresAt).getTime()).toBe(
        Math.floor(clock.now().getTime() / 1000) * 1000 + 604800_000,
      );
      expect(JSON.stringify(r.body)).not.toMatch(/\$2[aby]\$|passwordHash/);
      const cookies = setCookies(r.res);
      expect(cookies.access_token).toMatchObject({
        value: r.body.accessToken,
        attributes: { httponly: true, secure: true, samesite: 'Lax', path: '/', 'max-age': '900' },
      });
      expect(cookies.refresh_token).toMatchObject({
        value: r.body.refreshToken,
        attributes: {
          httponly: true,
          secure: true,
          samesite: 'Strict',
          path: '/api/v1/auth',
          'max-age': '604800',
        },
      });
    });

    it('refuses an invalid email, a weak password and an email in use with 400 validation_failed', async () => {
      const bad = await api<Problem>(url, '/auth/register', {
        body: { email: 'not-an-email', password: PASSWORD },
      });
      expectProblem(bad, 400, 'validation_failed');
      expect(bad.body.errors).toContainEqual(
        expect.objectContaining({ field: 'email', code: 'invalid_email' }),
      );

      const weak = await api<Problem>(url, '/auth/register', {
        body: { email: uniqueEmail(), password: 'short' },
      });
      expectProblem(weak, 400, 'validation_failed');
      expect(weak.body.errors).toContainEqual(
        expect.objectContaining({ field: 'password', code: 'too_short' }),
      );

      const { email } = await register();
      const taken = await api<Problem>(url, '/auth/register', { body: { email, password: PASSWORD } });
      expectProblem(taken, 400, 'validation_failed');
      expect(taken.body.errors).toContainEqual(
        expect.objectContaining({ field: 'email', code: 'email_taken' }),
      );

      const missing = await api<Problem>(url, '/auth/register', { body: {} });
      expectProblem(missing, 400, 'validation_failed');
    });
  });

  describe('POST /auth/login', () => {
    it('answers 200 with a token response and cookies', async () => {
      const { email, user } = await register();
      const r = await api<TokenBody>(url, '/auth/login', { body: { email, password: PASSWORD } });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ user, tokenType: 'Bearer', expiresIn: 900, refreshExpiresIn: 604800 });
      expect(r.body.tenant).toBeUndefined();
      expect(Object.keys(setCookies(r.res)).sort()).toEqual(['access_token', 'refresh_token']);
    });

    it('gives the identical 401 invalid_credentials for an unknown email and a wrong password', async () => {
      const { email } = await register();
      const wrong = await api<Problem>(url, '/auth/login', { body: { email, password: `${PASSWORD}x` } });
      const unknown = await api<Problem>(url, '/auth/login', {
        body: { email: uniqueEmail('nobody'), password: PASSWORD },
      });
      expectProblem(wrong, 401, 'invalid_credentials');
      expect(unknown.body).toEqual(wrong.body);
      expect(unknown.status).toBe(wrong.status);
      expect(wrong.res.headers.getSetCookie()).toEqual([]);
    });

    it('answers 400 validation_failed to a malformed body', async () => {
      expectProblem(await api(url, '/auth/login', { body: { email: 42 } }), 400, 'validation_failed');
    });
  });

  describe('POST /auth/refresh', () => {
    it('rotates a refresh token from the body, the cookie or the Authorization header', async () => {
      const first = await register();
      const viaBody = await api<TokenBody>(url, '/auth/refresh', {
        body: { refreshToken: first.refreshToken },
      });
      expect(viaBody.status).toBe(200);
      expect(viaBody.body.refreshToken).not.toBe(first.refreshToken);
      expect(viaBody.body.session.id).toBe(first.session.id);
      expect(setCookies(viaBody.res).refresh_token?.value).toBe(viaBody.body.refreshToken);

      const viaCookie = await api<TokenBody>(url, '/auth/refresh', {
        body: {},
        headers: { cookie: `refresh_token=${viaBody.body.refreshToken}`, origin: 'http://localhost:5173' },
      });
      expect(viaCookie.status).toBe(200);
      expect(viaCookie.body.refreshToken).not.toBe(viaBody.body.refreshToken);

      const viaHeader = await api<TokenBody>(url, '/auth/refresh', {
        body: {},
        token: viaCookie.body.refreshToken,
      });
      expect(viaHeader.status).toBe(200);
      expect(viaHeader.body.user).toEqual(first.user);
    });

    it('answers 401 invalid_token without a token, with a garbage one, or with an access token', async () => {
      const { accessToken } = await register();
      for (const r of [
        await api(url, '/auth/refresh', { body: {} }),
        await api(url, '/auth/refresh', { body: { refreshToken: 'garbage' } }),
        await api(url, '/auth/refresh', { body: { refreshToken: accessToken } }),
      ]) {
        expectProblem(r, 401, 'invalid_token');
        expect(r.headers.get('www-authenticate')).toMatch(/^Bearer/);
      }
    });

    it('gives every request within the grace period the same new token, and treats reuse after it as a replay', async () => {
      const { refreshToken } = await register();
      const rotated = await api<TokenBody>(url, '/auth/refresh', { body: { refreshToken } });
      expect(rotated.status).toBe(200);
      clock.advance(5_000);
      const again = await api<TokenBody>(url, '/auth/refresh', { body: { refreshToken } });
      expect(again.status).toBe(200);
      expect(again.body.refreshToken).toBe(rotated.body.refreshToken);

      clock.advance(6_000);
      const replay = await api(url, '/auth/refresh', { body: { refreshToken } });
      expectProblem(replay, 401, 'invalid_token');
      // The whole session is revoked: its current token stops working too.
      expectProblem(
        await api(url, '/auth/refresh', { body: { refreshToken: rotated.body.refreshToken } }),
        401,
        'invalid_token',
      );
      const log = server.logs.join('\n');
      expect(log).toContain('"event":"replay_detected"');
    });

    it('rotates once for 20 concurrent refreshes: all succeed with the identical new token', async () => {
      const { refreshToken, session } = await register();
      const results = await Promise.all(
        Array.from({ length: 20 }, () => api<TokenBody>(url, '/auth/refresh', { body: { refreshToken } })),
      );
      expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
      const tokens = new Set(results.map((r) => r.body.refreshToken));
      expect(tokens.size).toBe(1);
      expect(tokens.has(refreshToken)).toBe(false);
      expect(results.every((r) => r.body.session.id === session.id)).toBe(true);
      const next = await api<TokenBody>(url, '/auth/refresh', { body: { refreshToken: [...tokens][0] } });
      expect(next.status).toBe(200);
    });
  });

  describe('POST /auth/logout', () => {
    it('revokes the session, clears both cookies and stops refreshes at once', async () => {
      const { accessToken, refreshToken } = await register();
      const r = await api(url, '/auth/logout', { method: 'POST', token: accessToken });
      expect(r.status).toBe(204);
      const cookies = setCookies(r.res);
      for (const [cookieName, path] of [
        ['access_token', '/'],
        ['refresh_token', '/api/v1/auth'],
      ] as const) {
        const c = cookies[cookieName];
        expect(c?.value).toBe('');
        expect(c?.attributes.path).toBe(path);
        const expired =
          c?.attributes['max-age'] === '0' || new Date(String(c?.attributes.expires)).getTime() < Date.now();
        expect(expired).toBe(true);
      }
      expectProblem(await api(url, '/auth/refresh', { body: { refreshToken } }), 401, 'invalid_token');
    });

    it('accepts a refresh token and refuses a request without a token', async () => {
      const { refreshToken } = await register();
      expect((await api(url, '/auth/logout', { method: 'POST', token: refreshToken })).status).toBe(204);
      expectProblem(await api(url, '/auth/refresh', { body: { refreshToken } }), 401, 'invalid_token');
      const none = await api(url, '/auth/logout', { method: 'POST' });
      expectProblem(none, 401, 'invalid_token');
      expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    });
  });

  describe('GET /health', () => {
    it('answers 200 ok with an access token, 401 without or with a refresh token', async () => {
      const { accessToken, refreshToken } = await register();
      const ok = await api(url, '/health', { token: accessToken });
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual({ status: 'ok', database: 'ok' });
      const viaCookie = await api(url, '/health', { headers: { cookie: `access_token=${accessToken}` } });
      expect(viaCookie.status).toBe(200);
      const none = await api(url, '/health');
      expectProblem(none, 401, 'invalid_token');
      expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expectProblem(await api(url, '/health', { token: refreshToken }), 401, 'invalid_token');
      expectProblem(
        await api(url, '/health', { token: `${accessToken.slice(0, -2)}xx` }),
        401,
        'invalid_token',
      );
    });

    it('prefers the Authorization header over the cookie', async () => {
      const { accessToken } = await register();
      const r = await api(url, '/health', {
        token: 'not.a.token',
        headers: { cookie: `access_token=${accessToken}` },
      });
      expectProblem(r, 401, 'invalid_token');
    });

    it('refuses an access token after it expires (15 minutes)', async () => {
      const { accessToken } = await register();
      clock.advance(15 * 60_000 + 1000);
      expectProblem(await api(url, '/health', { token: accessToken }), 401, 'invalid_token');
    });
  });

  describe('tenants', () => {
    it("GET /tenants/me and /tenants/:id answer the caller's own tenant", async () => {
      const a = await register({ tenantName: 'Tenant A' });
      const me = await api(url, '/tenants/me', { token: a.accessToken });
      expect(me.status).toBe(200);
      expect(me.body).toEqual({
        id: a.user.tenantId,
        slug: a.tenant?.slug,
        name: 'Tenant A',
        createdAt: a.tenant?.createdAt,
      });
      const byId = await api(url, `/tenants/${a.user.tenantId}`, { token: a.accessToken });
      expect(byId.status).toBe(200);
      expect(byId.body).toEqual(me.body);
      expectProblem(await api(url, '/tenants/me'), 401, 'invalid_token');
    });

    it('answers 404 not_found (never 403) for another tenant, an unknown id or garbage', async () => {
      const a = await register();
      const b = await register();
      for (const id of [b.user.tenantId, randomUUID(), 'not-a-uuid', '..%2F..%2Fetc']) {
        expectProblem(await api(url, `/tenants/${id}`, { token: a.accessToken }), 404, 'not_found');
      }
    });
  });

  describe('sessions', () => {
    it("lists the caller's active sessions with the user agent sent, marking the current one", async () => {
      const a = await register({}, { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0' });
      const second = await api<TokenBody>(url, '/auth/login', {
        body: { email: a.email, password: PASSWORD, deviceInfo: "Ada's phone" },
        headers: { 'user-agent': 'TenantAuthTest/1.0' },
      });
      const other = await register();
      const r = await api<{ sessions: Record<string, unknown>[] }>(url, '/sessions', {
        token: a.accessToken,
      });
      expect(r.status).toBe(200);
      expect(r.body.sessions).toHaveLength(2);
      const mine = r.body.sessions.find((s) => s.id === a.session.id);
      const phone = r.body.sessions.find((s) => s.id === second.body.session.id);
      expect(mine).toEqual({
        id: a.session.id,
        deviceInfo: expect.stringMatching(/Firefox/),
        ipAddress: expect.stringMatching(/^(::ffff:)?127\.0\.0\.1$|^::1$/),
        userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0',
        createdAt: expect.any(String),
        lastUsedAt: expect.any(String),
        expiresAt: expect.any(String),
        current: true,
      });
      expect(phone).toMatchObject({
        deviceInfo: "Ada's phone",
        userAgent: 'TenantAuthTest/1.0',
        current: false,
      });
      expect(r.body.sessions.some((s) => s.id === other.session.id)).toBe(false);
    });

    it('DELETE /sessions/:id takes the id in any case, the same on every backend', async () => {
      const a = await register();
      const second = await api<TokenBody>(url, '/auth/login', {
        body: { email: a.email, password: PASSWORD },
      });
      const upper = second.body.session.id.toUpperCase();
      expect((await api(url, `/sessions/${upper}`, { method: 'DELETE', token: a.accessToken })).status).toBe(
        204,
      );
      expect(
        (await api(url, '/auth/refresh', { body: { refreshToken: second.body.refreshToken } })).status,
      ).toBe(401);
      const other = await register();
      expectProblem(
        await api(url, `/sessions/${other.session.id.toUpperCase()}`, {
          method: 'DELETE',
          token: a.accessToken,
        }),
        404,
        'not_found',
      );
      expect(
        (await api(url, `/tenants/${a.tenant?.id.toUpperCase()}`, { token: a.accessToken })).status,
      ).toBe(200);
    });

    it('refuses control characters in an email or a tenant name with 400 validation_failed, on every backend', async () => {
      const login = await api(url, '/auth/login', {
        body: { email: 'ada\u0000@example.com', password: PASSWORD },
      });
      expectProblem(login, 400, 'validation_failed');
      const name = await api(url, '/auth/register', {
        body: { email: uniqueEmail(), password: PASSWORD, tenantName: 'Acme\u0000Corp' },
      });
      expectProblem(name, 400, 'validation_failed');
      const email = await api(url, '/auth/register', {
        body: { email: 'a\u0000b@example.com', password: PASSWORD },
      });
      expectProblem(email, 400, 'validation_failed');
      // No false outage was logged.
      expect(
        server.logs.filter((l) => /"level":"error"/.test(l) && /unavailable|08P01|22021/.test(l)),
      ).toEqual([]);
    });

    it("DELETE /sessions/:id revokes one of the caller's sessions; another user's is not found", async () => {
      const a = await register();
      const second = await api<TokenBody>(url, '/auth/login', {
        body: { email: a.email, password: PASSWORD },
      });
      const other = await register();
      expectProblem(
        await api(url, `/sessions/${other.session.id}`, { method: 'DELETE', token: a.accessToken }),
        404,
        'not_found',
      );
      expectProblem(
        await api(url, `/sessions/${randomUUID()}`, { method: 'DELETE', token: a.accessToken }),
        404,
        'not_found',
      );
      // The other user's session still works.
      expect((await api(url, '/auth/refresh', { body: { refreshToken: other.refreshToken } })).status).toBe(
        200,
      );

      const del = await api(url, `/sessions/${second.body.session.id}`, {
        method: 'DELETE',
        token: a.accessToken,
      });
      expect(del.status).toBe(204);
      expectProblem(
        await api(url, '/auth/refresh', { body: { refreshToken: second.body.refreshToken } }),
        401,
        'invalid_token',
      );
      const list = await api<{ sessions: { id: string }[] }>(url, '/sessions', { token: a.accessToken });
      expect(list.body.sessions.map((s) => s.id)).toEqual([a.session.id]);
    });

    it("DELETE /sessions?except=current keeps the caller's own; DELETE /sessions revokes all", async () => {
      const a = await register();
      const logins = await Promise.all(
        [1, 2].map(() =>
          api<TokenBody>(url, '/auth/login', { body: { email: a.email, password: PASSWORD } }),
        ),
      );
      const except = await api(url, '/sessions?except=current', { method: 'DELETE', token: a.accessToken });
      expect(except.status).toBe(200);
      expect(except.body).toEqual({ revoked: 2 });
      for (const l of logins) {
        expectProblem(
          await api(url, '/auth/refresh', { body: { refreshToken: l.body.refreshToken } }),
          401,
          'invalid_token',
        );
      }
      const all = await api(url, '/sessions', { method: 'DELETE', token: a.accessToken });
      expect(all.body).toEqual({ revoked: 1 });
      expectProblem(
        await api(url, '/auth/refresh', { body: { refreshToken: a.refreshToken } }),
        401,
        'invalid_token',
      );
      expectProblem(await api(url, '/sessions'), 401, 'invalid_token');
    });
  });

  describe('discovery', () => {
    it('GET /.well-known/jwks.json answers an empty key set for HMAC', async () => {
      const r = await api(url, '/.well-known/jwks.json');
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ keys: [] });
    });

    it('GET /openapi.json describes every endpoint in OpenAPI 3.1', async () => {
      const r = await api<{ openapi: string; paths: Record<string, Record<string, unknown>> }>(
        url,
        '/openapi.json',
      );
      expect(r.status).toBe(200);
      expect(r.body.openapi).toMatch(/^3\.1\./);
      const ops = Object.entries(r.body.paths).flatMap(([p, methods]) =>
        Object.keys(methods).map((m) => `${m.toUpperCase()} ${p.replace(/^\/api\/v1/, '')}`),
      );
      for (const op of [
        'POST /auth/register',
        'POST /auth/login',
        'POST /auth/refresh',
        'POST /auth/logout',
        'GET /health',
        'GET /tenants/me',
        'GET /tenants/{id}',
        'GET /sessions',
        'DELETE /sessions/{id}',
        'DELETE /sessions',
        'GET /.well-known/jwks.json',
      ]) {
        expect(ops).toContain(op);
      }
    });
  });

  describe('errors', () => {
    it('answers 404 not_found for an unknown route', async () => {
      const r = await api(url, '/nope');
      expectProblem(r, 404, 'not_found');
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.headers.get('x-frame-options')).toBe('DENY');
      expect(r.headers.get('referrer-policy')).toBe('no-referrer');
      expect(r.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expectProblem(await api(url, '/auth/nope', { body: {} }), 404, 'not_found');
    });

    it('answers 400 invalid_json to broken JSON and to __proto__ or constructor keys', async () => {
      const headers = { 'content-type': 'application/json' };
      expectProblem(await api(url, '/auth/login', { rawBody: '{"email":', headers }), 400, 'invalid_json');
      expectProblem(
        await api(url, '/auth/login', {
          rawBody: '{"email":"a@example.com","__proto__":{"admin":true}}',
          headers,
        }),
        400,
        'invalid_json',
      );
      expectProblem(
        await api(url, '/auth/register', {
          rawBody: '{"deviceInfo":{"constructor":{"prototype":{}}}}',
          headers,
        }),
        400,
        'invalid_json',
      );
    });

    it('answers 415 to an unsafe request whose body is not application/json', async () => {
      const form = await api(url, '/auth/login', {
        rawBody: `email=a%40example.com&password=${PASSWORD}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expectProblem(form, 415, 'unsupported_media_type');
      const text = await api(url, '/auth/login', {
        rawBody: JSON.stringify({ email: 'a@example.com', password: PASSWORD }),
        headers: { 'content-type': 'text/plain' },
      });
      expectProblem(text, 415, 'unsupported_media_type');
    });

    it('answers 413 to a body over 16 KiB', async () => {
      const r = await api(url, '/auth/login', {
        body: { email: 'a@example.com', password: 'x'.repeat(17 * 1024) },
      });
      expectProblem(r, 413, 'payload_too_large');
    });
  });

  describe('CSRF and CORS', () => {
    it('refuses a cookie-authenticated unsafe request from a foreign origin with 403 csrf_rejected', async () => {
      const a = await register();
      const cookie = `access_token=${a.accessToken}`;
      const evil = await api(url, '/sessions', {
        method: 'DELETE',
        headers: { cookie, origin: 'https://evil.example' },
      });
      expectProblem(evil, 403, 'csrf_rejected');
      const noOrigin = await api(url, '/sessions', { method: 'DELETE', headers: { cookie } });
      expectProblem(noOrigin, 403, 'csrf_rejected');
      const viaReferer = await api(url, '/sessions?except=current', {
        method: 'DELETE',
        headers: { cookie, referer: 'http://localhost:5173/settings' },
      });
      expect(viaReferer.status).toBe(200);
      const allowed = await api(url, '/sessions?except=current', {
        method: 'DELETE',
        headers: { cookie, origin: 'http://localhost:5173' },
      });
      expect(allowed.status).toBe(200);
      // A Bearer request carries no ambient credential: the origin does not matter.
      const bearer = await api(url, '/sessions?except=current', {
        method: 'DELETE',
        token: a.accessToken,
        headers: { origin: 'https://evil.example' },
      });
      expect(bearer.status).toBe(200);
      // Refresh through the cookie from a foreign origin is refused as well.
      const refresh = await api(url, '/auth/refresh', {
        body: {},
        headers: { cookie: `refresh_token=${a.refreshToken}`, origin: 'https://evil.example' },
      });
      expectProblem(refresh, 403, 'csrf_rejected');
    });

    it('answers a preflight from an allowed origin with credentials and Max-Age 3600', async () => {
      const res = await fetch(`${url}/api/v1/auth/login`, {
        method: 'OPTIONS',
        headers: {
          origin: 'http://localhost:5173',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      });
      expect(res.status).toBeLessThan(300);
      expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
      expect(res.headers.get('access-control-allow-credentials')).toBe('true');
      expect(res.headers.get('access-control-max-age')).toBe('3600');
      expect(res.headers.get('access-control-allow-methods')).toMatch(/POST/);
      expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toMatch(/content-type/);
    });

    it('gives a refused origin no Access-Control-Allow-Origin', async () => {
      for (const origin of ['https://evil.example', 'http://localhost:5173.evil.example', 'null']) {
        const res = await fetch(`${url}/api/v1/auth/login`, {
          method: 'OPTIONS',
          headers: { origin, 'access-control-request-method': 'POST' },
        });
        expect(res.headers.get('access-control-allow-origin')).toBeNull();
        expect(res.headers.get('access-control-allow-credentials')).toBeNull();
      }
      const simple = await fetch(`${url}/api/v1/.well-known/jwks.json`, {
        headers: { origin: 'https://evil.example' },
      });
      expect(simple.headers.get('access-control-allow-origin')).toBeNull();
      const allowed = await fetch(`${url}/api/v1/.well-known/jwks.json`, {
        headers: { origin: 'http://localhost:3000' },
      });
      expect(allowed.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    });
  });

  describe('logs', () => {
    it('write one line per request and per auth event, and never a password, token or hash', async () => {
      const before = server.logs.length;
      const email = uniqueEmail('logged');
      const reg = await api<TokenBody>(url, '/auth/register', { body: { email, password: PASSWORD } });
      const login = await api<TokenBody>(url, '/auth/login', { body: { email, password: PASSWORD } });
      await api(url, '/auth/login', { body: { email, password: `${PASSWORD}-wrong` } });
      const refreshed = await api<TokenBody>(url, '/auth/refresh', {
        body: {},
        headers: { cookie: `refresh_token=${login.body.refreshToken}`, origin: 'http://localhost:3000' },
      });
      await api(url, `/health?token=${refreshed.body.accessToken}`, { token: refreshed.body.accessToken });
      const revoke = await api(url, `/sessions/${reg.body.session.id}`, {
        method: 'DELETE',
        token: refreshed.body.accessToken,
      });
      expect(revoke.status).toBe(204);
      await api(url, '/auth/logout', { method: 'POST', token: refreshed.body.accessToken });
      const lines = server.logs.slice(before);
      const text = lines.join('\n');
      expect(text).not.toContain(PASSWORD);
      for (const token of [
        reg.body.accessToken,
        reg.body.refreshToken,
        login.body.accessToken,
        login.body.refreshToken,
        refreshed.body.accessToken,
        refreshed.body.refreshToken,
      ]) {
        const parts = token.split('.');
        expect(parts).toHaveLength(3);
        expect(text).not.toContain(token);
        // Not even the signature part of a token.
        expect(text).not.toContain(parts[2]);
      }
      expect(text).not.toMatch(/\$2[aby]\$\d\d\$/);
      const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      const requests = parsed.filter((l) => l.event === 'request');
      expect(requests).toHaveLength(7);
      expect(requests[0]).toMatchObject({
        method: 'POST',
        path: '/api/v1/auth/register',
        status: 201,
        ms: expect.any(Number),
        ip: expect.any(String),
        requestId: expect.any(String),
      });
      expect(requests[4]).toMatchObject({ path: '/api/v1/health', status: 200 });
      const event = (type: string) => parsed.find((l) => l.event === type);
      expect(event('registered')).toMatchObject({
        actorId: reg.body.user.id,
        subjectId: reg.body.user.id,
        tenantId: reg.body.user.tenantId,
        ip: expect.any(String),
      });
      expect(event('login_succeeded')).toMatchObject({
        actorId: reg.body.user.id,
        sessionId: login.body.session.id,
      });
      expect(event('login_failed')).toMatchObject({ ip: expect.any(String) });
      expect(event('refreshed')).toMatchObject({
        sessionId: login.body.session.id,
        tenantId: reg.body.user.tenantId,
      });
      expect(event('logout')).toMatchObject({ sessionId: login.body.session.id, ip: requests[6]?.ip });
      expect(event('session_revoked')).toMatchObject({
        actorId: reg.body.user.id,
        tenantId: reg.body.user.tenantId,
        sessionId: reg.body.session.id,
        ip: requests[5]?.ip,
      });
      // Every auth event names the request it happened in.
      const byType: [string, number][] = [
        ['registered', 0],
        ['login_succeeded', 1],
        ['login_failed', 2],
        ['refreshed', 3],
        ['session_revoked', 5],
        ['logout', 6],
      ];
      for (const [type, index] of byType) {
        expect(event(type)?.requestId, type).toBe(requests[index]?.requestId);
      }
      expect(new Set(requests.map((r) => r.requestId)).size).toBe(7);
    });
  });
});
