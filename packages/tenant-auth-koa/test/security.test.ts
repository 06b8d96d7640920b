import { connect, type Socket } from 'node:net';
import Router from '@koa/router';
import Koa from 'koa';
import { TenantAuthError } from 'tenant-auth-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_CONCURRENT_DRAINS } from '../src/body-discard.js';
import { createTenantAuthKoa, type TenantAuthKoa, type TenantAuthKoaOptions } from '../src/index.js';
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

let t: TestAuth;
let server: Running;
let base: string;
let logged: { obj: object; msg: string | undefined }[];

async function start(
  options: Partial<TenantAuthKoaOptions> = {},
  extra?: (app: Koa, side: TenantAuthKoa) => void,
) {
  const app = new Koa();
  const side = createCheckedTenantAuthKoa({
    auth: t.auth,
    logger: {
      error: (obj, msg) => logged.push({ obj, msg }),
      warn: (obj, msg) => logged.push({ obj, msg }),
      info: () => {},
    },
    ...options,
  });
  app.use(side.middleware());
  extra?.(app, side);
  server = await listen(app);
  base = `${server.url}/api/v1`;
}

beforeEach(() => {
  t = createTestAuth();
  logged = [];
});

afterEach(async () => {
  await server?.close();
});

async function registered(): Promise<TokenBody & { email: string }> {
  const email = uniqueEmail();
  const res = await postJson(`${base}/auth/register`, { email, password: PASSWORD });
  expect(res.status).toBe(201);
  return { ...((await json(res)) as TokenBody), email };
}

