import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from 'tenant-auth-core/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { TcpProxy } from '../../../test-support/tcp-proxy.js';
import { ConfigError, parseConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { startServer } from '../src/server.js';
import { api, PASSWORD, setCookies, uniqueEmail } from './helpers/http.js';
import {
  createTestDatabase,
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
  type TestDatabase,
} from './helpers/postgres.js';
import { startTestServer, TEST_SECRETS, type TestServer } from './helpers/test-server.js';

interface Tokens {
  accessToken: string;
  refreshToken: string;
  session: { id: string };
}

// Most tests start servers of their own (PGlite takes a moment on a busy CI machine).
vi.setConfig({ testTimeout: 120_000 });

const open: TestServer[] = [];
async function start(env: Record<string, string> = {}, clock?: ManualClock): Promise<TestServer> {
  const server = await startTestServer(env, clock ? { clock } : {});
  open.push(server);
  return server;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

async function register(url: string, headers: Record<string, string> = {}) {
  const email = uniqueEmail();
  const r = await api<Tokens>(url, '/auth/register', { body: { email, password: PASSWORD }, headers });
  expect(r.status).toBe(201);
  return { ...r.body, email, res: r.res };
}

describe('production', () => {
  // Production refuses memory: and a bcrypt cost below 10: an embedded PGlite folder of its own.
  const env = {
    NODE_ENV: 'production',
    CORS_ORIGINS: 'https://app.example.com,https://admin.example.com',
    APP_URL: 'https://app.example.com',
    // Nothing listens on the discard port: delivery fails and retries, which these tests do not look at.
    SMTP_URL: 'smtp://127.0.0.1:9',
    MAIL_FROM: 'Example <no-reply@example.com>',
    DATABASE_URL: '',
    BCRYPT_COST: '10',
    DATA_DIR: '',
  };
  beforeAll(async () => {
    env.DATA_DIR = await mkdtemp(join(tmpdir(), 'ta-production-'));
  });
  afterAll(() => rm(env.DATA_DIR, { recursive: true, force: true }));

  it('uses the prefixed cookie names with the same attributes, and reads them back', async () => {
    const { baseUrl: url } = await start(env);
    const reg = await register(url, { origin: 'https://app.example.com' });
    const cookies = setCookies(reg.res);
    expect(Object.keys(cookies).sort()).toEqual(['__Host-access_token', '__Secure-refresh_token']);
    expect(cookies['__Host-access_token']?.attributes).toEqual({
      path: '/',
      'max-age': '900',
      httponly: true,
      secure: true,
      samesite: 'Lax',
    });
    expect(cookies['__Secure-refresh_token']?.attributes).toMatchObject({
      path: '/api/v1/auth',
      'max-age': '604800',
      httponly: true,
      secure: true,
      samesite: 'Strict',
    });
    expect(cookies['__Host-access_token']?.attributes.domain).toBeUndefined();
    const health = await api(url, '/health', {
      headers: { cookie: `__Host-access_token=${reg.accessToken}` },
    });
    expect(health.status).toBe(200);
    // The unprefixed name means nothing in production.
    expect(
      (await api(url, '/health', { headers: { cookie: `access_token=${reg.accessToken}` } })).status,
    ).toBe(401);
    const refreshed = await api(url, '/auth/refresh', {
      body: {},
      headers: { cookie: `__Secure-refresh_token=${reg.refreshToken}`, origin: 'https://admin.example.com' },
    });
    expect(refreshed.status).toBe(200);
    const out = await api(url, '/auth/logout', {
      method: 'POST',
      headers: { cookie: `__Host-access_token=${reg.accessToken}`, origin: 'https://app.example.com' },
    });
    expect(out.status).toBe(204);
    const cleared = setCookies(out.res);
    expect(cleared['__Host-access_token']?.attributes.path).toBe('/');
    expect(cleared['__Secure-refresh_token']?.attributes.path).toBe('/api/v1/auth');
  });

  it('takes CORS and CSRF origins from CORS_ORIGINS only', async () => {
    const { baseUrl: url } = await start(env);
    const preflight = (origin: string) =>
      fetch(`${url}/api/v1/auth/login`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST' },
      });
    expect((await preflight('https://admin.example.com')).headers.get('access-control-allow-origin')).toBe(
      'https://admin.example.com',
    );
    expect((await preflight('http://localhost:5173')).headers.get('access-control-allow-origin')).toBeNull();
    const reg = await register(url);
    const csrf = await api<{ code: string }>(url, '/sessions', {
      method: 'DELETE',
      headers: { cookie: `__Host-access_token=${reg.accessToken}`, origin: 'http://localhost:5173' },
    });
    expect(csrf.status).toBe(403);
    expect(csrf.body.code).toBe('csrf_rejected');
  });

  it('refuses to start without secrets, in process too', () => {
    expect(() => parseConfig({ NODE_ENV: 'production', CORS_ORIGINS: 'https://app.example.com' })).toThrow(
      ConfigError,
    );
  });
});

describe('development mode is for this machine', () => {
  /** An address of this machine that is not loopback, if it has one. */
  const outside = Object.values(networkInterfaces())
    .flat()
    .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;
  const reachable = (host: string, port: number) =>
    new Promise<boolean>((resolve) => {
      const socket = connect({ host, port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });

  it('listens on loopback unless HOST says otherwise, and warns loudly when it is reachable from outside', async () => {
    const local = await start({});
    expect(await reachable('127.0.0.1', local.port)).toBe(true);
    if (outside) expect(await reachable(outside, local.port)).toBe(false);
    expect(local.logs.some((l) => l.includes('DEVELOPMENT MODE IS REACHABLE'))).toBe(false);
    const open = await start({ HOST: '0.0.0.0' });
    if (outside) expect(await reachable(outside, open.port)).toBe(true);
    expect(
      open.logs.filter((l) => l.includes('DEVELOPMENT MODE IS REACHABLE FROM OTHER MACHINES')),
    ).toHaveLength(1);
  });
});

describe('TRUST_PROXY', () => {
  const xff = { 'x-forwarded-for': '203.0.113.9, 198.51.100.7, 192.0.2.44' };
  async function recordedIp(env: Record<string, string>) {
    const server = await start(env);
    const reg = await register(server.baseUrl, xff);
    const list = await api<{ sessions: { ipAddress: string }[] }>(server.baseUrl, '/sessions', {
      token: reg.accessToken,
    });
    const logged = server.logs
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.event === 'request' && l.path === '/api/v1/auth/register');
    return { session: list.body.sessions[0]?.ipAddress, logged: logged?.ip };
  }

  it('ignores X-Forwarded-For by default', async () => {
    const { session, logged } = await recordedIp({});
    expect(session).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
    expect(logged).toBe(session);
  });

  it('honours X-Forwarded-For only from a peer in TRUSTED_PROXIES', async () => {
    expect(await recordedIp({ TRUST_PROXY: '1', TRUSTED_PROXIES: '10.9.9.9, 2001:db8::/32' })).toEqual({
      session: expect.stringMatching(/^(::ffff:)?127\.0\.0\.1$/),
      logged: expect.stringMatching(/^(::ffff:)?127\.0\.0\.1$/),
    });
    expect(await recordedIp({ TRUST_PROXY: '1', TRUSTED_PROXIES: '127.0.0.0/8' })).toEqual({
      session: '192.0.2.44',
      logged: '192.0.2.44',
    });
  });

  it('honours exactly the configured number of hops', async () => {
    expect(await recordedIp({ TRUST_PROXY: '1' })).toEqual({ session: '192.0.2.44', logged: '192.0.2.44' });
    expect(await recordedIp({ TRUST_PROXY: '2' })).toEqual({
      session: '198.51.100.7',
      logged: '198.51.100.7',
    });
  });

  it('keys the rate limit on that address, so a client cannot pick its own without a trusted proxy', async () => {
    const { baseUrl: url } = await start({ RATE_LIMIT_AUTH_MAX: '2' });
    const login = (ip: string) =>
      api(url, '/auth/login', {
        body: { email: 'x@example.com', password: PASSWORD },
        headers: { 'x-forwarded-for': ip },
      });
    expect((await login('192.0.2.1')).status).toBe(401);
    expect((await login('192.0.2.2')).status).toBe(401);
    expect((await login('192.0.2.3')).status).toBe(429);
  });
});

describe('rate limits', () => {
  it('limits login, registration and refresh per IP with the auth budget, with RateLimit headers and 429', async () => {
    const clock = new ManualClock(Date.now());
    const { baseUrl: url } = await start(
      { RATE_LIMIT_AUTH_MAX: '3', RATE_LIMIT_WINDOW_SECONDS: '60' },
      clock,
    );
    const reg = await register(url);
    const refresh = await api(url, '/auth/refresh', { body: { refreshToken: reg.refreshToken } });
    expect(refresh.status).toBe(200);
    expect(refresh.headers.get('ratelimit-limit')).toBe('3');
    expect(refresh.headers.get('ratelimit-remaining')).toBe('1');
    expect(Number(refresh.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    const third = await api(url, '/auth/login', { body: { email: reg.email, password: PASSWORD } });
    expect(third.status).toBe(200);
    expect(third.headers.get('ratelimit-remaining')).toBe('0');
    const limited = await api<{ code: string; status: number }>(url, '/auth/login', {
      body: { email: reg.email, password: PASSWORD },
    });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(limited.body).toMatchObject({ code: 'rate_limited', status: 429 });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.headers.get('ratelimit-limit')).toBe('3');
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    // Other routes use the looser budget.
    expect((await api(url, '/health', { token: reg.accessToken })).status).toBe(200);
    clock.advance(61_000);
    expect((await api(url, '/auth/login', { body: { email: reg.email, password: PASSWORD } })).status).toBe(
      200,
    );
  });

  it('limits every other route with RATE_LIMIT_MAX', async () => {
    const { baseUrl: url } = await start({ RATE_LIMIT_MAX: '2' });
    const first = await api(url, '/openapi.json');
    expect(first.headers.get('ratelimit-limit')).toBe('2');
    expect((await api(url, '/.well-known/jwks.json')).status).toBe(200);
    const limited = await api<{ code: string }>(url, '/tenants/me');
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('rate_limited');
    expect(limited.headers.get('retry-after')).not.toBeNull();
  });

  it('throttles an account after LOGIN_FAILURES_PER_ACCOUNT failed logins', async () => {
    const { baseUrl: url } = await start({ LOGIN_FAILURES_PER_ACCOUNT: '2' });
    const reg = await register(url);
    for (let i = 0; i < 2; i++) {
      expect(
        (await api(url, '/auth/login', { body: { email: reg.email, password: 'Wrong-Password-99' } })).status,
      ).toBe(401);
    }
    const throttled = await api<{ code: string }>(url, '/auth/login', {
      body: { email: reg.email, password: PASSWORD },
    });
    expect(throttled.status).toBe(429);
    expect(throttled.body.code).toBe('rate_limited');
    // The headers describe the budget that refused (the account's), not the per-address one with room left.
    expect(throttled.headers.get('ratelimit-limit')).toBe('2');
    expect(throttled.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another account from the same address is not affected.
    const other = await register(url);
    expect((await api(url, '/auth/login', { body: { email: other.email, password: PASSWORD } })).status).toBe(
      200,
    );
  });
});

describe('asymmetric access tokens', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ta-keys-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it.each([
    ['EdDSA', 'ed25519', { kty: 'OKP', crv: 'Ed25519' }],
    ['ES256', 'ec', { kty: 'EC', crv: 'P-256' }],
  ] as const)(
    'signs access tokens with %s from key files and publishes the public key',
    async (alg, type, jwk) => {
      const pair =
        type === 'ed25519'
          ? generateKeyPairSync('ed25519')
          : generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
      const privateFile = join(dir, `${alg}.key`);
      const publicFile = join(dir, `${alg}.pub`);
      await writeFile(privateFile, pair.privateKey.export({ format: 'pem', type: 'pkcs8' }));
      await writeFile(publicFile, pair.publicKey.export({ format: 'pem', type: 'spki' }));
      const { baseUrl: url } = await start({
        JWT_ACCESS_ALGORITHM: alg,
        JWT_PRIVATE_KEY_FILE: privateFile,
        JWT_PUBLIC_KEY_FILE: publicFile,
      });
      const jwks = await api<{ keys: Record<string, string>[] }>(url, '/.well-known/jwks.json');
      expect(jwks.body.keys).toHaveLength(1);
      const key = jwks.body.keys[0] ?? {};
      expect(key).toMatchObject({ ...jwk, kid: expect.any(String) });
      expect(key.d).toBeUndefined();
      const reg = await register(url);
      const header = JSON.parse(
        Buffer.from(reg.accessToken.split('.')[0] ?? '', 'base64url').toString(),
      ) as Record<string, string>;
      expect(header).toMatchObject({ alg, kid: key.kid });
      const published = createPublicKey({ key: key as never, format: 'jwk' });
      expect(
        published
          .export({ format: 'der', type: 'spki' })
          .equals(pair.publicKey.export({ format: 'der', type: 'spki' })),
      ).toBe(true);
      expect((await api(url, '/health', { token: reg.accessToken })).status).toBe(200);
    },
  );

  it('refuses a key file that does not exist or does not fit, naming the variable', async () => {
    const config = parseConfig({
      ...TEST_SECRETS,
      DATABASE_URL: 'memory:',
      JWT_ACCESS_ALGORITHM: 'EdDSA',
      JWT_PRIVATE_KEY_FILE: join(dir, 'missing.key'),
      JWT_PUBLIC_KEY_FILE: join(dir, 'missing.pub'),
    });
    const logger = createLogger({ level: 'silent' });
    await expect(startServer(config, logger)).rejects.toThrow(/JWT_PRIVATE_KEY_FILE: cannot read/);
    const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    await writeFile(join(dir, 'ec.key'), ec.privateKey.export({ format: 'pem', type: 'pkcs8' }));
    await writeFile(join(dir, 'ec.pub'), ec.publicKey.export({ format: 'pem', type: 'spki' }));
    const wrongAlg = parseConfig({
      ...TEST_SECRETS,
      DATABASE_URL: 'memory:',
      JWT_ACCESS_ALGORITHM: 'EdDSA',
      JWT_PRIVATE_KEY_FILE: join(dir, 'ec.key'),
      JWT_PUBLIC_KEY_FILE: join(dir, 'ec.pub'),
    });
    await expect(startServer(wrongAlg, logger)).rejects.toThrow(/does not fit EdDSA/);
  });
});

describe('CHECK_SESSION_ON_VERIFY', () => {
  it('cuts access tokens at logout when on; they live until expiry when off', async () => {
    for (const [flag, after] of [
      ['true', 401],
      ['false', 200],
    ] as const) {
      const { baseUrl: url } = await start({ CHECK_SESSION_ON_VERIFY: flag });
      const reg = await register(url);
      expect((await api(url, '/auth/logout', { method: 'POST', token: reg.refreshToken })).status).toBe(204);
      expect((await api(url, '/health', { token: reg.accessToken })).status).toBe(after);
    }
  });
});

/** `/health` until it answers `status`, every 100 ms, for at most 5 s; the last answer either way. */
async function healthUntil(baseUrl: string, token: string, status: number) {
  const deadline = Date.now() + 5000;
  for (;;) {
    const r = await api(baseUrl, '/health', { token });
    if (r.status === status || Date.now() > deadline) return r;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('GET /health when the database goes away', () => {
  it('answers 503 with Retry-After on PGlite when the database engine is closed under the server', async () => {
    const server = await start();
    const reg = await register(server.baseUrl);
    const connection = server.database.orm.em.getConnection() as unknown as {
      getNativeClient(): Promise<{ close(): Promise<void> }>;
    };
    await (await connection.getNativeClient()).close();
    const r = await api(server.baseUrl, '/health', { token: reg.accessToken });
    expect(r.status).toBe(503);
    expect(r.body).toEqual({ status: 'degraded', database: 'unavailable' });
    expect(r.headers.get('retry-after')).toBe('5');
    expect(server.logs.some((l) => l.includes('"event":"health_degraded"'))).toBe(true);
  });

  describe.skipIf(!TEST_DATABASE_URL)('on PostgreSQL', () => {
    let db: TestDatabase;
    let proxy: TcpProxy;
    beforeAll(async () => {
      db = await createTestDatabase(TEST_DATABASE_URL as string);
      const target = new URL(db.url);
      proxy = new TcpProxy(target.hostname, Number(target.port || 5432));
      await proxy.start();
    });
    afterAll(async () => {
      await proxy?.stop();
      await db?.drop();
    });

    it('answers 503 while PostgreSQL cannot be reached, and 200 again once it is back, without a restart', async () => {
      const viaProxy = new URL(db.url);
      viaProxy.hostname = '127.0.0.1';
      viaProxy.port = String(proxy.port);
      const server = await start({ DATABASE_URL: viaProxy.toString() });
      const reg = await register(server.baseUrl);
      expect((await api(server.baseUrl, '/health', { token: reg.accessToken })).status).toBe(200);

      await proxy.stop();
      // /health shares one ping's answer for a second: the outage shows within about a second.
      const down = await healthUntil(server.baseUrl, reg.accessToken, 503);
      expect(down.status).toBe(503);
      expect(down.body).toEqual({ status: 'degraded', database: 'unavailable' });
      expect(down.headers.get('retry-after')).toBe('5');
      // A request that needs the database fails cleanly, with nothing internal in the body.
      const login = await api<Record<string, unknown>>(server.baseUrl, '/auth/login', {
        body: { email: reg.email, password: PASSWORD },
      });
      expect(login.status).toBe(503);
      expect(login.body).toMatchObject({ code: 'unavailable' });
      expect(login.headers.get('retry-after')).not.toBeNull();
      expect(JSON.stringify(login.body)).not.toMatch(/ECONN|127\.0\.0\.1|ta_server_|stack/);

      await proxy.start();
      const up = await healthUntil(server.baseUrl, reg.accessToken, 200);
      expect(up.status).toBe(200);
      expect(up.body).toEqual({ status: 'ok', database: 'ok' });
      expect(
        (await api(server.baseUrl, '/auth/login', { body: { email: reg.email, password: PASSWORD } })).status,
      ).toBe(200);
    });

    it('answers 503 instead of hanging when PostgreSQL stops answering (query timeout)', async () => {
      const viaProxy = new URL(db.url);
      viaProxy.hostname = '127.0.0.1';
      viaProxy.port = String(proxy.port);
      const server = await start({ DATABASE_URL: viaProxy.toString() });
      const reg = await register(server.baseUrl);
      proxy.pause();
      try {
        const login = await api<Record<string, unknown>>(server.baseUrl, '/auth/login', {
          body: { email: reg.email, password: PASSWORD },
        });
        expect(login.status).toBe(503);
        expect(login.body).toMatchObject({ code: 'unavailable' });
        expect(JSON.stringify(login.body)).not.toMatch(/timeout|127\.0\.0\.1|ta_server_|stack/i);
      } finally {
        // Cut the frozen connections so the server closes at once, and accept again for later tests.
        await proxy.stop();
        await proxy.start();
      }
    });
  });
});

describe.skipIf(!TEST_REDIS_URL)('rate limits on Redis when Redis goes away', () => {
  let proxy: TcpProxy;
  beforeAll(async () => {
    const target = new URL(TEST_REDIS_URL as string);
    proxy = new TcpProxy(target.hostname, Number(target.port || 6379));
    await proxy.start();
  });
  afterAll(() => proxy?.stop());

  it('refuses auth routes with 503 (fail closed), keeps other routes up, and recovers by itself', async () => {
    const viaProxy = new URL(TEST_REDIS_URL as string);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    const server = await start({ REDIS_URL: viaProxy.toString(), TRUST_PROXY: '1' });
    const headers = { 'x-forwarded-for': `192.0.2.${Math.floor(Math.random() * 250) + 1}` };
    const reg = await api<Tokens>(server.baseUrl, '/auth/register', {
      body: { email: uniqueEmail('redis'), password: PASSWORD },
      headers,
    });
    expect(reg.status).toBe(201);

    await proxy.stop();
    const refused = await api<Record<string, unknown>>(server.baseUrl, '/auth/refresh', {
      body: { refreshToken: reg.body.refreshToken },
      headers,
    });
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ code: 'unavailable' });
    expect(refused.headers.get('retry-after')).not.toBeNull();
    expect(JSON.stringify(refused.body)).not.toMatch(/ECONN|redis|127\.0\.0\.1/i);
    expect((await api(server.baseUrl, '/health', { token: reg.body.accessToken, headers })).status).toBe(200);

    await proxy.start();
    await vi.waitFor(
      async () => {
        const r = await api(server.baseUrl, '/auth/refresh', {
          body: { refreshToken: reg.body.refreshToken },
          headers,
        });
        expect(r.status).toBe(200);
      },
      { timeout: 20_000, interval: 200 },
    );
  });
});

describe('session cleanup', () => {
  it('is scheduled every 10 minutes and deletes expired sessions', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const clock = new ManualClock(Date.now());
      const server = await start({}, clock);
      await register(server.baseUrl);
      const connection = server.database.orm.em.getConnection();
      const count = async () => {
        const rows = await connection.execute<{ n: number }[]>(
          'select count(*)::int as n from tenant_auth_session',
        );
        return rows[0]?.n;
      };
      expect(await count()).toBe(1);
      clock.advance(31 * 86_400_000);
      vi.advanceTimersByTime(10 * 60_000 - 1);
      expect(await count()).toBe(1);
      vi.advanceTimersByTime(1);
      await vi.waitFor(async () => expect(await count()).toBe(0), { timeout: 5000, interval: 20 });
    } finally {
      vi.useRealTimers();
    }
  });
});
