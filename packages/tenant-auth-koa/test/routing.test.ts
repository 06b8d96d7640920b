import { readFileSync, writeFileSync } from 'node:fs';
import Router from '@koa/router';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResponseInfo } from '../src/index.js';
import { createCheckedTenantAuthKoa } from './answer-check.js';
import { createTestAuth, listen, ORIGIN, quiet, type Running } from './helpers.js';

/*
 * How a request under the prefix is routed, pinned answer by answer: for every method and a corpus of
 * paths (each route's own, their near misses, encodings, trailing slashes, case), the status, the
 * problem code, `Allow`, which rate-limit budget counted it (by its limit) and the route template the
 * response hook reported. The expected answers are in `routing.golden.json`, recorded from the
 * @koa/router-based routing of 1.1.0; `UPDATE_ROUTING_GOLDEN=1` rewrites the file (review the diff:
 * every changed line is a change of the HTTP contract).
 */

const GOLDEN = new URL('./routing.golden.json', import.meta.url);
const STRICT_LIMIT = 5000;
const GENERAL_LIMIT = 7000;

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PROPFIND'] as const;

const PATHS = [
  // Every route of the contract (ids and params as a client would send them).
  '/auth/register',
  '/auth/login',
  '/auth/refresh',
  '/auth/logout',
  '/tenants/me',
  '/tenants/8c1f3c5e-0d7a-4f62-9a53-2b7d1f0e4c11',
  '/sessions',
  '/sessions/8c1f3c5e-0d7a-4f62-9a53-2b7d1f0e4c11',
  '/tenants/me/members',
  '/tenants/me/members/8c1f3c5e-0d7a-4f62-9a53-2b7d1f0e4c11',
  '/tenants/me/invitations',
  '/tenants/me/invitations/8c1f3c5e-0d7a-4f62-9a53-2b7d1f0e4c11',
  '/auth/invitations/accept',
  '/auth/password/forgot',
  '/auth/password/reset',
  '/auth/password/change',
  '/auth/email/verification',
  '/auth/email/verify',
  '/auth/email/change',
  '/auth/email/change/confirm',
  '/users/me',
  '/tenants/me/audit-events',
  '/.well-known/jwks.json',
  '/openapi.json',
  '/health',
  // Near misses: trailing slashes, case, doubled or missing segments, dot segments.
  '',
  '/',
  '/health/',
  '/Health',
  '/HEALTH',
  '/auth/login/',
  '/Auth/Login',
  '/auth',
  '/auth/',
  '/auth//login',
  '//auth/login',
  '/tenants',
  '/tenants/',
  '/tenants/me/',
  '/tenants/ME',
  '/tenants/me/members/',
  '/tenants/me/members/a/b',
  '/sessions/',
  '/sessions//',
  '/sessions/a/b',
  '/sessions/./x',
  '/sessions/../sessions',
  '/users',
  '/users/you',
  '/users/me/',
  '/openapi.json/',
  '/openapi',
  '/.well-known/jwks.json/',
  '/.well-known/',
  // Encodings: in a parameter, in a fixed segment, invalid escapes, unicode.
  '/sessions/a%2Fb',
  '/sessions/%E2%82%AC',
  '/sessions/%',
  '/sessions/%zz',
  '/sessions/%E0%A4%A',
  '/sessions/caf%C3%A9',
  '/sessions/:id',
  '/sessions/a%20b',
  '/tenants/%6De',
  '/%68ealth',
  '/health%2F',
  '/tenants/me%2Fmembers',
  '/tenants/me/members/%2e%2e',
  // Not ours: the application's own routes under the prefix, and unknown paths.
  '/projects',
  '/projects/42',
  '/projects/42/',
  '/nothing-here',
  '/nothing/here/at/all',
] as const;

interface Answer {
  status: number;
  code?: string;
  allow?: string;
  budget?: 'strict' | 'general';
  route?: string;
}

let running: Running;
const seen: ResponseInfo[] = [];

beforeAll(async () => {
  const { auth } = createTestAuth({ rateLimit: { strict: STRICT_LIMIT, general: GENERAL_LIMIT } });
  const app = new Koa();
  const tenantAuth = createCheckedTenantAuthKoa({
    auth,
    logger: quiet,
    health: { ping: async () => {} },
    onResponse: (info) => seen.push(info),
  });
  app.use(tenantAuth.middleware());
  // The application's own routes under the prefix, after tenant-auth's.
  const own = new Router({ prefix: '/api/v1' });
  own.get('/projects', (ctx) => {
    ctx.body = { projects: [] };
  });
  own.get('/projects/:id', (ctx) => {
    ctx.body = { id: ctx.params.id };
  });
  own.post('/projects', (ctx) => {
    ctx.status = 201;
    ctx.body = {};
  });
  app.use(own.routes());
  app.use(own.allowedMethods());
  running = await listen(app);
});

afterAll(async () => {
  await running?.close();
});

/** One request with no credentials and no body, as the fuzzers and scanners send them. */
async function answer(method: string, path: string): Promise<Answer> {
  seen.length = 0;
  const res = await fetch(`${running.url}/api/v1${path}`, { method, redirect: 'manual' });
  const text = await res.text();
  const out: Answer = { status: res.status };
  // A HEAD answer has the headers of the GET answer and no body.
  if (text !== '' && res.headers.get('content-type')?.startsWith('application/problem+json')) {
    out.code = (JSON.parse(text) as { code: string }).code;
  }
  const allow = res.headers.get('allow');
  if (allow !== null) out.allow = allow;
  const limit = Number(res.headers.get('ratelimit-limit'));
  if (limit === STRICT_LIMIT) out.budget = 'strict';
  else if (limit === GENERAL_LIMIT) out.budget = 'general';
  if (seen.length !== 1) throw new Error(`${method} ${path}: ${seen.length} responses reported`);
  out.route = seen[0]?.route;
  return out;
}

