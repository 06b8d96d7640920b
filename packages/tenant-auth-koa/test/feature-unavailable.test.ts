import Koa from 'koa';
import { createMemoryStores } from 'tenant-auth-core';
import type {
  CompleteTransactionStores,
  TenantAuthStores,
  TransactionStores,
} from 'tenant-auth-core/store-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { createCheckedTenantAuthKoa } from './answer-check.js';
import {
  createTestAuth,
  json,
  listen,
  PASSWORD,
  postJson,
  quiet,
  type Running,
  uniqueEmail,
} from './helpers.js';

/*
 * A server on a store set written for 1.1 (no factor, passkey, SSO or API-key store): sign-in works, and
 * a route of a feature without its store answers `501 feature_unavailable` as problem+json, declared in
 * its operation (the answer check fails an undeclared one).
 */

let server: Running | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The six stores of 1.1, in and out of transactions. */
function storesOf11(): TenantAuthStores {
  const full = createMemoryStores();
  const old = (tx: CompleteTransactionStores): TransactionStores => ({
    tenants: tx.tenants,
    users: tx.users,
    sessions: tx.sessions,
    oneTimeTokens: tx.oneTimeTokens,
    outbox: tx.outbox,
    auditEvents: tx.auditEvents,
  });
  return { ...old(full), transaction: (fn) => full.transaction((tx) => fn(old(tx))) };
}

describe('a route whose store the bundle leaves out', () => {
  it('answers 501 feature_unavailable as problem+json; sign-in still works', async () => {
    const t = createTestAuth({ stores: storesOf11() });
    const tenantAuth = createCheckedTenantAuthKoa({ auth: t.auth, logger: quiet });
    const app = new Koa();
    app.use(tenantAuth.middleware());
    server = await listen(app);
    const base = `${server.url}/api/v1`;

    const registered = await postJson(`${base}/auth/register`, { email: uniqueEmail(), password: PASSWORD });
    expect(registered.status).toBe(201);
    const { accessToken } = (await json(registered)) as { accessToken: string };
    const headers = { authorization: `Bearer ${accessToken}` };

    for (const path of ['/tenants/me/api-keys', '/auth/passkeys', '/tenants/me/domains']) {
      const res = await fetch(`${base}${path}`, { headers });
      expect({ path, status: res.status }).toEqual({ path, status: 501 });
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(await json(res)).toMatchObject({ status: 501, code: 'feature_unavailable' });
    }
    expect((await fetch(`${base}/users/me`, { headers })).status).toBe(200);
  });
});
