import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, PASSWORD, uniqueEmail } from './helpers/http.js';
import {
  createTestDatabase,
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
  type TestDatabase,
} from './helpers/postgres.js';
import { startTestServer, type TestServer } from './helpers/test-server.js';

/*
 * API 1.3, "SCIM 2.0 provisioning per tenant", with two instances on one PostgreSQL and one Redis: a
 * tenant's SCIM budget (SCIM_RATE_LIMIT_MAX) is one budget whichever instance its directory reaches, and a
 * revoked token stops on every instance at once.
 */

const BUDGET = 10;

describe.skipIf(!TEST_DATABASE_URL || !TEST_REDIS_URL)(
  'SCIM on two instances sharing PostgreSQL and Redis',
  () => {
    let db: TestDatabase;
    let a: TestServer;
    let b: TestServer;

    beforeAll(async () => {
      db = await createTestDatabase(TEST_DATABASE_URL as string);
      const env = {
        DATABASE_URL: db.url,
        REDIS_URL: TEST_REDIS_URL as string,
        SCIM_RATE_LIMIT_MAX: String(BUDGET),
      };
      a = await startTestServer(env);
      b = await startTestServer(env);
    });
    afterAll(async () => {
      await a?.close();
      await b?.close();
      await db?.drop();
    });

    const discover = (server: TestServer, token: string) =>
      fetch(`${server.baseUrl}/scim/v2/ServiceProviderConfig`, {
        headers: { authorization: `Bearer ${token}` },
      });

    async function scimToken(server: TestServer) {
      const reg = await api<{ accessToken: string }>(server.baseUrl, '/auth/register', {
        body: { email: uniqueEmail('owner'), password: PASSWORD },
      });
      const created = await api<{ token: string }>(server.baseUrl, '/tenants/me/scim/token', {
        method: 'POST',
        token: reg.body.accessToken,
      });
      expect(created.status).toBe(201);
      return { ownerToken: reg.body.accessToken, token: created.body.token };
    }

    it("counts a tenant's requests to both instances against one budget", async () => {
      const { token } = await scimToken(a);
      for (let i = 0; i < BUDGET; i++) {
        const res = await discover(i % 2 === 0 ? a : b, token);
        expect(res.status).toBe(200);
        expect(res.headers.get('ratelimit-remaining')).toBe(String(BUDGET - i - 1));
      }
      for (const server of [a, b]) {
        const refused = await discover(server, token);
        expect(refused.status).toBe(429);
        expect(refused.headers.get('retry-after')).not.toBeNull();
      }
      // Another tenant's directory has a budget of its own.
      const other = await scimToken(b);
      expect((await discover(a, other.token)).status).toBe(200);
    });

    it('a token revoked on one instance is refused by the other at once', async () => {
      const { ownerToken, token } = await scimToken(a);
      expect((await discover(b, token)).status).toBe(200);
      const revoked = await api(a.baseUrl, '/tenants/me/scim/token', { method: 'DELETE', token: ownerToken });
      expect(revoked.status).toBe(204);
      expect((await discover(b, token)).status).toBe(401);
    });
  },
);
