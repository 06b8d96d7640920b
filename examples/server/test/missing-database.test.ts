import { randomBytes } from 'node:crypto';
import { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServer } from './helpers/child-server.js';
import { TEST_DATABASE_URL } from './helpers/postgres.js';
import { startTestServer, TEST_SECRETS } from './helpers/test-server.js';

/*
 * DATABASE_URL naming a database that does not exist (a typo, the wrong environment's name): production
 * refuses to start, naming the database and what to do, instead of creating an empty one and migrating
 * it; development creates it, and says so.
 */
describe.skipIf(!TEST_DATABASE_URL)(
  'DATABASE_URL naming a database that does not exist',
  { timeout: 120_000 },
  () => {
    let admin: MikroORM;
    const names: string[] = [];

    /** A random name nobody has, and its URL on the test PostgreSQL; dropped after the tests. */
    function missingDatabase(): { name: string; url: string } {
      const name = `ta_missing_${randomBytes(6).toString('hex')}`;
      names.push(name);
      const url = new URL(TEST_DATABASE_URL as string);
      url.pathname = `/${name}`;
      return { name, url: url.toString() };
    }

    async function exists(name: string): Promise<boolean> {
      const rows = await admin.em
        .getConnection()
        .execute('select 1 from pg_database where datname = ?', [name]);
      return rows.length > 0;
    }

    beforeAll(async () => {
      admin = await MikroORM.init({
        clientUrl: TEST_DATABASE_URL,
        entities: [],
        discovery: { warnWhenNoEntities: false },
      });
    });
    afterAll(async () => {
      for (const name of names)
        await admin.em.getConnection().execute(`drop database if exists "${name}" with (force)`);
      await admin?.close(true);
    });

    it('stops a production server with exit code 1, naming the database and what to do, and creates nothing', async () => {
      const { name, url } = missingDatabase();
      const proc = spawnServer({
        NODE_ENV: 'production',
        PORT: '0',
        DATABASE_URL: url,
        ...TEST_SECRETS,
        CORS_ORIGINS: 'https://app.example.com',
        APP_URL: 'https://app.example.com',
        SMTP_URL: 'smtp://127.0.0.1:9',
        MAIL_FROM: 'Example <no-reply@example.com>',
      });
      // Without the refusal it would create the database and listen: stop it then, and fail.
      const outcome = await Promise.race([
        proc.exited,
        proc
          .waitForLine((l) => typeof l.msg === 'string' && l.msg.includes('listening on'))
          .then(
            () => 'listening',
            () => 'exited',
          ),
      ]);
      if (outcome === 'listening') proc.kill('SIGKILL');
      expect(outcome).toBe(1);
      const stderr = proc.stderr();
      expect(stderr).toContain(`database "${name}" does not exist`);
      expect(stderr).toMatch(/CREATE DATABASE/);
      expect(stderr).toMatch(/DATABASE_URL/);
      expect(proc.lines.some((l) => l.includes('listening'))).toBe(false);
      expect(await exists(name)).toBe(false);
    });

    it('creates it in development, with a log line, and migrates it', async () => {
      const { name, url } = missingDatabase();
      const server = await startTestServer({ DATABASE_URL: url });
      try {
        expect(await exists(name)).toBe(true);
        const line = server.logs
          .map((l) => JSON.parse(l) as Record<string, unknown>)
          .find((l) => l.database === name);
        expect(line).toMatchObject({ level: 'warn' });
        expect(String(line?.msg)).toContain(`database "${name}" does not exist: creating it`);
        const register = await fetch(`${server.baseUrl}/api/v1/auth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            email: 'ada@example.com',
            password: 'Correct-Horse-Battery-42',
            tenantName: 'A',
          }),
        });
        expect(register.status).toBe(201);
      } finally {
        await server.close();
      }
    });
  },
);
