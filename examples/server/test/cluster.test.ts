import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChildServer, startChildServer } from './helpers/child-server.js';
import { api, PASSWORD, uniqueEmail } from './helpers/http.js';
import {
  createTestDatabase,
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
  type TestDatabase,
} from './helpers/postgres.js';
import { TEST_SECRETS } from './helpers/test-server.js';

/** A documentation-range address (RFC 5737) no other run shares, so Redis budgets start empty. */
const freshIp = () => `198.51.${randomInt(0, 256)}.${randomInt(1, 255)}`;

describe.skipIf(!TEST_DATABASE_URL || !TEST_REDIS_URL)(
  'two server processes sharing PostgreSQL and Redis',
  () => {
    let db: TestDatabase;
    let a: ChildServer;
    let b: ChildServer;

    beforeAll(async () => {
      db = await createTestDatabase(TEST_DATABASE_URL as string);
      const env = {
        ...TEST_SECRETS,
        PORT: '0',
        DATABASE_URL: db.url,
        REDIS_URL: TEST_REDIS_URL as string,
        BCRYPT_COST: '4',
        REFRESH_REUSE_GRACE_SECONDS: '0',
        RATE_LIMIT_AUTH_MAX: '4',
        // The tests speak for a client behind one proxy hop, so each test has its own address.
        TRUST_PROXY: '1',
      };
      // Both start at once: the migrations must be applied exactly once between them.
      [a, b] = await Promise.all([startChildServer(env), startChildServer(env)]);
    });
    afterAll(async () => {
      for (const s of [a, b]) {
        if (s && s.child.exitCode === null) {
          s.kill('SIGTERM');
          expect(await s.exited).toBe(0);
        }
      }
      await db?.drop();
    });

    it('detects a refresh token rotated on one instance and replayed on the other', async () => {
      // A fresh client address per call keeps this test clear of the (small) shared auth budget.
      const headers = () => ({ 'x-forwarded-for': freshIp() });
      const email = uniqueEmail('cluster');
      const reg = await api<{ refreshToken: string; accessToken: string }>(a.url, '/auth/register', {
        body: { email, password: PASSWORD },
        headers: headers(),
      });
      expect(reg.status).toBe(201);
      const rotated = await api<{ refreshToken: string }>(a.url, '/auth/refresh', {
        body: { refreshToken: reg.body.refreshToken },
        headers: headers(),
      });
      expect(rotated.status).toBe(200);
      const replay = await api<{ code: string }>(b.url, '/auth/refresh', {
        body: { refreshToken: reg.body.refreshToken },
        headers: headers(),
      });
      expect(replay.status).toBe(401);
      expect(replay.body.code).toBe('invalid_token');
      // The session is revoked for both instances: the current token is refused everywhere.
      for (const server of [a, b]) {
        const r = await api(server.url, '/auth/refresh', {
          body: { refreshToken: rotated.body.refreshToken },
          headers: headers(),
        });
        expect(r.status).toBe(401);
      }
      const sessions = await api<{ sessions: unknown[] }>(a.url, '/sessions', {
        token: reg.body.accessToken,
      });
      expect(sessions.body.sessions).toEqual([]);
      await b.waitForLine((l) => l.event === 'replay_detected');
    });

    it('shares one auth rate-limit budget across both instances', async () => {
      const headers = { 'x-forwarded-for': freshIp() };
      const body = { email: uniqueEmail('budget'), password: PASSWORD };
      const remaining: string[] = [];
      for (const server of [a, b, a, b]) {
        const r = await api(server.url, '/auth/login', { body, headers });
        expect(r.status).toBe(401);
        expect(r.headers.get('ratelimit-limit')).toBe('4');
        remaining.push(r.headers.get('ratelimit-remaining') ?? '');
      }
      expect(remaining).toEqual(['3', '2', '1', '0']);
      for (const server of [a, b]) {
        const r = await api<{ code: string }>(server.url, '/auth/login', { body, headers });
        expect(r.status).toBe(429);
        expect(r.body.code).toBe('rate_limited');
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      // Another client is not affected.
      const other = await api(b.url, '/auth/login', { body, headers: { 'x-forwarded-for': freshIp() } });
      expect(other.status).toBe(401);
    });
  },
);
