import Koa from 'koa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { corsMiddleware, createAuthRouter, errorHandler } from '../src/index.js';
import {
  cookieNamed,
  createTestAuth,
  json,
  listen,
  PASSWORD,
  postJson,
  type Running,
  uniqueEmail,
} from './helpers.js';

let server: Running;
let base: string;

beforeEach(async () => {
  const { auth } = createTestAuth();
  const app = new Koa();
  const router = createAuthRouter({
    auth,
    prefix: '/v2',
    cookies: { accessName: 'at', refreshName: 'rt' },
    allowedOrigins: ['https://app.example.com'],
    bodyLimitBytes: 512,
  });
  app.use(errorHandler({ logger: { error() {} } }));
  app.use(corsMiddleware({ origins: ['https://app.example.com'] }));
  app.use(router.routes());
  server = await listen(app);
  base = `${server.url}/v2`;
});

afterEach(async () => {
  await server.close();
});

describe('createAuthRouter without the global body parser', () => {
  it('still enforces JSON-only bodies, the configured limit and forbidden keys on its routes', async () => {
    const form = await fetch(`${base}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=a&password=b',
    });
    expect(form.status).toBe(415);
    const big = await postJson(`${base}/auth/login`, { email: 'a@example.com', password: 'x'.repeat(600) });
    expect(big.status).toBe(413);
    const proto = await fetch(`${base}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"constructor":{"prototype":{}}}',
    });
    expect((await json(proto)).code).toBe('invalid_json');
  });

  it('uses the configured prefix, cookie names and refresh path, and its CSRF origins', async () => {
    const res = await postJson(`${base}/auth/register`, { email: uniqueEmail(), password: PASSWORD });
    expect(res.status).toBe(201);
    const body = await json(res);
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
  });
});
