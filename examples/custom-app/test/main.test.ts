import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { MikroORM } from '@mikro-orm/postgresql';
import { describe, expect, it } from 'vitest';
import { TEST_DATABASE_URL } from './postgres.js';

const APP_DIR = fileURLToPath(new URL('..', import.meta.url));
const SECRETS = {
  JWT_SECRET: 'test-access-secret-0123456789abcdef-XYZ',
  JWT_REFRESH_SECRET: 'test-refresh-secret-0123456789abcdef-XYZ',
};

/** `pnpm start` as a child process, in a minimal environment plus `env`. */
function start(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: APP_DIR,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const listeners: (() => void)[] = [];
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    for (const listener of listeners) listener();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    exited,
    stderr: () => stderr,
    /** The port, once the app says it listens. */
    listening: () =>
      new Promise<number>((resolve, reject) => {
        const check = () => {
          const match = /listening on http:\/\/localhost:(\d+)/.exec(stderr);
          if (match) resolve(Number(match[1]));
        };
        listeners.push(check);
        check();
        void exited.then((code) => reject(new Error(`exited with ${code}: ${stderr}`)));
      }),
  };
}

describe('src/main.ts', () => {
  it('refuses to start in production without the JWT secrets', async () => {
    const app = start({ NODE_ENV: 'production' });
    expect(await app.exited).toBe(1);
    expect(app.stderr()).toContain('JWT_SECRET is required in production');
  });

  it('reports a configuration error by name before touching the database', async () => {
    // Nothing listens on port 1: had it connected first, this would be a connection error.
    const app = start({ NODE_ENV: 'production', ...SECRETS, DATABASE_URL: 'postgres://127.0.0.1:1/none' });
    expect(await app.exited).toBe(1);
    expect(app.stderr()).toMatch(/createTenantAuthKoa: origins are required in production/);
    expect(app.stderr()).not.toMatch(/ECONNREFUSED|migrations failed/);
  });

  it('migrates, serves, and exits 0 on SIGTERM', async () => {
    const app = start({ PORT: '0', ...SECRETS });
    const port = await app.listening();
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/projects`);
    expect(res.status).toBe(401);
    app.child.kill('SIGTERM');
    expect(await app.exited).toBe(0);
    expect(app.stderr()).toContain('"msg":"shut down"');
  });

  it.skipIf(!TEST_DATABASE_URL)(
    'refuses to start on a PostgreSQL database that does not exist, naming it, and does not create it',
    async () => {
      const name = `custom_app_missing_${randomBytes(6).toString('hex')}`;
      const url = new URL(TEST_DATABASE_URL as string);
      url.pathname = `/${name}`;
      const app = start({ PORT: '0', ...SECRETS, DATABASE_URL: url.toString() });
      expect(await app.exited).toBe(1);
      expect(app.stderr()).toContain(
        `custom-app: database "${name}" does not exist: create it first (createdb ${name}) and start again, or correct DATABASE_URL`,
      );
      expect(app.stderr()).not.toContain('listening on');
      const admin = new MikroORM({
        clientUrl: TEST_DATABASE_URL,
        entities: [],
        discovery: { warnWhenNoEntities: false },
      });
      try {
        const rows = await admin.em
          .getConnection()
          .execute('select 1 from pg_database where datname = ?', [name]);
        expect(rows).toEqual([]);
      } finally {
        await admin.close(true);
      }
    },
  );
});
