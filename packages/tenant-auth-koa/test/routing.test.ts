import { readFileSync, writeFileSync } from 'node:fs';
import Router from '@koa/router';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenantAuthKoa, type ResponseInfo } from '../src/index.js';
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
  const tenantAuth = createTenantAuthKoa({
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
