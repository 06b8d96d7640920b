import Router from '@koa/router';
import Koa from 'koa';
import { createMemoryStores } from 'tenant-auth-core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type AuthState,
  createTenantAuthKoa,
  type OptionalAuthState,
  type PrincipalState,
} from '../src/index.js';
import { createTestAuth, json, listen, PASSWORD, quiet, type Running, uniqueEmail } from './helpers.js';

/*
 * The guards for an application's own routes with API keys (API 1.2): keys only where a route opts in
 * (`requireAuth({ apiKeys: true })`, `requireRole(role, { apiKeys: true })`), a principal that says a
 * user or a key, `403 forbidden` for a key anywhere else, never a key from a cookie.
 */

let server: Running | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function appWithKeys() {
  const stores = createMemoryStores();
  const t = createTestAuth({ stores });
  const tenantAuth = createTenantAuthKoa({ auth: t.auth, logger: quiet });
  const app = new Koa();
  app.use(tenantAuth.middleware());
  const router = new Router();
  router.get<PrincipalState>('/reports', tenantAuth.requireAuth({ apiKeys: true }), (ctx) => {
    const p = ctx.state.auth;
    ctx.body = {
      actorType: p.actorType,
      tenantId: p.tenantId,
      who: p.actorType === 'api_key' ? p.apiKeyId : p.userId,
    };
  });
  router.get<AuthState>('/projects', tenantAuth.requireAuth(), (ctx) => {
    ctx.body = { userId: ctx.state.auth.userId };
  });
  router.get<PrincipalState>('/exports', tenantAuth.requireRole('admin', { apiKeys: true }), (ctx) => {
    ctx.body = { role: ctx.state.auth.role, actorType: ctx.state.auth.actorType };
  });
  router.get<OptionalAuthState>('/feed', tenantAuth.optionalAuth(), (ctx) => {
    ctx.body = { signedIn: ctx.state.auth !== undefined };
  });
  app.use(router.routes());
  server = await listen(app);

  const owner = await t.auth.register({ email: uniqueEmail(), password: PASSWORD });
  await stores.users.markEmailVerified(owner.tenant.id, owner.user.id);
  const claims = await t.auth.verifyAccessToken(owner.accessToken);
  const admin = await t.auth.createApiKey(claims, { name: 'exports', role: 'admin' });
  const member = await t.auth.createApiKey(claims, { name: 'reports', role: 'member' });
  return { t, url: server.url, owner, claims, admin, member };
}

const get = (url: string, headers: Record<string, string> = {}) => fetch(url, { headers });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('guards with API keys', () => {
  it('accepts a key where the route opts in, with a principal that says a key; a user still works there', async () => {
    const { url, owner, member } = await appWithKeys();
    const byKey = await get(`${url}/reports`, bearer(member.secret));
    expect(byKey.status).toBe(200);
    expect(await json(byKey)).toEqual({
      actorType: 'api_key',
      tenantId: owner.tenant.id,
      who: member.apiKey.id,
    });
    const byUser = await get(`${url}/reports`, bearer(owner.accessToken));
    expect(await json(byUser)).toEqual({ actorType: 'user', tenantId: owner.tenant.id, who: owner.user.id });
  });

  it('answers a key 403 forbidden where the route did not opt in (requireAuth(), optionalAuth())', async () => {
    const { url, member } = await appWithKeys();
    for (const path of ['/projects', '/feed']) {
      const r = await get(`${url}${path}`, bearer(member.secret));
      expect(r.status).toBe(403);
      expect((await json(r)).code).toBe('forbidden');
    }
  });

  it("checks a key's role with requireRole as the stores know it now: member 403, admin 200, revoked 401", async () => {
    const { t, url, claims, admin, member } = await appWithKeys();
    expect((await get(`${url}/exports`, bearer(member.secret))).status).toBe(403);
    const ok = await get(`${url}/exports`, bearer(admin.secret));
    expect(await json(ok)).toEqual({ role: 'admin', actorType: 'api_key' });
    await t.auth.revokeApiKey(claims, admin.apiKey.id);
    const revoked = await get(`${url}/exports`, bearer(admin.secret));
    expect(revoked.status).toBe(401);
    expect(revoked.headers.get('www-authenticate')).toMatch(/invalid_token/);
  });

  it('never takes a key from a cookie, and refuses an unknown key with 401', async () => {
    const { url, member } = await appWithKeys();
    const cookie = await get(`${url}/reports`, { cookie: `access_token=${member.secret}` });
    expect(cookie.status).toBe(401);
    expect((await json(cookie)).code).toBe('invalid_token');
    const unknown = await get(`${url}/reports`, bearer(`tak_${'x'.repeat(43)}`));
    expect(unknown.status).toBe(401);
  });
});
