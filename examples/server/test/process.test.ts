import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TcpProxy } from '../../../test-support/tcp-proxy.js';
import { SERVER_DIR, spawnServer, startChildServer } from './helpers/child-server.js';
import { api, PASSWORD, uniqueEmail } from './helpers/http.js';
import { TEST_REDIS_URL } from './helpers/postgres.js';
import { TEST_SECRETS } from './helpers/test-server.js';

/** Runs `pnpm migrate` (src/migrate.ts) with `env`; resolves with its exit code and stdout + stderr. */
function runMigrate(env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/migrate.ts'], {
      cwd: SERVER_DIR,
      env: { PATH: process.env.PATH ?? '', ...env },
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      out += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      out += c;
    });
    child.on('exit', (code) => resolve({ code, out }));
  });
}

const BASE_ENV = { DATABASE_URL: 'memory:', PORT: '0', BCRYPT_COST: '4', ...TEST_SECRETS };

// Child processes start slowly on a busy CI machine (tsx, PGlite, migrations): generous limits.
describe('the server process', { timeout: 120_000 }, () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ta-server-process-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('refuses to start in production without secrets, naming the variables, with exit code 1', async () => {
    const proc = spawnServer({ NODE_ENV: 'production', PORT: '0', DATABASE_URL: 'memory:' });
    expect(await proc.exited).toBe(1);
    const stderr = proc.stderr();
    expect(stderr).toMatch(/JWT_SECRET: is required when NODE_ENV=production/);
    expect(stderr).toMatch(/JWT_REFRESH_SECRET: is required/);
    expect(stderr).toMatch(/CORS_ORIGINS: is required/);
    expect(proc.lines.some((l) => l.includes('listening'))).toBe(false);
  });

  it('refuses a bad variable with a message naming it', async () => {
    const proc = spawnServer({ ...BASE_ENV, TRUST_PROXY: 'yes' });
    expect(await proc.exited).toBe(1);
    expect(proc.stderr()).toMatch(/TRUST_PROXY: must be an integer/);
  });

  it('refuses a value tenant-auth refuses, naming the variable, before opening the database', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'tenant-auth-bad-secret-'));
    try {
      const proc = spawnServer({
        PORT: '0',
        DATA_DIR: dataDir,
        JWT_SECRET: TEST_SECRETS.JWT_SECRET,
        JWT_REFRESH_SECRET: TEST_SECRETS.JWT_SECRET,
      });
      expect(await proc.exited).toBe(1);
      expect(proc.stderr()).toMatch(/JWT_REFRESH_SECRET: must differ from JWT_SECRET/);
      // Nothing was opened: no database folder, no migration.
      expect(await readdir(dataDir)).toEqual([]);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('finishes an in-flight request on SIGTERM, refuses new connections, and exits 0', async () => {
    const server = await startChildServer(BASE_ENV);
    const body = JSON.stringify({ email: uniqueEmail('inflight'), password: PASSWORD });
    // `Expect: 100-continue`: the server answers "continue" once it is handling the request, so the
    // request is provably in flight when the signal is sent; the body follows after the signal.
    const req = request(`${server.url}/api/v1/auth/register`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        expect: '100-continue',
      },
    });
    const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
      req.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on('error', reject);
    });
    await new Promise<void>((resolve) => req.once('continue', resolve));
    server.kill('SIGTERM');
    await server.waitForLine((l) => l.msg === 'shutting down: finishing in-flight requests');
    await expect(fetch(`${server.url}/api/v1/openapi.json`)).rejects.toThrow();
    req.end(body);
    const res = await response;
    expect(res.status).toBe(201);
    expect(JSON.parse(res.body)).toMatchObject({ tokenType: 'Bearer' });
    expect(await server.exited).toBe(0);
    await server.waitForLine((l) => l.msg === 'shut down' && l.forced === false);
  });

  it('closes a request that does not finish by the deadline and still exits 0', async () => {
    const server = await startChildServer({ ...BASE_ENV, SHUTDOWN_TIMEOUT_SECONDS: '1' });
    const req = request(`${server.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': '1000', expect: '100-continue' },
    });
    const closed = new Promise<void>((resolve) => {
      req.on('error', () => resolve());
      req.on('close', () => resolve());
    });
    await new Promise<void>((resolve) => req.once('continue', resolve));
    server.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    await closed;
    await server.waitForLine(
      (l) => typeof l.msg === 'string' && l.msg.startsWith('shut down') && l.forced === true,
    );
  });

  it.skipIf(!TEST_REDIS_URL)('exits 0 on SIGTERM when Redis stopped answering', async () => {
    const target = new URL(TEST_REDIS_URL as string);
    const proxy = new TcpProxy(target.hostname, Number(target.port || 6379));
    await proxy.start();
    try {
      const server = await startChildServer({
        ...BASE_ENV,
        SHUTDOWN_TIMEOUT_SECONDS: '1',
        REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
      });
      proxy.pause();
      server.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      await server.waitForLine((l) => l.msg === 'shut down');
    } finally {
      await proxy.stop();
    }
  });

  it('exits 0 on SIGINT too', async () => {
    const server = await startChildServer(BASE_ENV);
    server.kill('SIGINT');
    expect(await server.exited).toBe(0);
  });

  it('keeps the embedded database and generated development secrets in the data folder across restarts', async () => {
    const dataDir = join(dir, 'data');
    const env = { PORT: '0', BCRYPT_COST: '4', DATA_DIR: dataDir };
    const first = await startChildServer(env);
    const listening = await first.waitForLine(
      (l) => typeof l.msg === 'string' && l.msg.includes('listening on'),
    );
    expect(listening.msg).toBe(
      `tenant-auth reference server listening on http://localhost:${first.port} (database: embedded PGlite at ${dataDir}/pglite)`,
    );
    const warning = await first.waitForLine(
      (l) => l.level === 'warn' && String(l.msg).includes('JWT_SECRET'),
    );
    expect(warning.msg).toMatch(/generated development secrets/);
    const secretsFile = join(dataDir, 'jwt-secrets.json');
    expect((await stat(secretsFile)).mode & 0o777).toBe(0o600);
    const secrets = JSON.parse(await readFile(secretsFile, 'utf8')) as {
      secret: string;
      refreshSecret: string;
    };
    expect(first.lines.join('\n')).not.toContain(secrets.secret);

    const email = uniqueEmail('persisted');
    const reg = await api<{ accessToken: string }>(first.url, '/auth/register', {
      body: { email, password: PASSWORD },
    });
    expect(reg.status).toBe(201);
    first.kill('SIGTERM');
    expect(await first.exited).toBe(0);

    const second = await startChildServer(env);
    // Same secrets: the access token issued before the restart is still valid; same data: login works.
    expect((await api(second.url, '/health', { token: reg.body.accessToken })).status).toBe(200);
    expect((await api(second.url, '/auth/login', { body: { email, password: PASSWORD } })).status).toBe(200);
    await second.waitForLine(
      (l) => l.level === 'warn' && String(l.msg).includes('using the development secrets kept'),
    );
    second.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });

  it('refuses a second process on the same embedded database folder, naming the folder and the pid', async () => {
    const dataDir = join(dir, 'locked');
    const env = { PORT: '0', BCRYPT_COST: '4', DATA_DIR: dataDir, ...TEST_SECRETS };
    const first = await startChildServer(env);
    const pid = first.child.pid as number;
    const message = `the database folder ${dataDir}/pglite is in use by another process (pid ${pid})`;
    const second = spawnServer(env);
    expect(await second.exited).toBe(1);
    expect(second.stderr()).toContain(message);
    expect(second.lines.some((l) => l.includes('listening'))).toBe(false);
    // pnpm migrate opens the folder the same way.
    const migrate = await runMigrate({ DATA_DIR: dataDir });
    expect(migrate.code).toBe(1);
    expect(migrate.out).toContain(message);
    // The first one is unharmed.
    expect(
      (await api(first.url, '/auth/register', { body: { email: uniqueEmail('lock'), password: PASSWORD } }))
        .status,
    ).toBe(201);
    first.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    await expect(stat(join(dataDir, 'pglite', 'tenant-auth.lock'))).rejects.toThrow(/ENOENT/);
  });

  it('takes over the lock of a process that is gone', async () => {
    const dataDir = join(dir, 'stale-lock');
    const dead = spawn(process.execPath, ['-e', '']);
    const deadPid = dead.pid as number;
    await new Promise((resolve) => dead.once('exit', resolve));
    await mkdir(join(dataDir, 'pglite'), { recursive: true });
    const lockFile = join(dataDir, 'pglite', 'tenant-auth.lock');
    await writeFile(lockFile, String(deadPid));
    const server = await startChildServer({
      PORT: '0',
      BCRYPT_COST: '4',
      DATA_DIR: dataDir,
      ...TEST_SECRETS,
    });
    expect(await readFile(lockFile, 'utf8')).toBe(String(server.child.pid));
    server.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });

  it('finishes starting on a SIGTERM during start-up, closes the database and exits 0', async () => {
    const dataDir = join(dir, 'early-signal');
    const env = { PORT: '0', BCRYPT_COST: '4', DATA_DIR: dataDir };
    const proc = spawnServer(env);
    // Generating the development secrets is the first step of start-up; the database comes next.
    await proc.waitForLine(
      (l) => l.level === 'warn' && String(l.msg).includes('generated development secrets'),
    );
    proc.kill('SIGTERM');
    expect(await proc.exited).toBe(0);
    await proc.waitForLine((l) => l.msg === 'signal during start-up: shutting down once started');
    expect(proc.lines.some((l) => l.includes('listening on'))).toBe(false);
    await expect(stat(join(dataDir, 'pglite', 'tenant-auth.lock'))).rejects.toThrow(/ENOENT/);
    // The folder is intact: the next start opens it and works.
    const next = await startChildServer(env);
    expect(
      (await api(next.url, '/auth/register', { body: { email: uniqueEmail('early'), password: PASSWORD } }))
        .status,
    ).toBe(201);
    next.kill('SIGTERM');
    expect(await next.exited).toBe(0);
  });

  it('applies the migrations as a separate command (pnpm migrate), once', async () => {
    const run = () => runMigrate({ DATA_DIR: join(dir, 'migrate') });
    const first = await run();
    expect(first.code).toBe(0);
    expect(first.out).toMatch(/migrations applied to embedded PGlite at .*: tenant-auth-\d+-initial/);
    const second = await run();
    expect(second.code).toBe(0);
    expect(second.out).toMatch(/none pending/);
  });
});
