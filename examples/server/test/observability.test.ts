import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { TcpProxy } from '../../../test-support/tcp-proxy.js';
import { api, PASSWORD, uniqueEmail } from './helpers/http.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from './helpers/postgres.js';
import {
  labelValues,
  type MetricFamily,
  parsePrometheusText,
  sampleValue,
} from './helpers/prometheus-text.js';
import { startTestServer, type TestServer } from './helpers/test-server.js';

/*
 * What an operator sees: the probes a load balancer or Kubernetes calls, and the Prometheus metrics,
 * on the assembled server over real HTTP.
 */

// Servers of their own per test (PGlite takes a moment on a busy CI machine).
vi.setConfig({ testTimeout: 120_000 });

const open: TestServer[] = [];
async function start(env: Record<string, string> = {}): Promise<TestServer> {
  const server = await startTestServer(env);
  open.push(server);
  return server;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

/** A documentation-range address (RFC 5737): each test client its own rate-limit budgets. */
const freshIp = () => `203.0.113.${randomInt(1, 255)}`;

async function getJson(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

async function scrape(url: string, headers: Record<string, string> = {}): Promise<Map<string, MetricFamily>> {
  const res = await fetch(`${url}/metrics`, { headers });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheusText(await res.text());
}

/** Polls `/readyz` every 50 ms until it answers `status`; resolves with the milliseconds it took. */
async function readyzBecomes(url: string, status: number, withinMs: number): Promise<number> {
  const started = performance.now();
  for (;;) {
    const res = await fetch(`${url}/readyz`);
    await res.arrayBuffer();
    const elapsed = performance.now() - started;
    if (res.status === status) return elapsed;
    if (elapsed > withinMs) throw new Error(`/readyz did not answer ${status} within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('probes', () => {
  it('answer at the root, unauthenticated and not rate limited: /livez ok, /readyz ready', async () => {
    const server = await start({ RATE_LIMIT_MAX: '2', RATE_LIMIT_AUTH_MAX: '2' });
    for (let i = 0; i < 10; i++) {
      const live = await getJson(`${server.baseUrl}/livez`);
      expect(live.status).toBe(200);
      expect(live.body).toEqual({ status: 'ok' });
      const ready = await getJson(`${server.baseUrl}/readyz`);
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({ status: 'ready' });
      expect(ready.headers.get('ratelimit-limit')).toBeNull();
      expect(ready.headers.get('cache-control')).toBe('no-store');
    }
    // Only the root: nothing under the prefix, and the protected health check is unchanged.
    expect((await api(server.baseUrl, '/readyz')).status).toBe(404);
    expect((await api(server.baseUrl, '/health')).status).toBe(401);
    // Probes are not in the request log.
    expect(server.logs.some((l) => l.includes('"path":"/readyz"'))).toBe(false);
    expect(server.logs.some((l) => l.includes('"path":"/api/v1/readyz"'))).toBe(true);
  });

  it('answers /readyz 503 from the moment shutdown begins, while an in-flight request completes', async () => {
    const server = await start();
    // A second listener on the same app: the server's own port stops accepting when shutdown begins.
    const side = createServer(server.app.callback()).listen(0, '127.0.0.1');
    await once(side, 'listening');
    const sideUrl = `http://127.0.0.1:${(side.address() as AddressInfo).port}`;
    try {
      expect((await getJson(`${sideUrl}/readyz`)).status).toBe(200);
      const body = JSON.stringify({ email: uniqueEmail('draining'), password: PASSWORD });
      // `Expect: 100-continue`: provably in flight once "continue" comes; the body follows later.
      const req = request(`${server.baseUrl}/api/v1/auth/register`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          expect: '100-continue',
        },
      });
      const response = new Promise<number>((resolve, reject) => {
        req.on('response', (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
      });
      await new Promise<void>((resolve) => req.once('continue', resolve));

      const closed = server.close();
      const probe = await getJson(`${sideUrl}/readyz`);
      expect(probe.status).toBe(503);
      expect(probe.body).toEqual({ status: 'not_ready' });
      expect((await getJson(`${sideUrl}/livez`)).status).toBe(200);

      req.end(body);
      expect(await response).toBe(201);
      expect(await closed).toEqual({ forced: false });
    } finally {
      side.closeAllConnections();
      side.close();
    }
  });

  it('keeps serving on its own port through SHUTDOWN_DRAIN_SECONDS, /readyz answering 503, then stops accepting', async () => {
    const server = await start({ SHUTDOWN_DRAIN_SECONDS: '1' });
    expect((await getJson(`${server.baseUrl}/readyz`)).status).toBe(200);
    const closed = server.close();
    const probe = await getJson(`${server.baseUrl}/readyz`);
    expect(probe).toMatchObject({ status: 503, body: { status: 'not_ready' } });
    const register = await api(server.baseUrl, '/auth/register', {
      body: { email: uniqueEmail('drained'), password: PASSWORD },
    });
    expect(register.status).toBe(201);
    expect(await closed).toEqual({ forced: false });
    await expect(getJson(`${server.baseUrl}/readyz`)).rejects.toThrow();
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

    async function serverViaProxy() {
      const viaProxy = new URL(db.url);
      viaProxy.hostname = '127.0.0.1';
      viaProxy.port = String(proxy.port);
      return start({ DATABASE_URL: viaProxy.toString() });
    }

    it('answers /readyz 503 within about a second of PostgreSQL no longer answering, and 200 once it does', async () => {
      const server = await serverViaProxy();
      expect((await getJson(`${server.baseUrl}/readyz`)).status).toBe(200);
      proxy.pause();
      try {
        // Reused for 0.5 s, then a ping that gets no answer for 0.5 s: about a second at most.
        expect(await readyzBecomes(server.baseUrl, 503, 1500)).toBeLessThan(1500);
        // The process itself is fine.
        expect((await getJson(`${server.baseUrl}/livez`)).status).toBe(200);
        proxy.resume();
        await readyzBecomes(server.baseUrl, 200, 15_000);
      } finally {
        proxy.resume();
      }
    });

    it('answers /readyz 503 while PostgreSQL refuses connections, and 200 once it is back', async () => {
      const server = await serverViaProxy();
      expect((await getJson(`${server.baseUrl}/readyz`)).status).toBe(200);
      await proxy.stop();
      try {
        expect(await readyzBecomes(server.baseUrl, 503, 1500)).toBeLessThan(1500);
      } finally {
        await proxy.start();
      }
      await readyzBecomes(server.baseUrl, 200, 15_000);
    });
  });
});

describe('metrics', () => {
  it('serves Prometheus text whose counters follow logins, refreshes and rate-limit refusals', async () => {
    const server = await start({ TRUST_PROXY: '1', RATE_LIMIT_AUTH_MAX: '3' });
    const url = server.baseUrl;
    const before = await scrape(url);
    const value = (families: Map<string, MetricFamily>, name: string, labels: Record<string, string>) =>
      sampleValue(families, name, labels) ?? 0;

    const email = uniqueEmail('metrics');
    const reg = await api<{ refreshToken: string }>(url, '/auth/register', {
      body: { email, password: PASSWORD },
      headers: { 'x-forwarded-for': freshIp() },
    });
    expect(reg.status).toBe(201);
    const login = (password: string, ip: string) =>
      api(url, '/auth/login', { body: { email, password }, headers: { 'x-forwarded-for': ip } });
    expect((await login(PASSWORD, freshIp())).status).toBe(200);
    expect((await login(`${PASSWORD}!`, freshIp())).status).toBe(401);
    const refreshed = await api(url, '/auth/refresh', {
      body: { refreshToken: reg.body.refreshToken },
      headers: { 'x-forwarded-for': freshIp() },
    });
    expect(refreshed.status).toBe(200);
    const limitedIp = freshIp();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await login(`${PASSWORD}?`, limitedIp)).status);
    expect(statuses).toEqual([401, 401, 401, 429]);

    const after = await scrape(url);
    const delta = (name: string, labels: Record<string, string>) =>
      value(after, name, labels) - value(before, name, labels);
    expect(delta('tenant_auth_logins_total', { outcome: 'success' })).toBe(1);
    expect(delta('tenant_auth_logins_total', { outcome: 'wrong_password' })).toBe(4);
    expect(delta('tenant_auth_refreshes_total', { outcome: 'rotated' })).toBe(1);
    expect(delta('tenant_auth_rate_limited_total', { budget: 'strict' })).toBe(1);
    expect(delta('tenant_auth_events_total', { type: 'registered' })).toBe(1);
    const login200 = { route: '/api/v1/auth/login', method: 'POST', status: '200' };
    expect(delta('http_requests_total', login200)).toBe(1);
    expect(delta('http_requests_total', { ...login200, status: '401' })).toBe(4);
    expect(delta('http_requests_total', { ...login200, status: '429' })).toBe(1);
    expect(delta('http_request_duration_seconds_count', login200)).toBe(1);
    expect(value(after, 'http_requests_total', { route: '/metrics', method: 'GET', status: '200' })).toBe(1);
    // Registration hashed a password, each login verified one.
    expect(delta('tenant_auth_password_hashing_wait_seconds_count', { operation: 'verify' })).toBe(5);
    expect(
      delta('tenant_auth_password_hashing_duration_seconds_count', { operation: 'hash' }),
    ).toBeGreaterThan(0);
    expect(sampleValue(after, 'tenant_auth_password_hashing_queued')).toBe(0);
    expect(after.get('tenant_auth_outbox_pending_messages')?.type).toBe('gauge');
    expect(after.get('tenant_auth_outbox_dead_messages')?.type).toBe('gauge');
    expect(after.get('tenant_auth_outbox_oldest_pending_age_seconds')?.type).toBe('gauge');
    expect(after.get('process_resident_memory_bytes')?.type).toBe('gauge');
    expect(after.get('nodejs_eventloop_lag_seconds')?.type).toBe('gauge');
  });

  it('keeps the route label set small and constant when 10,000 distinct ids are requested', async () => {
    const server = await start({ RATE_LIMIT_MAX: '100000' });
    const url = server.baseUrl;
    const reg = await api<{ accessToken: string }>(url, '/auth/register', {
      body: { email: uniqueEmail('cardinality'), password: PASSWORD },
    });
    const auth = { authorization: `Bearer ${reg.body.accessToken}` };
    // Warm every kind of request once, then measure the label sets.
    const requests = [
      () => fetch(`${url}/api/v1/sessions/${randomUUID()}`, { method: 'DELETE', headers: auth }),
      () => fetch(`${url}/api/v1/sessions/${randomUUID()}`, { headers: auth }),
      () => fetch(`${url}/api/v1/tenants/${randomUUID()}`, { headers: auth }),
      () => fetch(`${url}/api/v1/nope/${randomBytes(8).toString('hex')}`),
      () => fetch(`${url}/nope/${randomBytes(8).toString('hex')}`),
    ];
    for (const send of requests) await (await send()).arrayBuffer();
    await scrape(url); // So /metrics is among the routes too.
    const warm = await scrape(url);
    const routesBefore = labelValues(warm, 'http_requests_total', 'route');
    const seriesBefore = warm.get('http_requests_total')?.samples.length ?? 0;

    const statuses = new Map<number, number>();
    for (let batch = 0; batch < 100; batch++) {
      const answers = await Promise.all(
        Array.from({ length: 100 }, async (_, i) => {
          const res = await (requests[i % requests.length] as () => Promise<Response>)();
          await res.arrayBuffer();
          return res.status;
        }),
      );
      for (const status of answers) statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    expect(Object.fromEntries(statuses)).toEqual({ 404: 8000, 405: 2000 });

    const res = await fetch(`${url}/metrics`);
    const text = await res.text();
    const families = parsePrometheusText(text);
    const routes = labelValues(families, 'http_requests_total', 'route');
    expect(routes).toEqual(routesBefore);
    expect([...routes].sort()).toEqual(
      [
        '/api/v1/auth/register',
        '/api/v1/sessions/:id',
        '/api/v1/tenants/:id',
        '/metrics',
        'unmatched',
      ].sort(),
    );
    expect(families.get('http_requests_total')?.samples.length).toBe(seriesBefore);
    expect(text).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
    // 2,001 under the prefix, 2,001 at the root.
    expect(
      sampleValue(families, 'http_requests_total', { route: 'unmatched', method: 'GET', status: '404' }),
    ).toBe(4002);
  });

  it('requires METRICS_TOKEN as a bearer token when it is set', async () => {
    const token = randomBytes(32).toString('base64url');
    const server = await start({ METRICS_TOKEN: token });
    const url = `${server.baseUrl}/metrics`;
    for (const headers of [
      {},
      { authorization: `Bearer ${token}x` },
      { authorization: `Bearer ${token.slice(0, -1)}` },
      { authorization: `Basic ${Buffer.from(`x:${token}`).toString('base64')}` },
      { authorization: token },
    ]) {
      const res = await fetch(url, { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(await res.text()).not.toContain('tenant_auth');
    }
    await scrape(server.baseUrl, { authorization: `Bearer ${token}` });
    await scrape(server.baseUrl, { authorization: `bearer ${token}` });
  });

  describe('in production', () => {
    const env = {
      NODE_ENV: 'production',
      CORS_ORIGINS: 'https://app.example.com',
      APP_URL: 'https://app.example.com',
      SMTP_URL: 'smtp://127.0.0.1:9',
      MAIL_FROM: 'Example <no-reply@example.com>',
      DATABASE_URL: '',
      BCRYPT_COST: '10',
      DATA_DIR: '',
    };
    beforeAll(async () => {
      env.DATA_DIR = await mkdtemp(join(tmpdir(), 'ta-metrics-production-'));
    });
    afterAll(() => rm(env.DATA_DIR, { recursive: true, force: true }));

    it('has no /metrics without METRICS_TOKEN (404), and serves it with the token', async () => {
      const plain = await start(env);
      expect((await fetch(`${plain.baseUrl}/metrics`)).status).toBe(404);
      expect((await getJson(`${plain.baseUrl}/livez`)).status).toBe(200);
      expect((await getJson(`${plain.baseUrl}/readyz`)).status).toBe(200);
      await plain.close();
      open.splice(open.indexOf(plain), 1);

      const token = randomBytes(32).toString('base64url');
      const guarded = await start({ ...env, METRICS_TOKEN: token });
      expect((await fetch(`${guarded.baseUrl}/metrics`)).status).toBe(401);
      await scrape(guarded.baseUrl, { authorization: `Bearer ${token}` });
    });
  });
});
