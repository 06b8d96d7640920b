import { Webhook as StandardWebhook } from 'standardwebhooks';
import { describe, expect, it, vi } from 'vitest';
import type { WebhookDeliveryOutcome } from '../../ports/instrumentation.js';
import type { WebhookPostResult, WebhookSender } from '../../ports/webhook-sender.js';
import { code, fieldCodes, join, owner, PASSWORD, setup, verify } from '../../testing/test-helpers.js';

/** Verifies a post with the standardwebhooks package, at the time `now` (its tolerance is 5 minutes). */
function verifyPost(secret: string, post: Posted | undefined, now: Date): unknown {
  if (!post) throw new Error('nothing posted');
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(now);
  try {
    return new StandardWebhook(secret).verify(post.body, post.headers);
  } finally {
    vi.useRealTimers();
  }
}

interface Posted {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** A sender that keeps what it posts and answers what `answer` says (200 by default). */
function fakeSender() {
  const posted: Posted[] = [];
  const state: { answer: (p: Posted) => WebhookPostResult } = { answer: () => ({ status: 200 }) };
  const sender: WebhookSender = {
    checkUrl: (url) =>
      url.hostname === '10.0.0.5'
        ? '10.0.0.5 is a private address'
        : url.protocol === 'http:' && url.hostname !== '127.0.0.1'
          ? 'only https:// is allowed'
          : undefined,
    post: async (request) => {
      posted.push(request);
      return state.answer(request);
    },
  };
  return { sender, posted, state };
}

async function withWebhook(options: { retryScheduleSeconds?: number[] } = {}) {
  const fake = fakeSender();
  const outcomes: WebhookDeliveryOutcome[] = [];
  const t = setup({
    webhooks: { sender: fake.sender, ...options },
    instrumentation: { onWebhookDelivery: (o) => outcomes.push(o) },
  });
  const ada = await owner(t.auth, 'ada@example.com');
  await verify(t, 'ada@example.com');
  return { t, ada, outcomes, ...fake };
}

describe('webhooks: endpoints', () => {
  it('creates an endpoint whose secret is answered once, lists it without it, and audits it', async () => {
    const { t, ada } = await withWebhook();
    const created = await t.auth.createWebhook(ada.claims, { url: 'https://siem.example.com/hooks' });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(created.secret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);
    expect(created.webhook).toEqual({
      id: expect.any(String),
      url: 'https://siem.example.com/hooks',
      events: ['*'],
      description: null,
      enabled: true,
      createdAt: t.clock.now(),
      disabledReason: null,
    });
    const list = await t.auth.listWebhooks(ada.claims);
    expect(list).toEqual([created.webhook]);
    expect(JSON.stringify(list)).not.toContain(created.secret.slice(6));
    const stored = await t.stores.webhooks.findEndpoint(ada.claims.tenantId, created.webhook.id);
    expect(stored?.sealedSecret).not.toContain(created.secret.slice(6));
    const { events } = await t.auth.listAuditEvents(ada.claims, { type: 'webhook_created' });
    expect(events.map((e) => [e.actorId, e.subjectId])).toEqual([[ada.claims.userId, created.webhook.id]]);
  });

  it('refuses bad URLs with invalid_url and unknown event types with invalid_event', async () => {
    const { t, ada } = await withWebhook();
    const fields = (input: object) => fieldCodes(t.auth.createWebhook(ada.claims, input as never));
    expect(await fields({ url: 'ftp://x.example.com/' })).toEqual(['url:invalid_url']);
    expect(await fields({ url: 'https://user:pw@x.example.com/' })).toEqual(['url:invalid_url']);
    expect(await fields({ url: 'https://x.example.com/#frag' })).toEqual(['url:invalid_url']);
    expect(await fields({ url: 'https://10.0.0.5/' })).toEqual(['url:invalid_url']);
    expect(await fields({ url: 'http://hooks.example.com/' })).toEqual(['url:invalid_url']);
    expect(await fields({ url: 'not a url' })).toEqual(['url:invalid_url']);
    expect(await fields({ url: 'https://x.example.com/', events: ['nope'] })).toEqual([
      'events:invalid_event',
    ]);
    expect(await fields({ url: 'https://x.example.com/', events: [] })).toEqual(['events:invalid_event']);
    expect(await fields({})).toEqual(['url:required']);
    expect(await t.auth.listWebhooks(ada.claims)).toEqual([]);
  });

  it('is for admins only; create, update and delete need a recent authentication', async () => {
    const { t, ada } = await withWebhook();
    const bob = await join(t, ada.claims, 'bob@example.com', 'member');
    expect(await code(t.auth.listWebhooks(bob.claims))).toBe('forbidden');
    expect(await code(t.auth.createWebhook(bob.claims, { url: 'https://x.example.com/' }))).toBe('forbidden');
    t.clock.advance(3_600_000);
    const fresh = await t.auth.verifyAccessToken((await t.auth.refresh(ada.refreshToken)).accessToken);
    expect(await code(t.auth.createWebhook(fresh, { url: 'https://x.example.com/' }))).toBe(
      'reauthentication_required',
    );
  });

  it('updates, re-enables and deletes; another tenant sees not_found', async () => {
    const { t, ada } = await withWebhook();
    const eve = await owner(t.auth, 'eve@example.org');
    t.clock.advance(10);
    const { webhook } = await t.auth.createWebhook(ada.claims, { url: 'https://x.example.com/' });
    t.clock.advance(10);
    const changed = await t.auth.updateWebhook(ada.claims, webhook.id, {
      events: ['login_failed', 'login_failed'],
      description: 'SIEM',
    });
    expect(changed).toMatchObject({ events: ['login_failed'], description: 'SIEM', enabled: true });
    expect(await code(t.auth.updateWebhook(eve.claims, webhook.id, { enabled: false }))).toBe('not_found');
    expect(await code(t.auth.deleteWebhook(eve.claims, webhook.id))).toBe('not_found');
    expect(await code(t.auth.testWebhook(eve.claims, webhook.id))).toBe('not_found');
    expect(await code(t.auth.listWebhookDeliveries(eve.claims, webhook.id))).toBe('not_found');
    t.clock.advance(10);
    await t.auth.deleteWebhook(ada.claims, webhook.id);
    expect(await t.auth.listWebhooks(ada.claims)).toEqual([]);
    expect(await code(t.auth.deleteWebhook(ada.claims, webhook.id))).toBe('not_found');
    const types = (await t.auth.listAuditEvents(ada.claims)).events.map((e) => e.type);
    expect(types.slice(0, 3)).toEqual(['webhook_deleted', 'webhook_updated', 'webhook_created']);
  });
});

describe('webhooks: delivery', () => {
  it('delivers each subscribed event, signed as Standard Webhooks (checked with the standardwebhooks package)', async () => {
    const { t, ada, posted } = await withWebhook();
    const { webhook, secret } = await t.auth.createWebhook(ada.claims, { url: 'https://siem.example.com/h' });
    t.clock.advance(1000);
    await t.auth.login({ email: 'ada@example.com', password: PASSWORD });
    const run = await t.auth.deliverWebhooks();
    expect(run).toEqual({ attempted: 1, succeeded: 1, failed: 0, disabled: 0 });
    const [post] = posted;
    if (!post) throw new Error('nothing posted');
    expect(post.url).toBe('https://siem.example.com/h');
    const verified = verifyPost(secret, post, t.clock.now()) as {
      type: string;
      timestamp: string;
      data: Record<string, unknown>;
    };
    const [event] = (await t.auth.listAuditEvents(ada.claims, { type: 'login_succeeded' })).events;
    expect(verified).toEqual({
      type: 'login_succeeded',
      timestamp: event?.at.toISOString(),
      data: JSON.parse(JSON.stringify({ ...event, tenantId: undefined })),
    });
    expect(verified.data).not.toHaveProperty('tenantId');
    expect(post.headers['webhook-id']).toBe(event?.id);
    expect(post.headers['content-type']).toBe('application/json');
    // Its own creation is not delivered to it.
    const deliveries = await t.auth.listWebhookDeliveries(ada.claims, webhook.id);
    expect(deliveries.deliveries.map((d) => [d.type, d.status, d.attempt, d.responseStatus])).toEqual([
      ['login_succeeded', 'succeeded', 1, 200],
    ]);
    expect(await t.auth.deliverWebhooks()).toEqual({ attempted: 0, succeeded: 0, failed: 0, disabled: 0 });
  });

  it('delivers refreshed and reauthenticated, which the session store appends itself', async () => {
    const { t, ada, posted } = await withWebhook();
    await t.auth.createWebhook(ada.claims, {
      url: 'https://siem.example.com/h',
      events: ['refreshed', 'reauthenticated'],
    });
    t.clock.advance(1000);
    const refreshed = await t.auth.refresh(ada.refreshToken);
    const claims = await t.auth.verifyAccessToken(refreshed.accessToken);
    t.clock.advance(1000);
    await t.auth.reauthenticate(claims, { password: PASSWORD });
    expect(await t.auth.deliverWebhooks()).toMatchObject({ attempted: 2, succeeded: 2 });
    const events = (await t.auth.listAuditEvents(ada.claims, {})).events.filter(
      (e) => e.type === 'refreshed' || e.type === 'reauthenticated',
    );
    expect(events.map((e) => e.type).sort()).toEqual(['reauthenticated', 'refreshed']);
    const sent = posted.map((p) => [p.headers['webhook-id'], (JSON.parse(p.body) as { type: string }).type]);
    expect(sent.sort()).toEqual(events.map((e) => [e.id, e.type]).sort());
  });

  it('queues nothing for an event it does not subscribe to, or of another tenant', async () => {
    const { t, ada, posted } = await withWebhook();
    await owner(t.auth, 'eve@example.org');
    await t.auth.createWebhook(ada.claims, { url: 'https://x.example.com/', events: ['member_removed'] });
    await t.auth.login({ email: 'ada@example.com', password: PASSWORD });
    await t.auth.login({ email: 'eve@example.org', password: PASSWORD });
    expect(await t.auth.deliverWebhooks()).toMatchObject({ attempted: 0 });
    expect(posted).toEqual([]);
  });

  it('retries on the schedule with the same body and webhook-id, then fails the delivery', async () => {
    const { t, ada, posted, state, outcomes } = await withWebhook({ retryScheduleSeconds: [5, 30] });
    const { webhook } = await t.auth.createWebhook(ada.claims, { url: 'https://x.example.com/' });
    state.answer = () => ({ status: 500 });
    await t.auth.login({ email: 'ada@example.com', password: PASSWORD });
    expect(await t.auth.deliverWebhooks()).toMatchObject({ attempted: 1, failed: 1 });
    t.clock.advance(4000);
    expect(await t.auth.deliverWebhooks()).toMatchObject({ attempted: 0 });
    t.clock.advance(1000);
    state.answer = () => ({ status: null, error: 'timeout' });
    expect(await t.auth.deliverWebhooks()).toMatchObject({ attempted: 1 });
    t.clock.advance(30_000);
    state.answer = () => ({ status: 302 });
    expect(await t.auth.deliverWebhooks()).toMatchObject({ attempted: 1 });
    t.clock.advance(3_600_000);
    expect(await t.auth.deliverWebhooks()).toMatchObject({ attempted: 0 });
    expect(posted).toHaveLength(3);
    expect(new Set(posted.map((p) => p.body)).size).toBe(1);
    expect(new Set(posted.map((p) => p.headers['webhook-id'])).size).toBe(1);
    expect(posted.map((p) => p.headers['webhook-timestamp'])).toHaveLength(3);
    const [delivery] = (await t.auth.listWebhookDeliveries(ada.claims, webhook.id)).deliveries;
    expect(delivery).toMatchObject({
      status: 'failed',
      attempt: 3,
      responseStatus: 302,
      nextAttemptAt: null,
    });
  });

  it('disables an endpoint after 50 consecutive failed attempts, audited as the system', async () => {
    const { t, ada, state } = await withWebhook({ retryScheduleSeconds: [] });
    const { webhook } = await t.auth.createWebhook(ada.claims, { url: 'https://x.example.com/' });
    state.answer = () => ({ status: 503 });
    for (let i = 0; i < 49; i += 1) await t.auth.testWebhook(ada.claims, webhook.id);
    expect(await t.auth.deliverWebhooks({ limit: 100 })).toMatchObject({ attempted: 49, disabled: 0 });
    await t.auth.testWebhook(ada.claims, webhook.id);
    await t.auth.testWebhook(ada.claims, webhook.id);
    expect(await t.auth.deliverWebhooks({ limit: 1 })).toMatchObject({ attempted: 1, disabled: 1 });
    const [listed] = await t.auth.listWebhooks(ada.claims);
    expect(listed).toMatchObject({ enabled: false, disabledReason: expect.stringContaining('50') });
    // Its pending delivery stopped, and nothing new is queued while disabled.
    await t.auth.login({ email: 'ada@example.com', password: PASSWORD });
    expect(await t.auth.deliverWebhooks()).toMatchObject({ attempted: 0 });
    const { deliveries } = await t.auth.listWebhookDeliveries(ada.claims, webhook.id, { limit: 1 });
    expect(deliveries[0]?.status).toBe('failed');
    const [disabled] = (await t.auth.listAuditEvents(ada.claims, { type: 'webhook_disabled' })).events;
    expect(disabled).toMatchObject({ actorType: 'system', actorId: null, subjectId: webhook.id });
    // Re-enabled: only events written after it are delivered.
    state.answer = () => ({ status: 204 });
    const enabled = await t.auth.updateWebhook(ada.claims, webhook.id, { enabled: true });
    expect(enabled).toMatchObject({ enabled: true, disabledReason: null });
    expect(await t.auth.deliverWebhooks()).toMatchObject({ attempted: 0 });
  });

  it('disables an endpoint that has not succeeded for 24 hours', async () => {
    const { t, ada, state } = await withWebhook({ retryScheduleSeconds: [86_400] });
    const { webhook } = await t.auth.createWebhook(ada.claims, { url: 'https://x.example.com/' });
    state.answer = () => ({ status: 500 });
    await t.auth.testWebhook(ada.claims, webhook.id);
    expect(await t.auth.deliverWebhooks()).toMatchObject({ disabled: 0 });
    t.clock.advance(86_400_000);
    expect(await t.auth.deliverWebhooks()).toMatchObject({ attempted: 1, disabled: 1 });
    expect((await t.auth.listWebhooks(ada.claims))[0]).toMatchObject({
      enabled: false,
      disabledReason: 'no successful delivery for 24 hours',
    });
  });

  it('delivers a test event whatever the filter, with data {webhookId}', async () => {
    const { t, ada, posted } = await withWebhook();
    const { webhook, secret } = await t.auth.createWebhook(ada.claims, {
      url: 'https://x.example.com/',
      events: ['member_removed'],
    });
    const { deliveryId } = await t.auth.testWebhook(ada.claims, webhook.id);
    await t.auth.deliverWebhooks();
    const body = verifyPost(secret, posted[0], t.clock.now());
    expect(body).toMatchObject({ type: 'webhook.test', data: { webhookId: webhook.id } });
    const page = await t.auth.listWebhookDeliveries(ada.claims, webhook.id);
    expect(page).toEqual({
      deliveries: [expect.objectContaining({ id: deliveryId, type: 'webhook.test', status: 'succeeded' })],
      next: null,
    });
  });

  it('pages deliveries newest first', async () => {
    const { t, ada } = await withWebhook();
    const { webhook } = await t.auth.createWebhook(ada.claims, { url: 'https://x.example.com/' });
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      t.clock.advance(10);
      ids.push((await t.auth.testWebhook(ada.claims, webhook.id)).deliveryId);
    }
    const first = await t.auth.listWebhookDeliveries(ada.claims, webhook.id, { limit: '2' });
    expect(first.deliveries.map((d) => d.id)).toEqual([ids[2], ids[1]]);
    const second = await t.auth.listWebhookDeliveries(ada.claims, webhook.id, {
      limit: 2,
      before: first.next ?? '',
    });
    expect(second).toEqual({ deliveries: [expect.objectContaining({ id: ids[0] })], next: null });
    expect(await fieldCodes(t.auth.listWebhookDeliveries(ada.claims, webhook.id, { limit: 0 }))).toEqual([
      'limit:invalid_value',
    ]);
  });

  it('cleans up finished deliveries with the audit retention, never pending ones', async () => {
    const fake = fakeSender();
    const t = setup({ webhooks: { sender: fake.sender }, auditRetentionSeconds: 3600 });
    const ada = await owner(t.auth, 'ada@example.com');
    await verify(t, 'ada@example.com');
    const { webhook } = await t.auth.createWebhook(ada.claims, { url: 'https://x.example.com/' });
    await t.auth.testWebhook(ada.claims, webhook.id);
    await t.auth.deliverWebhooks();
    t.clock.advance(1000);
    fake.state.answer = () => ({ status: 500 });
    await t.auth.testWebhook(ada.claims, webhook.id);
    t.clock.advance(3_600_000);
    expect(await t.auth.cleanup()).toMatchObject({ webhookDeliveries: 1 });
    expect(await t.stores.webhooks.countPending()).toMatchObject({ pending: 1 });
  });

  it('startWebhookDelivery delivers on its timer until stopped', async () => {
    const { t, ada, posted } = await withWebhook();
    const { webhook } = await t.auth.createWebhook(ada.claims, { url: 'https://x.example.com/' });
    const worker = t.auth.startWebhookDelivery({ intervalSeconds: 0.01, batchSize: 2 });
    for (let i = 0; i < 5; i += 1) await t.auth.testWebhook(ada.claims, webhook.id);
    for (let i = 0; i < 200 && posted.length < 5; i += 1) await new Promise((r) => setTimeout(r, 10));
    await worker.stop();
    expect(posted).toHaveLength(5);
    await t.auth.testWebhook(ada.claims, webhook.id);
    await new Promise((r) => setTimeout(r, 50));
    expect(posted).toHaveLength(5);
  });
});
