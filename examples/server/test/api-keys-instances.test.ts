import { randomInt } from 'node:crypto';
import { ManualClock } from 'tenant-auth-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, verifiedOwner } from './helpers/api-keys.js';
import { api, expectProblem } from './helpers/http.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from './helpers/postgres.js';
import { TestInbox } from './helpers/smtp.js';
import { startTestServer, type TestServer } from './helpers/test-server.js';

/*
 * API 1.2, "API keys": a revoked key stops at once on the instance that revoked it and within 5 seconds
 * on every other (two servers on one PostgreSQL, each with its own verified-key cache), and each key has
 * the general rate budget of its own, whatever address it calls from.
 */

/** A documentation-range address (RFC 5737) of its own: a fresh per-address budget. */
const freshIp = () => ({ 'x-forwarded-for': `198.51.100.${randomInt(1, 255)}` });

describe.skipIf(!TEST_DATABASE_URL)('a revoked API key on two instances sharing PostgreSQL', () => {
  let db: TestDatabase;
  let inbox: TestInbox;
  let a: TestServer;
  let b: TestServer;
  const clock = new ManualClock(Date.now());

  beforeAll(async () => {
    inbox = await new TestInbox().start();
    db = await createTestDatabase(TEST_DATABASE_URL as string);
    const env = { DATABASE_URL: db.url, SMTP_URL: inbox.url, APP_URL: 'https://app.test' };
    a = await startTestServer(env, { clock });
    b = await startTestServer(env, { clock });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await db?.drop();
    await inbox?.stop();
  });

  it('stops at once on the revoking instance, and within 5 seconds on the other', async () => {
    const owner = await verifiedOwner(a.baseUrl, inbox);
    const { apiKey, secret } = await createKey(a.baseUrl, owner.token, { role: 'admin' });
    for (const server of [a, b]) {
      expect((await api(server.baseUrl, '/tenants/me/members', { token: secret })).status).toBe(200);
    }
    const revoked = await api(a.baseUrl, `/tenants/me/api-keys/${apiKey.id}`, {
      method: 'DELETE',
      token: owner.token,
    });
    expect(revoked.status).toBe(204);
    expectProblem(await api(a.baseUrl, '/tenants/me', { token: secret }), 401, 'invalid_token');
    // The other instance trusts its cache for at most API_KEY_CACHE_SECONDS (default 4)...
    clock.advance(3_000);
    expect((await api(b.baseUrl, '/tenants/me', { token: secret })).status).toBe(200);
    // ...but an administrative route reads the key again: revoked is refused there at once too.
    expectProblem(await api(b.baseUrl, '/tenants/me/members', { token: secret }), 401, 'invalid_token');
    // Past the bound of the contract, every route of every instance refuses it.
    clock.advance(2_000);
    for (const server of [a, b]) {
      expectProblem(await api(server.baseUrl, '/tenants/me', { token: secret }), 401, 'invalid_token');
    }
  });
});

describe('the rate budget of an API key', () => {
  let server: TestServer;
  let inbox: TestInbox;

  beforeAll(async () => {
    inbox = await new TestInbox().start();
    server = await startTestServer({
      SMTP_URL: inbox.url,
      APP_URL: 'https://app.test',
      TRUST_PROXY: '1',
      RATE_LIMIT_MAX: '5',
    });
  });
  afterAll(async () => {
    await server?.close();
    await inbox?.stop();
  });

  it('is keyed by the key, not by the address: a busy key uses neither its neighbours nor its address up', async () => {
    const url = server.baseUrl;
    const owner = await verifiedOwner(url, inbox, freshIp());
    const busy = await createKey(url, owner.token, { role: 'member' }, freshIp());
    const quiet = await createKey(url, owner.token, { role: 'member', name: 'quiet' }, freshIp());
    const address = freshIp();
    const statuses: number[] = [];
    for (let i = 0; i < 9; i += 1) {
      statuses.push((await api(url, '/tenants/me', { token: busy.secret, headers: address })).status);
    }
    // The key's own 5 from its first call on (issue 37: that one counted against the address only), then 429.
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429, 429]);
    const refused = await api(url, '/tenants/me', { token: busy.secret, headers: address });
    expectProblem(refused, 429, 'rate_limited');
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    // Same address: the other key, and the address itself, still have theirs.
    expect((await api(url, '/tenants/me', { token: quiet.secret, headers: address })).status).toBe(200);
    expect((await api(url, '/tenants/me', { token: owner.token, headers: address })).status).toBe(200);
    // From another address the busy key is still over its budget: it travels with the key.
    expectProblem(
      await api(url, '/tenants/me', { token: busy.secret, headers: freshIp() }),
      429,
      'rate_limited',
    );
  });
});