describe('routing under the prefix', () => {
  it('answers every method and path as the recorded contract says', async () => {
    const actual: Record<string, Answer> = {};
    for (const path of PATHS) {
      for (const method of METHODS) actual[`${method} /api/v1${path}`] = await answer(method, path);
    }
    // A preflight is answered before routing, whatever the path.
    const preflight = await fetch(`${running.url}/api/v1/sessions/x`, {
      method: 'OPTIONS',
      headers: { origin: ORIGIN, 'access-control-request-method': 'DELETE' },
    });
    actual['preflight OPTIONS /api/v1/sessions/x'] = { status: preflight.status };
    if (process.env.UPDATE_ROUTING_GOLDEN === '1') {
      writeFileSync(GOLDEN, `${JSON.stringify(actual, null, 2)}\n`);
    }
    const expected = JSON.parse(readFileSync(GOLDEN, 'utf8')) as Record<string, Answer>;
    expect(actual).toEqual(expected);
  });
});

describe('what routing leaves for the application, as @koa/router did', () => {
  let app: Running;
  const seenOutside: Record<string, unknown>[] = [];

  beforeAll(async () => {
    const { auth } = createTestAuth();
    const koa = new Koa();
    // An application middleware before tenant-auth: params of its own, and a look at the context after.
    koa.use(async (ctx, next) => {
      (ctx as unknown as { params: Record<string, string> }).params = { outer: 'x' };
      await next();
      const routed = ctx as unknown as Record<string, unknown>;
      seenOutside.push({
        params: routed.params,
        requestParams: (ctx.request as unknown as Record<string, unknown>).params,
        captures: routed.captures,
        routerPath: routed.routerPath,
        routerName: routed.routerName,
        matchedRoute: routed._matchedRoute,
        matchedRouteName: routed._matchedRouteName,
        routeMatched: routed.routeMatched,
        matched: (routed.matched as { path: string; methods: string[] }[] | undefined)?.map((layer) => [
          layer.path,
          layer.methods.join(' '),
        ]),
      });
    });
    const tenantAuth = createCheckedTenantAuthKoa({ auth, logger: quiet });
    koa.use(tenantAuth.middleware());
    // The application's own routes under the prefix: one more method on a path of tenant-auth's, and a
    // route that fails with headers of its own.
    const own = new Router({ prefix: '/api/v1' });
    own.put('/sessions/:id', (ctx) => {
      ctx.body = { put: ctx.params.id };
    });
    own.get('/conflict', (ctx) => {
      ctx.throw(409, 'taken', {
        expose: true,
        headers: { Vary: 'Accept-Language', 'Access-Control-Allow-Origin': '*' },
      });
    });
    koa.use(own.routes());
    koa.use(own.allowedMethods());
    app = await listen(koa);
  });

  afterAll(async () => {
    await app?.close();
  });

  it('adds its routes of the path to ctx.matched, so the application routers allow their methods and ours', async () => {
    const patch = await fetch(`${app.url}/api/v1/sessions/abc`, { method: 'PATCH' });
    expect(patch.status).toBe(405);
    expect(patch.headers.get('allow')).toBe('DELETE, PUT');
    const options = await fetch(`${app.url}/api/v1/sessions/abc`, { method: 'OPTIONS' });
    expect(options.status).toBe(200);
    expect(options.headers.get('allow')).toBe('DELETE, PUT');
    const put = await fetch(`${app.url}/api/v1/sessions/abc`, { method: 'PUT' });
    expect(await put.json()).toEqual({ put: 'abc' });
  });

  it("leaves the answering route's params (merged into earlier ones), captures, path and ctx.matched", async () => {
    seenOutside.length = 0;
    const res = await fetch(`${app.url}/api/v1/sessions/a%20b`, { method: 'DELETE' });
    expect(res.status).toBe(401);
    const login = await fetch(`${app.url}/api/v1/auth/login`, { method: 'POST' });
    expect(login.status).toBe(400);
    expect(seenOutside).toEqual([
      {
        params: { outer: 'x', id: 'a b' },
        requestParams: { outer: 'x', id: 'a b' },
        captures: ['a%20b'],
        routerPath: '/api/v1/sessions/:id',
        matchedRoute: '/api/v1/sessions/:id',
        routeMatched: true,
        matched: [['/api/v1/sessions/:id', 'DELETE']],
      },
      {
        params: { outer: 'x' },
        requestParams: { outer: 'x' },
        captures: [],
        routerPath: '/api/v1/auth/login',
        routerName: 'login',
        matchedRoute: '/api/v1/auth/login',
        matchedRouteName: 'login',
        routeMatched: true,
        matched: [['/api/v1/auth/login', 'POST']],
      },
    ]);
  });

  it("keeps CORS over an application error's own headers for an allowed origin", async () => {
    const res = await fetch(`${app.url}/api/v1/conflict`, { headers: { origin: ORIGIN } });
    expect(res.status).toBe(409);
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(res.headers.get('access-control-allow-credentials')).toBe('true');
    expect(res.headers.get('vary')).toBe('Accept-Language, Origin');
  });
});
