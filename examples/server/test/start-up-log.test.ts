import { describe, expect, it } from 'vitest';
import { startChildServer } from './helpers/child-server.js';
import { TEST_REDIS_URL } from './helpers/postgres.js';
import { startTestServer, TEST_SECRETS } from './helpers/test-server.js';

/** The start-up log says what takes long while it runs, so a first start on PGlite does not look hung. */
describe('the start-up log', () => {
  it('says "running migrations…" before the migrations and "migrations done in N ms" after', async () => {
    const server = await startTestServer();
    try {
      const messages = server.logs.map((l) => JSON.parse(l) as Record<string, unknown>);
      const before = messages.findIndex((l) => l.msg === 'running migrations…');
      const after = messages.findIndex(
        (l) => typeof l.msg === 'string' && l.msg.startsWith('migrations done in'),
      );
      expect(before).toBeGreaterThanOrEqual(0);
      expect(after).toBeGreaterThan(before);
      expect(messages[after]).toMatchObject({ level: 'info', durationMs: expect.any(Number) });
      expect(messages[after]?.msg).toMatch(
        /^migrations done in \d+ ms \(applied tenant-auth-\d+-initial(, |\))/,
      );
      expect(messages[after]?.migrations).toEqual(
        expect.arrayContaining([expect.stringMatching(/-initial$/)]),
      );
    } finally {
      await server.close();
    }
  });
});

describe('pnpm start', () => {
  it('logs "starting…" as its first line, before loading the packages and before the migrations', async () => {
    const server = await startChildServer({
      PORT: '0',
      BCRYPT_COST: '4',
      DATABASE_URL: 'memory:',
      ...TEST_SECRETS,
    });
    try {
      const messages = server.lines.map((l) => String((JSON.parse(l) as Record<string, unknown>).msg));
      expect(messages[0]).toBe(
        'tenant-auth reference server starting… (database: in-memory PGlite (nothing is kept))',
      );
      expect(messages.indexOf('running migrations…')).toBeGreaterThan(0);
    } finally {
      server.kill('SIGTERM');
      await server.exited;
    }
  });
});

describe.skipIf(!TEST_REDIS_URL)('the start-up log with REDIS_URL', () => {
  it('says the rate limits are on redis', async () => {
    const server = await startTestServer({ REDIS_URL: TEST_REDIS_URL as string });
    try {
      const line = server.logs
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => typeof l.msg === 'string' && l.msg.startsWith('tenant-auth: rate limits'));
      expect(line?.rateLimit).toMatchObject({ store: 'redis' });
    } finally {
      await server.close();
    }
  });
});
