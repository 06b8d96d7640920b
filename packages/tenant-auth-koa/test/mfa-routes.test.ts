import Router from '@koa/router';
import Koa from 'koa';
import { generateSync } from 'otplib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuthState } from '../src/index.js';
import { createCheckedTenantAuthKoa } from './answer-check.js';
import {
  createTestAuth,
  json,
  listen,
  PASSWORD,
  postJson,
  quiet,
  type Running,
  setCookies,
  type TestAuth,
  type TokenBody,
  uniqueEmail,
} from './helpers.js';

/*
 * The routes of the second factor and recent authentication (docs/http-api.md, "Second factor: TOTP and recovery codes" and "Recent authentication"), each answered through the
 * check of every answer against its operation (answer-check.ts), and `requireRecentAuth()` on a route of
 * the application.
 */

let t: TestAuth;
let server: Running;
let base: string;
let url: string;

beforeEach(async () => {
  t = createTestAuth();
  const app = new Koa();
  const tenantAuth = createCheckedTenantAuthKoa({ auth: t.auth, logger: quiet });
  app.use(tenantAuth.middleware());
  const router = new Router<AuthState>();
  router.post('/payouts', tenantAuth.requireRecentAuth(), (ctx) => {
    ctx.body = { userId: ctx.state.auth.userId };
  });
  router.post('/exports', tenantAuth.requireRecentAuth({ maxAgeSeconds: 60 }), (ctx) => {
    ctx.body = { ok: true };
  });
  app.use(router.routes());
  server = await listen(app);
  url = server.url;
  base = `${url}/api/v1`;
});

afterEach(() => server.close());

const code = (secret: string) =>
  generateSync({ strategy: 'totp', secret, epoch: Math.floor(t.clock.now().getTime() / 1000) });

