import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { TokenResponseJson } from 'tenant-auth-koa/contract';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { api, PASSWORD, uniqueEmail } from './helpers/http.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from './helpers/postgres.js';
import { startTestServer, type TestServer } from './helpers/test-server.js';

/*
 * API 1.3, "Webhooks", over HTTP: a receiver on a real loopback port gets the tenant's events, signed as
 * Standard Webhooks (verified with the standardwebhooks package), retried with the same webhook-id after
 * a failure; an endpoint that keeps failing is disabled; on PostgreSQL, deliveries survive a restart and
 * two instances deliver each attempt once.
 */

interface Received {
  headers: Record<string, string>;
  body: string;
}

/** A webhook receiver on 127.0.0.1: keeps every request, answers `status()` (204 by default). */
async function startReceiver() {
  const received: Received[] = [];
  const state = { status: () => 204 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res.writeHead(state.status()).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return {
    url,
    received,
    state,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function owner(baseUrl: string) {
  const email = uniqueEmail('hooks');
  const r = await api<TokenResponseJson>(baseUrl, '/auth/register', { body: { email, password: PASSWORD } });
  expect(r.status).toBe(201);
  return { email, token: r.body.accessToken, refreshToken: r.body.refreshToken };
}

async function createWebhook(baseUrl: string, token: string, body: Record<string, unknown>) {
  const r = await api<{ webhook: { id: string }; secret: string }>(baseUrl, '/tenants/me/webhooks', {
    token,
    body,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body;
}

const login = (baseUrl: string, email: string) =>
  api(baseUrl, '/auth/login', { body: { email, password: PASSWORD } });

/** A refresh's `refreshed` event (written by the rotation statement itself) reaches a subscribed endpoint. */
async function expectRefreshedDelivered(baseUrl: string, receiver: Receiver) {
  const ada = await owner(baseUrl);
  const { secret } = await createWebhook(baseUrl, ada.token, {
    url: receiver.url,
    events: ['refreshed'],
  });
  const refreshed = await api(baseUrl, '/auth/refresh', {
    body: { refreshToken: ada.refreshToken },
  });
  expect(refreshed.status).toBe(200);
  await until(() => receiver.received.length === 1, 5000);
  const [got] = receiver.received as [Received];
  const payload = new Webhook(secret).verify(got.body, got.headers) as {
    type: string;
    data: { id: string };
  };
  expect(payload.type).toBe('refreshed');
  const events = await api<{ events: { id: string }[] }>(
    baseUrl,
    '/tenants/me/audit-events?type=refreshed&limit=1',
    { token: ada.token },
  );
  expect(payload.data).toEqual(events.body.events[0]);
  expect(got.headers['webhook-id']).toBe(payload.data.id);
}

const ENV = { OUTBOUND_ALLOW_LOOPBACK: 'true', WEBHOOK_RETRY_SCHEDULE_SECONDS: '1,1' };

describe('webhooks on PGlite, to a receiver on a real port', () => {
  let server: TestServer;
  let receiver: Receiver;
  beforeAll(async () => {
    server = await startTestServer(ENV);
  });
  afterAll(async () => {
    await server?.close();
  });
  afterEach(async () => {
    await receiver?.close();
  });

  it('delivers a subscribed event within 5 seconds, signed, with the event as the audit log shows it', async () => {
    receiver = await startReceiver();
    const ada = await owner(server.baseUrl);
    const { webhook, secret } = await createWebhook(server.baseUrl, ada.token, {
      url: receiver.url,
      events: ['login_succeeded'],
    });
    const started = Date.now();
    expect((await login(server.baseUrl, ada.email)).status).toBe(200);
    await until(() => receiver.received.length === 1, 5000);
    expect(Date.now() - started).toBeLessThan(5000);
    const [got] = receiver.received as [Received];
    const payload = new Webhook(secret).verify(got.body, got.headers) as {
      type: string;
      data: { id: string };
    };
    expect(got.headers['content-type']).toBe('application/json');
    expect(payload.type).toBe('login_succeeded');
    const events = await api<{ events: { id: string }[] }>(
      server.baseUrl,
      '/tenants/me/audit-events?type=login_succeeded&limit=1',
      {
        token: ada.token,
      },
    );
    expect(payload.data).toEqual(events.body.events[0]);
    expect(got.headers['webhook-id']).toBe(payload.data.id);
    const deliveries = await api<{ deliveries: { status: string; responseStatus: number }[] }>(
      server.baseUrl,
      `/tenants/me/webhooks/${webhook.id}/deliveries`,
      { token: ada.token },
    );
    expect(deliveries.body.deliveries).toEqual([
      expect.objectContaining({ status: 'succeeded', responseStatus: 204 }),
    ]);
  });

  it('delivers refreshed, which the session store appends in the rotation statement', async () => {
    receiver = await startReceiver();
    await expectRefreshedDelivered(server.baseUrl, receiver);
  });

  it('retries a failed delivery with the same body and webhook-id', async () => {
    receiver = await startReceiver();
    let calls = 0;
    receiver.state.status = () => (++calls === 1 ? 500 : 200);
    const ada = await owner(server.baseUrl);
    const { webhook, secret } = await createWebhook(server.baseUrl, ada.token, { url: receiver.url });
    expect(
      (
        await api(server.baseUrl, `/tenants/me/webhooks/${webhook.id}/test`, {
          method: 'POST',
          token: ada.token,
        })
      ).status,
    ).toBe(202);
    await until(() => receiver.received.length === 2);
    const [first, second] = receiver.received as [Received, Received];
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(second.body).toBe(first.body);
    expect(new Webhook(secret).verify(second.body, second.headers)).toMatchObject({ type: 'webhook.test' });
  });

  it('refuses a URL on a private address at once (400 invalid_url)', async () => {
    const ada = await owner(server.baseUrl);
    const r = await api<{ errors: { field: string; code: string }[] }>(
      server.baseUrl,
      '/tenants/me/webhooks',
      {
        token: ada.token,
        body: { url: 'https://10.0.0.5/hooks' },
      },
    );
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([expect.objectContaining({ field: 'url', code: 'invalid_url' })]);
  });

  it('disables an endpoint after 50 consecutive failed attempts', async () => {
    receiver = await startReceiver();
    receiver.state.status = () => 503;
    const ada = await owner(server.baseUrl);
    const { webhook } = await createWebhook(server.baseUrl, ada.token, {
      url: receiver.url,
      events: ['member_removed'],
    });
    for (let i = 0; i < 50; i++) {
      await api(server.baseUrl, `/tenants/me/webhooks/${webhook.id}/test`, {
        method: 'POST',
        token: ada.token,
      });
    }
    let listed: { enabled: boolean; disabledReason: string | null } | undefined;
    for (let i = 0; i < 200 && listed?.enabled !== false; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const r = await api<{ webhooks: (typeof listed)[] }>(server.baseUrl, '/tenants/me/webhooks', {
        token: ada.token,
      });
      listed = r.body.webhooks[0];
    }
    expect(listed).toMatchObject({ enabled: false, disabledReason: expect.stringContaining('50') });
    const audit = await api<{ events: { actorType: string; actorId: string | null }[] }>(
      server.baseUrl,
      '/tenants/me/audit-events?type=webhook_disabled',
      { token: ada.token },
    );
    expect(audit.body.events).toEqual([expect.objectContaining({ actorType: 'system', actorId: null })]);
  });
});

describe.skipIf(!TEST_DATABASE_URL)('webhooks on PostgreSQL: restart and two instances', () => {
  let db: TestDatabase;
  let receiver: Receiver;
  beforeAll(async () => {
    db = await createTestDatabase(TEST_DATABASE_URL as string);
  });
  afterAll(async () => {
    await receiver?.close();
    await db?.drop();
  });

  it('delivers refreshed, which the rotation statement writes and queues', async () => {
    const mine = await startReceiver();
    const server = await startTestServer({ ...ENV, DATABASE_URL: db.url });
    try {
      await expectRefreshedDelivered(server.baseUrl, mine);
    } finally {
      await server.close();
      await mine.close();
    }
  });

  it('a delivery queued before a restart is made after it', async () => {
    receiver = await startReceiver();
    const env = { ...ENV, DATABASE_URL: db.url };
    const first = await startTestServer(env);
    const ada = await owner(first.baseUrl);
    await createWebhook(first.baseUrl, ada.token, { url: receiver.url, events: ['login_succeeded'] });
    // The receiver is down: the first attempt fails, the retry is due after the restart.
    receiver.state.status = () => 500;
    expect((await login(first.baseUrl, ada.email)).status).toBe(200);
    await until(() => receiver.received.length === 1);
    await first.close();
    receiver.state.status = () => 204;
    const second = await startTestServer(env);
    try {
      await until(() => receiver.received.length === 2);
      expect(receiver.received[1]?.headers['webhook-id']).toBe(receiver.received[0]?.headers['webhook-id']);
    } finally {
      await second.close();
    }
  });

  it('two instances on one database make each attempt once', async () => {
    await receiver?.close();
    receiver = await startReceiver();
    const env = { ...ENV, DATABASE_URL: db.url };
    const [a, b] = await Promise.all([startTestServer(env), startTestServer(env)]);
    try {
      const ada = await owner(a.baseUrl);
      const { webhook } = await createWebhook(a.baseUrl, ada.token, {
        url: receiver.url,
        events: ['member_removed'],
      });
      const n = 40;
      for (let i = 0; i < n; i++) {
        const via = i % 2 === 0 ? a : b;
        await api(via.baseUrl, `/tenants/me/webhooks/${webhook.id}/test`, {
          method: 'POST',
          token: ada.token,
        });
      }
      await until(() => receiver.received.length >= n, 15_000);
      await new Promise((r) => setTimeout(r, 1500));
      const ids = receiver.received.map((r) => r.headers['webhook-id']);
      expect(ids).toHaveLength(n);
      expect(new Set(ids).size).toBe(n);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