describe('CSRF', () => {
  beforeEach(() => start());

  it('refuses a cookie-authenticated unsafe request from a foreign origin with 403 csrf_rejected', async () => {
    const user = await registered();
    const res = await fetch(`${base}/sessions`, {
      method: 'DELETE',
      headers: { cookie: `access_token=${user.accessToken}`, origin: 'https://evil.example' },
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await json(res)).toMatchObject({ status: 403, code: 'csrf_rejected', title: 'Forbidden' });
    // Nothing was revoked.
    expect((await postJson(`${base}/auth/refresh`, { refreshToken: user.refreshToken })).status).toBe(200);
  });

  it('refuses a cookie-authenticated unsafe request with neither Origin nor Referer (fail closed)', async () => {
    const user = await registered();
    const res = await fetch(`${base}/sessions/${user.session.id}`, {
      method: 'DELETE',
      headers: { cookie: `access_token=${user.accessToken}` },
    });
    expect(res.status).toBe(403);
    expect((await json(res)).code).toBe('csrf_rejected');
  });

  it('uses the Referer origin when Origin is absent, and never matches the null origin or look-alikes', async () => {
    const user = await registered();
    const attempt = (headers: Record<string, string>) =>
      fetch(`${base}/sessions?except=current`, {
        method: 'DELETE',
        headers: { cookie: `access_token=${user.accessToken}`, ...headers },
      });
    expect((await attempt({ origin: 'null' })).status).toBe(403);
    expect((await attempt({ origin: `${ORIGIN}.evil.example` })).status).toBe(403);
    expect((await attempt({ origin: 'http://localhost:51730' })).status).toBe(403);
    expect((await attempt({ referer: 'https://evil.example/http://localhost:5173/' })).status).toBe(403);
    expect((await attempt({ referer: `${ORIGIN}/settings?tab=sessions` })).status).toBe(200);
    expect((await attempt({ origin: ORIGIN })).status).toBe(200);
  });

  it('does not apply to Bearer requests, and safe methods with a cookie pass', async () => {
    const user = await registered();
    const bearer = await fetch(`${base}/sessions?except=current`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${user.accessToken}`, cookie: `access_token=${user.accessToken}` },
    });
    expect(bearer.status).toBe(200);
    const get = await fetch(`${base}/sessions`, {
      headers: { cookie: `access_token=${user.accessToken}`, origin: 'https://evil.example' },
    });
    expect(get.status).toBe(200);
  });

  it('guards refresh and logout by cookie', async () => {
    const user = await registered();
    const refresh = await fetch(`${base}/auth/refresh`, {
      method: 'POST',
      headers: { cookie: `refresh_token=${user.refreshToken}`, origin: 'https://evil.example' },
    });
    expect(refresh.status).toBe(403);
    expect((await json(refresh)).code).toBe('csrf_rejected');
    const logout = await fetch(`${base}/auth/logout`, {
      method: 'POST',
      headers: { cookie: `refresh_token=${user.refreshToken}` },
    });
    expect(logout.status).toBe(403);
    // The session survived both attempts.
    expect((await postJson(`${base}/auth/refresh`, { refreshToken: user.refreshToken })).status).toBe(200);
  });
});

describe('request bodies', () => {
  it('refuses unsafe requests whose body is not application/json with 415', async () => {
    await start();
    const email = uniqueEmail();
    const cases: [string | undefined, string | Uint8Array][] = [
      ['application/x-www-form-urlencoded', `email=${email}&password=${PASSWORD}`],
      ['text/plain', JSON.stringify({ email, password: PASSWORD })],
      [
        'multipart/form-data; boundary=x',
        `--x\r\nContent-Disposition: form-data; name="email"\r\n\r\n${email}\r\n--x--`,
      ],
      ['application/json; charset=latin1', JSON.stringify({ email, password: PASSWORD })],
      ['application/json-patch+json', '[]'],
    ];
    for (const [type, body] of cases) {
      const res = await fetch(`${base}/auth/register`, {
        method: 'POST',
        headers: type ? { 'content-type': type } : {},
        body,
      });
      expect(res.status, String(type)).toBe(415);
      expect(await json(res)).toMatchObject({
        status: 415,
        code: 'unsupported_media_type',
        title: 'Unsupported Media Type',
      });
    }
    // A body without any Content-Type (fetch sends text/plain for strings, so use bytes).
    const untyped = await fetch(`${base}/auth/login`, { method: 'POST', body: new Uint8Array([123, 125]) });
    expect(untyped.status).toBe(415);
    // A bodiless POST may not claim to be a form either.
    const formLogout = await fetch(`${base}/auth/logout`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(formLogout.status).toBe(415);
    // The registration did not happen.
    expect((await postJson(`${base}/auth/login`, { email, password: PASSWORD })).status).toBe(401);
  });

  it('accepts a bodiless POST without Content-Type and application/json with charset utf-8', async () => {
    await start();
    const user = await registered();
    const logout = await fetch(`${base}/auth/logout`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.accessToken}` },
    });
    expect(logout.status).toBe(204);
    const login = await fetch(`${base}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=UTF-8' },
      body: JSON.stringify({ email: user.email, password: PASSWORD }),
    });
    expect(login.status).toBe(200);
  });

  it('refuses a body above the limit with 413 payload_too_large (16 KiB by default, configurable)', async () => {
    await start();
    const big = { email: uniqueEmail(), password: PASSWORD, deviceInfo: 'x'.repeat(16 * 1024) };
    const res = await postJson(`${base}/auth/register`, big);
    expect(res.status).toBe(413);
    expect(await json(res)).toMatchObject({
      status: 413,
      code: 'payload_too_large',
      title: 'Payload Too Large',
    });
    const chunked = await fetch(`${base}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(`{"email":"${'a'.repeat(20_000)}"}`));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    const nearLimit = await postJson(`${base}/auth/login`, {
      email: 'a@example.com',
      password: 'x'.repeat(1000),
    });
    expect(nearLimit.status).toBe(401);

    await server.close();
    await start({ bodyLimitBytes: 100 });
    const small = await postJson(`${base}/auth/login`, { email: 'a@example.com', password: 'x'.repeat(200) });
    expect(small.status).toBe(413);
  });

  it('drains at most MAX_CONCURRENT_DRAINS refused bodies at once; past that, 413 at once with Connection: close', async () => {
    await start();
    const { port } = new URL(base);
    // A declared 1 MiB body (under the drain's bound), of which nothing is sent: the 413 is decided on the
    // length, and its drain then waits for bytes that never come.
    const open = (): Promise<{ socket: Socket; answer: Promise<string> }> =>
      new Promise((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () => {
          socket.write(
            'POST /api/v1/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
              `Content-Length: ${1024 * 1024}\r\n\r\n{"email":"`,
          );
          let text = '';
          const answer = new Promise<string>((done) => {
            socket.on('data', (chunk) => {
              text += chunk.toString('latin1');
              if (text.includes('\r\n\r\n')) done(text);
            });
          });
          resolve({ socket, answer });
        });
        socket.on('error', reject);
      });
    const sockets: Socket[] = [];
    try {
      const draining = [];
      for (let i = 0; i < MAX_CONCURRENT_DRAINS; i++) draining.push(await open());
      sockets.push(...draining.map((d) => d.socket));
      const late = await open();
      sockets.push(late.socket);
      const timeout = new Promise<string>((resolve) => setTimeout(() => resolve('no answer'), 3000));
      const head = await Promise.race([late.answer, timeout]);
      expect(head).toMatch(/^HTTP\/1\.1 413 /);
      expect(head.toLowerCase()).toContain('connection: close');
      // The ones draining have not been answered yet.
      const first = await Promise.race([draining[0]?.answer, Promise.resolve('no answer')]);
      expect(first).toBe('no answer');
      // The rest of their bodies: each drain ends, and its 413 goes out.
      const rest = Buffer.alloc(1024 * 1024 - '{"email":"'.length, 'a');
      for (const { socket } of draining) socket.write(rest);
      for (const { answer } of draining) expect(await answer).toMatch(/^HTTP\/1\.1 413 /);
    } finally {
      for (const socket of sockets) socket.destroy();
    }
  });

  it('refuses invalid JSON and non-object JSON with 400 invalid_json', async () => {
    await start();
    for (const raw of ['{"email":', 'not json', '"a string"', '42', 'null']) {
      const res = await fetch(`${base}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: raw,
      });
      expect(res.status, raw).toBe(400);
      expect((await json(res)).code, raw).toBe('invalid_json');
    }
  });

  it('refuses __proto__ and constructor keys at any depth with 400 invalid_json', async () => {
    await start();
    const bodies = [
      '{"email":"a@example.com","password":"x","__proto__":{"admin":true}}',
      '{"email":"a@example.com","password":"x","deviceInfo":{"nested":[{"__proto__":{}}]}}',
      '{"email":"a@example.com","password":"x","constructor":{"prototype":{"admin":true}}}',
      '{"email":"a@example.com","password":"x","a":[[{"constructor":1}]]}',
      '{"email":"a@example.com","password":"x","\\u005f_proto__":{}}',
    ];
    for (const raw of bodies) {
      const res = await fetch(`${base}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: raw,
      });
      expect(res.status, raw).toBe(400);
      expect((await json(res)).code, raw).toBe('invalid_json');
    }
  });
});