function call(path: string, token: string, init: { method?: string; body?: unknown } = {}) {
  return fetch(`${base}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: {
      authorization: `Bearer ${token}`,
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
}

/** A new owner with a confirmed TOTP factor, and its (password-only) registration session. */
async function ownerWithTotp() {
  const email = uniqueEmail();
  const reg = (await json(
    await postJson(`${base}/auth/register`, { email, password: PASSWORD }),
  )) as TokenBody;
  const setup = await call('/auth/mfa/totp/setup', reg.accessToken, { method: 'POST' });
  expect(setup.status).toBe(200);
  const { secret } = (await json(setup)) as { secret: string };
  const confirm = await call('/auth/mfa/totp/confirm', reg.accessToken, { body: { code: code(secret) } });
  expect(confirm.status).toBe(200);
  const { recoveryCodes } = (await json(confirm)) as { recoveryCodes: string[] };
  return { email, secret, recoveryCodes, token: reg.accessToken };
}

describe('login with a second factor', () => {
  it('answers mfa_required with its extension members and no cookie; verify answers the token response', async () => {
    const user = await ownerWithTotp();
    const res = await postJson(`${base}/auth/login`, { email: user.email, password: PASSWORD });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(setCookies(res)).toEqual([]);
    const problem = await json(res);
    expect(problem).toMatchObject({
      code: 'mfa_required',
      expiresIn: 300,
      methods: ['totp', 'recovery_code'],
    });
    expect(typeof problem.mfaToken).toBe('string');

    t.clock.advance(30_000);
    const verified = await postJson(`${base}/auth/mfa/verify`, {
      mfaToken: problem.mfaToken,
      method: 'totp',
      code: code(user.secret),
    });
    expect(verified.status).toBe(200);
    expect((await json(verified)).session.amr).toEqual(['pwd', 'otp', 'mfa']);
    expect(
      setCookies(verified)
        .map((c) => c.name)
        .sort(),
    ).toEqual(['access_token', 'refresh_token']);
  });

  it('answers a wrong code 400 (code: incorrect), and a used mfaToken 401 invalid_token', async () => {
    const user = await ownerWithTotp();
    const { mfaToken } = await json(
      await postJson(`${base}/auth/login`, { email: user.email, password: PASSWORD }),
    );
    const wrong = await postJson(`${base}/auth/mfa/verify`, { mfaToken, method: 'totp', code: '000000' });
    expect(wrong.status).toBe(400);
    expect((await json(wrong)).errors).toEqual([
      expect.objectContaining({ field: 'code', code: 'incorrect' }),
    ]);
    const ok = await postJson(`${base}/auth/mfa/verify`, {
      mfaToken,
      method: 'recovery_code',
      code: user.recoveryCodes[0],
    });
    expect(ok.status).toBe(200);
    const used = await postJson(`${base}/auth/mfa/verify`, {
      mfaToken,
      method: 'recovery_code',
      code: user.recoveryCodes[1],
    });
    expect(used.status).toBe(401);
    expect((await json(used)).code).toBe('invalid_token');
  });
});

describe('the recent routes', () => {
  it('refuse a password-only session of a user with a factor, and serve a reauthenticated one', async () => {
    const user = await ownerWithTotp();
    for (const [method, path] of [
      ['POST', '/auth/mfa/recovery-codes'],
      ['DELETE', '/auth/mfa/totp'],
      ['PATCH', '/tenants/me/security'],
    ] as const) {
      const res = await call(path, user.token, {
        method,
        ...(method === 'PATCH' ? { body: { requireMfa: true } } : {}),
      });
      expect(res.status).toBe(403);
      expect((await json(res)).code).toBe('reauthentication_required');
    }
    t.clock.advance(30_000);
    const re = await call('/auth/reauthenticate', user.token, {
      body: { password: PASSWORD, method: 'totp', code: code(user.secret) },
    });
    expect(re.status).toBe(200);
    const { accessToken } = (await json(re)) as TokenBody;
    expect((await call('/tenants/me/security', accessToken)).status).toBe(200);
    const policy = await call('/tenants/me/security', accessToken, {
      method: 'PATCH',
      body: { requireMfa: true },
    });
    expect(await json(policy)).toEqual({ requireMfa: true });
    const codes = await call('/auth/mfa/recovery-codes', accessToken, { method: 'POST' });
    expect((await json(codes)).recoveryCodes).toHaveLength(10);
    const me = await json(await call('/users/me', accessToken));
    expect(me.mfa).toEqual({ totp: true, passkeys: 0, recoveryCodesRemaining: 10 });
    const removed = await call('/auth/mfa/totp', accessToken, { method: 'DELETE' });
    expect(removed.status).toBe(409);
    expect((await json(removed)).code).toBe('mfa_required_by_tenant');
  });
});

describe('requireRecentAuth() on an application route', () => {
  it('lets a recent authentication through, and answers 403 reauthentication_required once it is old', async () => {
    const reg = (await json(
      await postJson(`${base}/auth/register`, { email: uniqueEmail(), password: PASSWORD }),
    )) as TokenBody;
    const first = await fetch(`${url}/payouts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${reg.accessToken}` },
    });
    expect(first.status).toBe(200);
    expect(await json(first)).toEqual({ userId: reg.user.id });
    t.clock.advance(61_000);
    const exports = await fetch(`${url}/exports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${reg.accessToken}` },
    });
    expect(exports.status).toBe(403);
    expect(exports.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await json(exports)).code).toBe('reauthentication_required');
    t.clock.advance(540_000);
    const late = await fetch(`${url}/payouts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${reg.accessToken}` },
    });
    expect(late.status).toBe(403);
  });

  it('answers 401 without a token, and refuses a bad maxAgeSeconds when it is built', async () => {
    expect((await fetch(`${url}/payouts`, { method: 'POST' })).status).toBe(401);
    const tenantAuth = createCheckedTenantAuthKoa({ auth: t.auth, logger: quiet });
    expect(() => tenantAuth.requireRecentAuth({ maxAgeSeconds: 0 })).toThrow(/maxAgeSeconds/);
  });
});
