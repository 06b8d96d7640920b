import Koa from 'koa';
import type { WebhookSender } from 'tenant-auth-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCheckedTenantAuthKoa } from './answer-check.js';
import {
  createTestAuth,
  json,
  listen,
  PASSWORD,
  postJson,
  quiet,
  type Running,
  type TestAuth,
  type TokenBody,
  uniqueEmail,
} from './helpers.js';

/*
 * The webhook routes (docs/http-api.md, "Webhooks"), each answered through the check of every answer
 * against its operation (answer-check.ts). Deliveries are posted by a fake sender here; the reference
 * server's tests post them to a receiver on a real port.
 */

let t: TestAuth;
let server: Running;
let base: string;
const posted: { url: string; headers: Record<string, string>; body: string }[] = [];

beforeEach(async () => {
  posted.length = 0;
  const sender: WebhookSender = {
    checkUrl: (url) => (url.protocol === 'https:' ? undefined : 'only https:// is allowed'),
    post: async (request) => {
      posted.push(request);
      return { status: 204 };
    },
  };
  t = createTestAuth({ webhooks: { sender } });
  const app = new Koa();
  app.use(createCheckedTenantAuthKoa({ auth: t.auth, logger: quiet }).middleware());
  server = await listen(app);
  base = `${server.url}/api/v1`;
});

afterEach(() => server.close());

function call(path: string, token: string, init: { method?: string; body?: unknown } = {}) {
  return fetch(`${base}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: {
      authorization: `Bearer ${token}`,
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
}

async function owner(): Promise<TokenBody> {
  return (await json(
    await postJson(`${base}/auth/register`, { email: uniqueEmail(), password: PASSWORD }),
  )) as TokenBody;
}

describe('webhook routes', () => {
  it('create (201, secret once), list, patch, test (202), deliveries, delete (204)', async () => {
    const ada = await owner();
    const created = await call('/tenants/me/webhooks', ada.accessToken, {
      body: { url: 'https://siem.example.com/hooks', events: ['login_failed'] },
    });
    expect(created.status).toBe(201);
    const { webhook, secret } = await json(created);
    expect(secret).toMatch(/^whsec_/);
    expect(webhook).toMatchObject({
      events: ['login_failed'],
      description: null,
      enabled: true,
      disabledReason: null,
    });

    const list = await call('/tenants/me/webhooks', ada.accessToken);
    expect(list.status).toBe(200);
    const listed = await json(list);
    expect(listed).toEqual({ webhooks: [webhook] });
    expect(JSON.stringify(listed)).not.toContain(secret);

    const patched = await call(`/tenants/me/webhooks/${webhook.id}`, ada.accessToken, {
      method: 'PATCH',
      body: { description: 'SIEM', enabled: true },
    });
    expect(patched.status).toBe(200);
    expect((await json(patched)).webhook).toMatchObject({ description: 'SIEM' });

    const tested = await call(`/tenants/me/webhooks/${webhook.id}/test`, ada.accessToken, { method: 'POST' });
    expect(tested.status).toBe(202);
    const { deliveryId } = await json(tested);
    await t.auth.deliverWebhooks();
    expect(posted.map((p) => p.url)).toEqual(['https://siem.example.com/hooks']);

    const deliveries = await call(`/tenants/me/webhooks/${webhook.id}/deliveries?limit=5`, ada.accessToken);
    expect(deliveries.status).toBe(200);
    expect(await json(deliveries)).toEqual({
      deliveries: [
        expect.objectContaining({
          id: deliveryId,
          type: 'webhook.test',
          status: 'succeeded',
          attempt: 1,
          responseStatus: 204,
        }),
      ],
      next: null,
    });

    const deleted = await call(`/tenants/me/webhooks/${webhook.id}`, ada.accessToken, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    const again = await call(`/tenants/me/webhooks/${webhook.id}`, ada.accessToken, { method: 'DELETE' });
    expect(again.status).toBe(404);
  });

  it("answers 400 invalid_url and invalid_event, and 404 for another tenant's endpoint", async () => {
    const ada = await owner();
    const eve = await owner();
    const bad = await call('/tenants/me/webhooks', ada.accessToken, {
      body: { url: 'http://hooks.example.com/', events: ['nope'] },
    });
    expect(bad.status).toBe(400);
    expect(
      (await json(bad)).errors.map((e: { field: string; code: string }) => `${e.field}:${e.code}`),
    ).toEqual(['url:invalid_url', 'events:invalid_event']);
    const { webhook } = await json(
      await call('/tenants/me/webhooks', ada.accessToken, { body: { url: 'https://x.example.com/' } }),
    );
    for (const [path, method] of [
      [`/tenants/me/webhooks/${webhook.id}`, 'PATCH'],
      [`/tenants/me/webhooks/${webhook.id}`, 'DELETE'],
      [`/tenants/me/webhooks/${webhook.id}/test`, 'POST'],
      [`/tenants/me/webhooks/${webhook.id}/deliveries`, 'GET'],
    ] as const) {
      const res = await call(path, eve.accessToken, { method, ...(method === 'PATCH' ? { body: {} } : {}) });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
  });
});