describe('CORS', () => {
  beforeEach(() => start({ origins: ['https://app.example.com', 'http://localhost:5173'] }));

  it('answers a preflight from an allowed origin with that origin, credentials and Max-Age 3600', async () => {
    const res = await fetch(`${base}/auth/login`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(res.headers.get('access-control-allow-credentials')).toBe('true');
    expect(res.headers.get('access-control-max-age')).toBe('3600');
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('content-type');
    expect(res.headers.get('vary')).toContain('Origin');
  });

  it('gives a refused origin no Access-Control-Allow-Origin, on preflights and on requests', async () => {
    for (const origin of [
      'https://evil.example',
      'null',
      'https://app.example.com.evil.example',
      'https://APP.example.com.',
      '*',
    ]) {
      const preflight = await fetch(`${base}/auth/login`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST' },
      });
      expect(preflight.headers.get('access-control-allow-origin'), origin).toBeNull();
      expect(preflight.headers.get('access-control-allow-credentials'), origin).toBeNull();
      const get = await fetch(`${base}/.well-known/jwks.json`, { headers: { origin } });
      expect(get.status).toBe(200);
      expect(get.headers.get('access-control-allow-origin'), origin).toBeNull();
    }
  });

  it('echoes an allowed origin on actual requests and exposes the rate-limit headers', async () => {
    const res = await fetch(`${base}/.well-known/jwks.json`, {
      headers: { origin: 'http://localhost:5173' },
    });
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(res.headers.get('access-control-allow-credentials')).toBe('true');
    expect(res.headers.get('access-control-expose-headers')).toContain('Retry-After');
    // Problem responses keep the CORS headers, so the browser can read the error.
    const problem = await fetch(`${base}/tenants/me`, { headers: { origin: 'http://localhost:5173' } });
    expect(problem.status).toBe(401);
    expect(problem.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
  });

  it('refuses wildcard or null whitelists at creation, naming the option', () => {
    for (const origins of [['*'], ['null'], ['https://app.example.com/path']]) {
      expect(() => createTenantAuthKoa({ auth: t.auth, origins })).toThrow(
        expect.objectContaining({ code: 'invalid_configuration', option: 'origins' }),
      );
    }
    expect(() => createTenantAuthKoa({ auth: t.auth, production: true })).toThrow(
      expect.objectContaining({ code: 'invalid_configuration', option: 'origins' }),
    );
  });
});

describe('rate limits', () => {
  function limited(strict: number, general: number) {
    t = createTestAuth({ rateLimit: { strict, general, windowSeconds: 60 } });
  }

  it('applies the strict budget to login, register and refresh, with RateLimit headers and 429 Retry-After', async () => {
    limited(3, 100);
    await start();
    const attempt = () => postJson(`${base}/auth/login`, { email: 'nobody@example.com', password: PASSWORD });
    const first = await attempt();
    expect(first.status).toBe(401);
    expect(first.headers.get('ratelimit-limit')).toBe('3');
    expect(first.headers.get('ratelimit-remaining')).toBe('2');
    expect(Number(first.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    await postJson(`${base}/auth/register`, { email: 'bad' });
    await fetch(`${base}/auth/refresh`, { method: 'POST' });
    const refused = await attempt();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await json(refused)).toMatchObject({
      status: 429,
      code: 'rate_limited',
      title: 'Too Many Requests',
    });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    expect(refused.headers.get('ratelimit-limit')).toBe('3');
    // Other routes use the general budget.
    const jwks = await fetch(`${base}/.well-known/jwks.json`);
    expect(jwks.status).toBe(200);
    expect(jwks.headers.get('ratelimit-limit')).toBe('100');
    // Another spelling of the path reaches no strict route (routing is exact), so it cannot be a way round.
    expect((await postJson(`${base}/AUTH/login/`, {})).status).toBe(404);
    // The window slides.
    t.clock.advance(61_000);
    expect((await attempt()).status).toBe(401);
  });

  it('applies the general budget elsewhere under the prefix, and no budget outside it', async () => {
    limited(100, 2);
    await start({}, (app) => {
      app.use(async (ctx) => {
        ctx.body = { host: true };
      });
    });
    expect((await fetch(`${base}/openapi.json`)).status).toBe(200);
    expect((await fetch(`${base}/openapi.json`)).status).toBe(200);
    const refused = await fetch(`${base}/openapi.json`);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).not.toBeNull();
    for (let i = 0; i < 5; i++) {
      const outside = await fetch(`${server.url}/outside`);
      expect(outside.status).toBe(200);
      expect(outside.headers.get('ratelimit-limit')).toBeNull();
    }
  });

  it('answers 503 unavailable with Retry-After when the store of the strict budget is down', async () => {
    const broken = {
      hit: async () => {
        throw new Error('ECONNREFUSED 10.0.0.5:6379');
      },
    };
    t = createTestAuth({ rateLimit: { store: broken } });
    await start();
    const res = await postJson(`${base}/auth/login`, { email: 'a@example.com', password: PASSWORD });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    const text = await res.text();
    expect(text).not.toContain('ECONNREFUSED');
    expect(JSON.parse(text)).toMatchObject({
      status: 503,
      code: 'unavailable',
      title: 'Service Unavailable',
    });
  });
});

describe('errors', () => {
  it('answers unknown routes under the prefix with a 404 not_found problem, and leaves others alone', async () => {
    await start();
    for (const [method, path] of [
      ['GET', '/api/v1/nope'],
      ['GET', '/api/v1'],
    ] as const) {
      const res = await fetch(`${server.url}${path}`, { method });
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(await json(res)).toEqual({
        type: 'about:blank',
        title: 'Not Found',
        status: 404,
        code: 'not_found',
        detail: 'The requested resource was not found.',
      });
    }
    for (const path of ['/elsewhere', '/API/V1/TENANTS/ME', '/api/v1x']) {
      const res = await fetch(`${server.url}${path}`, { method: 'POST' });
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type'), path).not.toMatch(/problem/);
    }
  });

  it('answers a known path with another method 405 method_not_allowed, keeping Allow', async () => {
    await start();
    const res = await fetch(`${base}/auth/login`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toContain('POST');
    expect(await json(res)).toEqual({
      type: 'about:blank',
      title: 'Method Not Allowed',
      status: 405,
      code: 'method_not_allowed',
      detail: 'The method is not allowed on this resource.',
    });
  });

  it('turns unexpected errors under the prefix into 500 internal_error without internals, and logs them', async () => {
    await start({}, (app, side) => {
      const router = new Router({ prefix: '/api/v1' });
      router.get('/boom', side.requireAuth(), () => {
        throw new Error('relation "users" does not exist at SELECT password_hash FROM users');
      });
      router.get('/unavailable', () => {
        throw new TenantAuthError('unavailable', 'hashing queue full', { retryAfterSeconds: 3 });
      });
      app.use(router.routes());
    });
    const user = await registered();
    const res = await fetch(`${base}/boom`, {
      headers: { authorization: `Bearer ${user.accessToken}` },
    });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toMatch(/relation|SELECT|password|stack|at /);
    expect(JSON.parse(text)).toEqual({
      type: 'about:blank',
      title: 'Internal Server Error',
      status: 500,
      code: 'internal_error',
      detail: 'An unexpected error occurred.',
    });
    expect(logged).toHaveLength(1);
    expect(logged[0]?.obj).toMatchObject({
      method: 'GET',
      path: '/api/v1/boom',
      status: 500,
      code: 'internal_error',
    });
    expect((logged[0]?.obj as { err: Error } | undefined)?.err.message).toContain('relation');

    const unavailable = await fetch(`${base}/unavailable`);
    expect(unavailable.status).toBe(503);
    expect(unavailable.headers.get('retry-after')).toBe('3');
    expect((await json(unavailable)).detail).not.toContain('hashing');
  });

  it('gives HTTP errors of routes under the prefix the neutral code http_error: 4xx keep an exposed message, 5xx never do', async () => {
    await start({}, (app) => {
      const router = new Router({ prefix: '/api/v1' });
      router.get('/forbidden', (ctx) => ctx.throw(403, 'Not your project.'));
      router.get('/teapot', (ctx) => ctx.throw(418));
      router.get('/internal', (ctx) => ctx.throw(502, 'upstream 10.0.0.7 said no'));
      app.use(router.routes());
    });
    const forbidden = await fetch(`${base}/forbidden`);
    expect(forbidden.status).toBe(403);
    expect(await json(forbidden)).toEqual({
      type: 'about:blank',
      title: 'Forbidden',
      status: 403,
      code: 'http_error',
      detail: 'Not your project.',
    });
    expect(await json(await fetch(`${base}/teapot`))).toMatchObject({ status: 418, code: 'http_error' });
    const internal = await fetch(`${base}/internal`);
    expect(internal.status).toBe(502);
    const text = await internal.text();
    expect(text).not.toContain('10.0.0.7');
    expect(JSON.parse(text)).toMatchObject({
      status: 502,
      code: 'http_error',
      title: 'Bad Gateway',
      detail: 'Bad Gateway',
    });
    expect(logged).toHaveLength(1);
  });

  it('lets the application use requireAuth with the same cookie and CSRF settings', async () => {
    await start({}, (app, side) => {
      const router = new Router();
      router.post('/api/v1/projects', side.requireAuth(), (ctx) => {
        ctx.status = 201;
        ctx.body = { tenantId: ctx.state.auth?.tenantId, via: ctx.state.auth?.via };
      });
      router.get('/api/v1/whoami', side.optionalAuth(), (ctx) => {
        ctx.body = { userId: ctx.state.auth?.userId ?? null };
      });
      app.use(router.routes());
    });
    const user = await registered();
    const ok = await fetch(`${base}/projects`, {
      method: 'POST',
      headers: { cookie: `access_token=${user.accessToken}`, origin: ORIGIN },
    });
    expect(ok.status).toBe(201);
    expect(await json(ok)).toEqual({ tenantId: user.user.tenantId, via: 'cookie' });
    const csrf = await fetch(`${base}/projects`, {
      method: 'POST',
      headers: { cookie: `access_token=${user.accessToken}`, origin: 'https://evil.example' },
    });
    expect(csrf.status).toBe(403);
    expect(
      await (
        await fetch(`${base}/whoami`, { headers: { cookie: `access_token=${user.accessToken}` } })
      ).json(),
    ).toEqual({
      userId: user.user.id,
    });
    expect(
      await json(await fetch(`${base}/whoami`, { headers: { cookie: 'access_token=garbage' } })),
    ).toEqual({ userId: null });
  });
});

describe('production cookie names', () => {
  it('uses __Host-access_token and __Secure-refresh_token with the same attributes, and reads them', async () => {
    await start({ production: true, origins: ['https://app.example.com'] });
    const res = await postJson(`${base}/auth/register`, { email: uniqueEmail(), password: PASSWORD });
    const body = (await json(res)) as TokenBody;
    const access = cookieNamed(res, '__Host-access_token');
    const refresh = cookieNamed(res, '__Secure-refresh_token');
    expect(access?.attributes).toEqual({
      path: '/',
      'max-age': '900',
      httponly: true,
      secure: true,
      samesite: 'Lax',
    });
    expect(refresh?.attributes).toEqual({
      path: '/api/v1/auth',
      'max-age': '604800',
      httponly: true,
      secure: true,
      samesite: 'Strict',
    });
    expect(cookieNamed(res, 'access_token')).toBeUndefined();
    const me = await fetch(`${base}/tenants/me`, {
      headers: { cookie: `__Host-access_token=${body.accessToken}` },
    });
    expect(me.status).toBe(200);
    const plainName = await fetch(`${base}/tenants/me`, {
      headers: { cookie: `access_token=${body.accessToken}` },
    });
    expect(plainName.status).toBe(401);
    const refreshed = await fetch(`${base}/auth/refresh`, {
      method: 'POST',
      headers: { cookie: `__Secure-refresh_token=${body.refreshToken}`, origin: 'https://app.example.com' },
    });
    expect(refreshed.status).toBe(200);
  });

  it('sends Secure cookies over plain HTTP even when app.keys is set (signed lookups off)', async () => {
    await start({}, (app) => {
      app.keys = ['some-signing-key'];
    });
    const res = await postJson(`${base}/auth/register`, { email: uniqueEmail(), password: PASSWORD });
    expect(res.status).toBe(201);
    expect(cookieNamed(res, 'access_token')?.attributes.secure).toBe(true);
    const body = (await json(res)) as TokenBody;
    expect(
      (await fetch(`${base}/tenants/me`, { headers: { cookie: `access_token=${body.accessToken}` } })).status,
    ).toBe(200);
  });
});

describe('client address', () => {
  it('records the socket address and ignores X-Forwarded-For unless the app trusts a proxy', async () => {
    await start();
    const email = uniqueEmail();
    const res = await postJson(
      `${base}/auth/register`,
      { email, password: PASSWORD },
      { 'x-forwarded-for': '198.51.100.9' },
    );
    const body = (await json(res)) as TokenBody;
    const list = await json(
      await fetch(`${base}/sessions`, { headers: { authorization: `Bearer ${body.accessToken}` } }),
    );
    expect(list.sessions[0].ipAddress).toMatch(/127\.0\.0\.1/);

    await server.close();
    await start({}, (app) => {
      app.proxy = true;
      app.maxIpsCount = 1;
    });
    const proxied = await postJson(
      `${base}/auth/login`,
      { email, password: PASSWORD },
      { 'x-forwarded-for': '203.0.113.1, 198.51.100.9' },
    );
    const second = (await json(proxied)) as TokenBody;
    const after = await json(
      await fetch(`${base}/sessions`, { headers: { authorization: `Bearer ${second.accessToken}` } }),
    );
    const current = after.sessions.find((s: { current: boolean }) => s.current);
    // One trusted hop: the address the proxy appended, not the one the client wrote.
    expect(current.ipAddress).toBe('198.51.100.9');
  });
});

describe('an application body parser in front', () => {
  it('still refuses cross-site forms and forbidden keys that it parsed first', async () => {
    const { default: bodyParser } = await import('koa-bodyparser');
    const local = createTestAuth();
    const app = new Koa();
    app.use(bodyParser({ enableTypes: ['json', 'form', 'text'] }));
    app.use(createCheckedTenantAuthKoa({ auth: local.auth, logger: quiet }).middleware());
    server = await listen(app);
    const running = server;
    const form = await fetch(`${running.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      body: new URLSearchParams({ email: 'ada@example.com', password: 'whatever' }),
    });
    expect(form.status).toBe(415);
    expect(form.headers.get('set-cookie')).toBeNull();
    const polluted = await fetch(`${running.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"email":"a@example.com","password":"x","constructor":{"prototype":{"admin":true}}}',
    });
    expect(polluted.status).toBe(400);
    expect(((await polluted.json()) as { code: string }).code).toBe('invalid_json');
  });
});
