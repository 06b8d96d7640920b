import type { AuthEvent, OutboxCounts } from 'tenant-auth-core';
import { describe, expect, it } from 'vitest';
import { parsePrometheusText, sampleValue } from '../test/helpers/prometheus-text.js';
import { createServerMetrics } from './metrics.js';

/** An event of `type` with the fields the metrics read; the rest is irrelevant here. */
function event(type: string, extra: Record<string, unknown> = {}): AuthEvent {
  return { id: 'e', at: new Date(), type, ...extra } as unknown as AuthEvent;
}

async function scrape(metrics: ReturnType<typeof createServerMetrics>) {
  const { contentType, body } = await metrics.scrape();
  expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheusText(body);
}

describe('createServerMetrics', () => {
  it('counts logins, refreshes and rate-limit refusals by outcome from the auth events', async () => {
    const metrics = createServerMetrics({ defaultMetrics: false });
    const before = await scrape(metrics);
    // Every outcome is there from the start, at 0, so rate() and alerts work before the first event.
    for (const outcome of ['success', 'wrong_password', 'unknown_email', 'throttled'])
      expect(sampleValue(before, 'tenant_auth_logins_total', { outcome })).toBe(0);
    for (const outcome of ['rotated', 'reissued', 'replay', 'invalid'])
      expect(sampleValue(before, 'tenant_auth_refreshes_total', { outcome })).toBe(0);
    for (const budget of ['strict', 'general', 'network', 'account', 'mailbox'])
      expect(sampleValue(before, 'tenant_auth_rate_limited_total', { budget })).toBe(0);

    metrics.onEvent(event('login_succeeded'));
    metrics.onEvent(event('login_succeeded'));
    metrics.onEvent(event('login_failed', { reason: 'wrong_password' }));
    metrics.onEvent(event('login_failed', { reason: 'unknown_email' }));
    metrics.onEvent(event('refreshed'));
    metrics.onEvent(event('refresh_reissued'));
    metrics.onEvent(event('replay_detected'));
    metrics.onEvent(event('refresh_failed'));
    metrics.onEvent(event('refresh_failed'));
    metrics.onEvent(event('rate_limited', { budget: 'strict' }));
    metrics.onEvent(event('registered'));

    const after = await scrape(metrics);
    expect(sampleValue(after, 'tenant_auth_logins_total', { outcome: 'success' })).toBe(2);
    expect(sampleValue(after, 'tenant_auth_logins_total', { outcome: 'wrong_password' })).toBe(1);
    expect(sampleValue(after, 'tenant_auth_logins_total', { outcome: 'unknown_email' })).toBe(1);
    expect(sampleValue(after, 'tenant_auth_logins_total', { outcome: 'throttled' })).toBe(0);
    expect(sampleValue(after, 'tenant_auth_refreshes_total', { outcome: 'rotated' })).toBe(1);
    expect(sampleValue(after, 'tenant_auth_refreshes_total', { outcome: 'reissued' })).toBe(1);
    expect(sampleValue(after, 'tenant_auth_refreshes_total', { outcome: 'replay' })).toBe(1);
    expect(sampleValue(after, 'tenant_auth_refreshes_total', { outcome: 'invalid' })).toBe(2);
    expect(sampleValue(after, 'tenant_auth_rate_limited_total', { budget: 'strict' })).toBe(1);
    expect(sampleValue(after, 'tenant_auth_events_total', { type: 'registered' })).toBe(1);
    expect(sampleValue(after, 'tenant_auth_events_total', { type: 'refresh_failed' })).toBe(2);
  });

  it('counts no password_reset_requested: it happens for known addresses only (docs/http-api.md, "Account recovery and email verification")', async () => {
    const metrics = createServerMetrics({ defaultMetrics: false });
    metrics.onEvent(event('password_reset_requested'));
    metrics.onEvent(event('password_reset'));
    const after = await scrape(metrics);
    expect(sampleValue(after, 'tenant_auth_events_total', { type: 'password_reset' })).toBe(1);
    expect(
      sampleValue(after, 'tenant_auth_events_total', { type: 'password_reset_requested' }),
    ).toBeUndefined();
  });

  it('records password hashing, mail deliveries and responses', async () => {
    const metrics = createServerMetrics({ defaultMetrics: false });
    metrics.onPasswordHashing({ operation: 'verify', waitSeconds: 0.2, durationSeconds: 0.05 });
    metrics.onPasswordHashing({ operation: 'verify', waitSeconds: 3, durationSeconds: 0.05 });
    metrics.onMailDelivery({ template: 'password_reset', outcome: 'retry' });
    metrics.onMailDelivery({ template: 'password_reset', outcome: 'dead' });
    metrics.onResponse({
      route: '/api/v1/sessions/:id',
      method: 'DELETE',
      status: 404,
      durationSeconds: 0.003,
    });
    const families = await scrape(metrics);
    const wait = (le: string) =>
      sampleValue(families, 'tenant_auth_password_hashing_wait_seconds_bucket', { operation: 'verify', le });
    expect(wait('0.25')).toBe(1);
    expect(wait('5')).toBe(2);
    expect(
      sampleValue(families, 'tenant_auth_password_hashing_wait_seconds_sum', { operation: 'verify' }),
    ).toBe(3.2);
    expect(
      sampleValue(families, 'tenant_auth_mail_deliveries_total', {
        template: 'password_reset',
        outcome: 'dead',
      }),
    ).toBe(1);
    metrics.onWebhookDelivery({ outcome: 'succeeded', attempt: 1, lagSeconds: 0.2 });
    metrics.onWebhookDelivery({ outcome: 'failed', attempt: 2, lagSeconds: 30 });
    const afterScrape = await scrape(metrics);
    expect(sampleValue(afterScrape, 'tenant_auth_webhook_deliveries_total', { outcome: 'succeeded' })).toBe(
      1,
    );
    expect(sampleValue(afterScrape, 'tenant_auth_webhook_deliveries_total', { outcome: 'failed' })).toBe(1);
    // Only first attempts make the lag: a retry's includes its schedule.
    expect(sampleValue(afterScrape, 'tenant_auth_webhook_delivery_lag_seconds_count', {})).toBe(1);
    expect(sampleValue(afterScrape, 'tenant_auth_webhook_delivery_lag_seconds_bucket', { le: '0.25' })).toBe(
      1,
    );
    const labels = { route: '/api/v1/sessions/:id', method: 'DELETE', status: '404' };
    expect(sampleValue(families, 'http_requests_total', labels)).toBe(1);
    expect(sampleValue(families, 'http_request_duration_seconds_bucket', { ...labels, le: '0.005' })).toBe(1);
  });

  it('counts second-factor answers by operation and outcome, from the route template and status alone', async () => {
    const metrics = createServerMetrics({ defaultMetrics: false });
    const answer = (route: string, status: number) =>
      metrics.onResponse({ route, method: 'POST', status, durationSeconds: 0.01 });
    answer('/api/v1/auth/mfa/verify', 200);
    answer('/api/v1/auth/mfa/verify', 400);
    answer('/api/v1/auth/mfa/verify', 400);
    answer('/api/v1/auth/mfa/verify', 429);
    answer('/api/v1/auth/reauthenticate', 401);
    answer('/api/v1/auth/login', 401);
    const families = await scrape(metrics);
    const count = (operation: string, outcome: string) =>
      sampleValue(families, 'tenant_auth_mfa_verifications_total', { operation, outcome });
    expect(count('verify', 'success')).toBe(1);
    expect(count('verify', 'refused')).toBe(2);
    expect(count('verify', 'throttled')).toBe(1);
    expect(count('reauthenticate', 'invalid_token')).toBe(1);
    expect(count('confirm', 'success')).toBe(0);
    const samples = families.get('tenant_auth_mfa_verifications_total')?.samples ?? [];
    expect(samples).toHaveLength(12);
  });

  it('counts SCIM requests by operation and outcome, from the route template, method and status alone', async () => {
    const metrics = createServerMetrics({ defaultMetrics: false });
    const answer = (method: string, route: string, status: number) =>
      metrics.onResponse({ route, method, status, durationSeconds: 0.01 });
    answer('POST', '/scim/v2/Users', 201);
    answer('POST', '/scim/v2/Users', 409);
    answer('PATCH', '/scim/v2/Users/:id', 200);
    answer('GET', '/scim/v2/Users', 401);
    answer('PATCH', '/auth/scim/v2/Groups/:id', 429);
    answer('GET', '/scim/v2/Schemas', 200);
    answer('GET', '/scim/v2/ServiceProviderConfig', 200);
    answer('GET', '/api/v1/tenants/me/scim', 200);
    answer('GET', 'unmatched', 404);
    const families = await scrape(metrics);
    const count = (operation: string, outcome: string) =>
      sampleValue(families, 'tenant_auth_scim_requests_total', { operation, outcome });
    expect(count('create_user', 'success')).toBe(1);
    expect(count('create_user', 'conflict')).toBe(1);
    expect(count('patch_user', 'success')).toBe(1);
    expect(count('list_users', 'invalid_token')).toBe(1);
    expect(count('patch_group', 'throttled')).toBe(1);
    expect(count('discovery', 'success')).toBe(2);
    expect(count('delete_user', 'success')).toBe(0);
    const samples = families.get('tenant_auth_scim_requests_total')?.samples ?? [];
    expect(samples.reduce((sum, sample) => sum + sample.value, 0)).toBe(7);
    // 13 operations by 7 outcomes, every one present from the start; no label holds anything else.
    expect(samples).toHaveLength(13 * 7);
  });

  it('reads the hashing pool and the outbox at scrape time, once per scrape', async () => {
    const metrics = createServerMetrics({ defaultMetrics: false });
    let reads = 0;
    let counts: OutboxCounts = { pending: 3, dead: 1, oldestPendingAt: new Date(Date.now() - 90_000) };
    let failing = false;
    metrics.observe({
      stats: () => ({ hashing: { active: 2, queued: 7 } }),
      outboxCounts: async () => {
        reads += 1;
        if (failing) throw new Error('database down');
        return counts;
      },
    } as never);
    let families = await scrape(metrics);
    expect(reads).toBe(1);
    expect(sampleValue(families, 'tenant_auth_password_hashing_queued')).toBe(7);
    expect(sampleValue(families, 'tenant_auth_password_hashing_active')).toBe(2);
    expect(sampleValue(families, 'tenant_auth_outbox_pending_messages')).toBe(3);
    expect(sampleValue(families, 'tenant_auth_outbox_dead_messages')).toBe(1);
    const age = sampleValue(families, 'tenant_auth_outbox_oldest_pending_age_seconds') ?? 0;
    expect(age).toBeGreaterThanOrEqual(90);
    expect(age).toBeLessThan(100);

    counts = { pending: 0, dead: 0, oldestPendingAt: null };
    families = await scrape(metrics);
    expect(reads).toBe(2);
    expect(sampleValue(families, 'tenant_auth_outbox_oldest_pending_age_seconds')).toBe(0);

    // A database that does not answer: the scrape still succeeds, the outbox gauges say NaN.
    failing = true;
    families = await scrape(metrics);
    expect(sampleValue(families, 'tenant_auth_outbox_pending_messages')).toBeNaN();
    expect(sampleValue(families, 'tenant_auth_outbox_oldest_pending_age_seconds')).toBeNaN();
  });

  it('includes the process metrics: memory and event-loop lag', async () => {
    const families = await scrape(createServerMetrics());
    expect(families.get('process_resident_memory_bytes')?.type).toBe('gauge');
    expect(families.get('nodejs_eventloop_lag_seconds')?.type).toBe('gauge');
    expect(families.get('nodejs_heap_size_used_bytes')?.type).toBe('gauge');
  });
});
