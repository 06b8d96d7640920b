import Router from '@koa/router';
import Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import { afterEach, describe, expect, it } from 'vitest';
import { type AuthState, createTenantAuthKoa, type TenantAuthKoaOptions } from '../src/index.js';
import { createCheckedTenantAuthKoa } from './answer-check.js';
import {
  cookieNamed,
  createTestAuth,
  json,
  listen,
  PASSWORD,
  postJson,
  quiet,
  type Running,
  type TokenBody,
  uniqueEmail,
} from './helpers.js';

/*
 * The one composition path, seen from the application that uses it: what createTenantAuthKoa installs
 * applies under its prefix, and the application's other routes keep their own behaviour.
 */

let server: Running | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** An application with routes of its own (a form webhook, its own errors), and tenant-auth mounted. */
async function hostApp(options: Partial<TenantAuthKoaOptions> = {}) {
  const t = createTestAuth({ rateLimit: { strict: 100, general: 100 } });
  const app = new Koa();
  app.use(bodyParser({ enableTypes: ['json', 'form'] }));
  const tenantAuth = createCheckedTenantAuthKoa({ auth: t.auth, logger: quiet, ...options });
  app.use(tenantAuth.middleware());
  const router = new Router();
  router.post('/webhook', (ctx) => {
    ctx.body = { received: (ctx.request.body as Record<string, unknown>).event };
  });
  router.get('/bad-page', (ctx) => ctx.throw(400, 'bad page'));
  router.get('/private', (ctx) => ctx.throw(401, 'log in first'));
  router.get<AuthState>('/projects', tenantAuth.requireAuth(), (ctx) => {
    ctx.body = { tenantId: ctx.state.auth.tenantId };
  });
  app.use(router.routes());
  const running = await listen(app);
  server = running;
  return { t, tenantAuth, url: running.url };
}

async function register(base: string): Promise<TokenBody> {
  const res = await postJson(`${base}/auth/register`, { email: uniqueEmail(), password: PASSWORD });
  expect(res.status).toBe(201);
  return (await json(res)) as TokenBody;
}

describe('createTenantAuthKoa scoped to its prefix', () => {
  it("leaves the application's form POST alone: no 415, no JSON rule outside the prefix", async () => {
    const { url } = await hostApp();
    const res = await fetch(`${url}/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'event=paid',
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received: 'paid' });
  });

  it("leaves the application's own 400 and 401 as the application made them", async () => {
    const { url } = await hostApp();
    const bad = await fetch(`${url}/bad-page`);
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await bad.text()).toBe('bad page');
    const unauthorized = await fetch(`${url}/private`);
    expect(unauthorized.status).toBe(401);
    expect(await unauthorized.text()).toBe('log in first');
  });

  it("lets the application's own error handler format its routes, and ours keep the problem shape", async () => {
    const t = createTestAuth();
    const app = new Koa();
    app.use(async (ctx, next) => {
      try {
        await next();
      } catch (err) {
        ctx.status = (err as { status?: number }).status ?? 500;
        ctx.body = { appError: (err as Error).message };
      }
    });
    app.use(createCheckedTenantAuthKoa({ auth: t.auth, logger: quiet }).middleware());
    app.use(new Router().get('/mine', (ctx) => ctx.throw(409, 'conflict of mine')).routes());
    const running = await listen(app);
    server = running;
    const mine = await fetch(`${running.url}/mine`);
    expect(mine.status).toBe(409);
    expect(await mine.json()).toEqual({ appError: 'conflict of mine' });
    const ours = await fetch(`${running.url}/api/v1/tenants/me`);
    expect(ours.status).toBe(401);
    expect(ours.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await json(ours)).code).toBe('invalid_token');
  });

  it('sets no CORS, rate-limit or security headers outside the prefix', async () => {
    const { url } = await hostApp();
    const res = await fetch(`${url}/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://localhost:5173' },
      body: '{"event":"x"}',
    });
    expect(res.status).toBe(200);
    for (const header of [
      'access-control-allow-origin',
      'ratelimit-limit',
      'x-frame-options',
      'x-request-id',
    ]) {
      expect(res.headers.get(header), header).toBeNull();
    }
    const inside = await fetch(`${url}/api/v1/openapi.json`, {
      headers: { origin: 'http://localhost:5173' },
    });
    expect(inside.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(inside.headers.get('ratelimit-limit')).toBe('100');
    expect(inside.headers.get('x-frame-options')).toBe('DENY');
    expect(inside.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('guards a route outside the prefix with requireAuth, answering 401 itself as a problem', async () => {
    const { url } = await hostApp();
    const anonymous = await fetch(`${url}/projects`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    expect((await json(anonymous)).code).toBe('invalid_token');
    const user = await register(`${url}/api/v1`);
    const allowed = await fetch(`${url}/projects`, {
      headers: { authorization: `Bearer ${user.accessToken}` },
    });
    expect(allowed.status).toBe(200);
    expect(await allowed.json()).toEqual({ tenantId: user.user.tenantId });
  });

  it('uses the configured prefix, cookie names and refresh path, body limit and origins', async () => {
    const { url } = await hostApp({
      prefix: '/v2',
      cookies: { accessName: 'at', refreshName: 'rt' },
      origins: ['https://app.example.com'],
      bodyLimitBytes: 512,
    });
    const base = `${url}/v2`;
    const form = await fetch(`${base}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=a&password=b',
    });
    expect(form.status).toBe(415);
    const big = await postJson(`${base}/auth/login`, { email: 'a@example.com', password: 'x'.repeat(600) });
    expect(big.status).toBe(413);
    const res = await postJson(`${base}/auth/register`, { email: uniqueEmail(), password: PASSWORD });
    expect(res.status).toBe(201);
    const body = (await json(res)) as TokenBody;
    expect(cookieNamed(res, 'at')?.attributes.path).toBe('/');
    expect(cookieNamed(res, 'rt')?.attributes.path).toBe('/v2/auth');
    const foreign = await fetch(`${base}/auth/refresh`, {
      method: 'POST',
      headers: { cookie: `rt=${body.refreshToken}`, origin: 'http://localhost:5173' },
    });
    expect(foreign.status).toBe(403);
    const allowed = await fetch(`${base}/auth/refresh`, {
      method: 'POST',
      headers: { cookie: `rt=${body.refreshToken}`, origin: 'https://app.example.com' },
    });
    expect(allowed.status).toBe(200);
    const doc = await json(await fetch(`${base}/openapi.json`));
    expect(doc.servers).toEqual([{ url: '/v2' }]);
    expect(doc.components.securitySchemes.refreshCookie.name).toBe('rt');
    expect(doc.paths['/health']).toBeUndefined();
    expect((await fetch(`${url}/api/v1/openapi.json`)).status).toBe(404);
  });

  it.each([
    ['auth', { auth: undefined }],
    ['prefix', { prefix: 'api' }],
    ['prefix', { prefix: '/api/' }],
    ['bodyLimitBytes', { bodyLimitBytes: 0 }],
    ['logger', { logger: {} }],
    ['health.ping', { health: {} }],
    ['securityHeaders', { securityHeaders: 'yes' }],
    ['cors', { cors: true }],
    ['openapi', { openapi: 'v2' }],
    ['origins', { production: true, origins: [] }],
  ])('refuses a bad %s at creation with invalid_configuration', (option, override) => {
    const t = createTestAuth();
    expect(() => createTenantAuthKoa({ auth: t.auth, ...override } as TenantAuthKoaOptions)).toThrow(
      expect.objectContaining({ code: 'invalid_configuration', option }),
    );
  });
});
