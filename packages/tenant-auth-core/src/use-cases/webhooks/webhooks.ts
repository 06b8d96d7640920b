import { actingPrincipal, actingUser, assertUser } from '../../mechanisms/authorization.js';
import type { Services } from '../../mechanisms/services.js';
import type { ResolvedWebhooks } from '../../mechanisms/webhooks/webhook-options.js';
import {
  signWebhook,
  WEBHOOK_SECRET_PURPOSE,
  WEBHOOK_TEST_EVENT,
  webhookBinding,
} from '../../mechanisms/webhooks/webhook-payload.js';
import type {
  ClaimedWebhookDelivery,
  WebhookDeliveryRecord,
  WebhookEndpointPatch,
  WebhookEndpointRecord,
} from '../../ports/webhook-store.js';
import type { Principal } from '../../vocabulary/claims.js';
import {
  configurationError,
  type FieldError,
  fieldError,
  notFound,
  validationError,
} from '../../vocabulary/errors.js';
import { normalizeUuid, uuidv7 } from '../../vocabulary/ids.js';
import { AUDIT_EVENT_TYPES, type RequestContext } from '../../vocabulary/records.js';
import type {
  CreatedWebhook,
  CreateWebhookInput,
  UpdateWebhookInput,
  Webhook,
  WebhookDelivery,
  WebhookDeliveryListInput,
  WebhookDeliveryPage,
  WebhookDeliveryRun,
} from './webhook-types.js';

/**
 * The webhooks' part of `TenantAuth` (docs/http-api.md, "Webhooks"): a tenant's endpoints, their
 * deliveries, and the worker step that makes the attempts.
 *
 * @example
 * const webhooks: TenantAuthWebhooks = auth;
 * const { webhook, secret } = await webhooks.createWebhook(claims, { url: 'https://siem.example.com/hooks' });
 */
export interface TenantAuthWebhooks {
  /**
   * Creates an endpoint of the caller's tenant (admin, recent authentication): `{ webhook, secret }`,
   * the secret answered this once (stored sealed). Fails with `validation_failed` (`url`: `invalid_url`;
   * `events`: `invalid_event`; `description`), `forbidden`, `reauthentication_required`,
   * `feature_unavailable` (a store set without webhooks).
   */
  createWebhook(
    principal: Principal,
    input: CreateWebhookInput,
    context?: RequestContext,
  ): Promise<CreatedWebhook>;
  /** The tenant's endpoints, oldest first, at most 100 (admin; never a secret). */
  listWebhooks(principal: Principal): Promise<Webhook[]>;
  /**
   * Changes an endpoint (admin, recent authentication); `enabled: true` clears `disabledReason`, and
   * only events written after it are delivered; `enabled: false` stops its pending deliveries. Fails
   * with `not_found`, `validation_failed`.
   */
  updateWebhook(
    principal: Principal,
    webhookId: string,
    input: UpdateWebhookInput,
    context?: RequestContext,
  ): Promise<Webhook>;
  /** Deletes an endpoint and its deliveries (admin, recent authentication). Fails with `not_found`. */
  deleteWebhook(principal: Principal, webhookId: string, context?: RequestContext): Promise<void>;
  /** Queues a `webhook.test` event for an endpoint, whatever its filter (admin): the delivery's id. */
  testWebhook(principal: Principal, webhookId: string): Promise<{ deliveryId: string }>;
  /** The deliveries of an endpoint, newest first (admin). Fails with `not_found`, `validation_failed`. */
  listWebhookDeliveries(
    principal: Principal,
    webhookId: string,
    input?: WebhookDeliveryListInput,
  ): Promise<WebhookDeliveryPage>;
  /**
   * One step of the delivery worker: claims due deliveries (one instance each), posts them through the
   * `webhooks.sender` option, records each attempt, schedules retries, and disables an endpoint after 24
   * hours or 50 consecutive attempts without a success. Does nothing without a sender.
   */
  deliverWebhooks(options?: { limit?: number }): Promise<WebhookDeliveryRun>;
  /**
   * Runs {@link TenantAuthWebhooks.deliverWebhooks} on an unref'd timer (default every second, at once
   * again while full batches come back), so a delivery's first attempt follows its commit within seconds.
   * Several instances may run it on one database: each attempt is made by one of them. `stop()` resolves
   * once the pass in flight has finished. Does nothing without `webhooks.sender`.
   */
  startWebhookDelivery(options?: { intervalSeconds?: number; batchSize?: number }): { stop(): Promise<void> };
}

/** @internal Limits of the inputs and of the lists. */
export const WEBHOOK_LIMITS = {
  urlMaxLength: 2048,
  descriptionMaxLength: 200,
  maxEvents: 100,
  list: 100,
  deliveriesDefault: 50,
  deliveriesMax: 200,
  /** An endpoint is disabled after this many consecutive failed attempts... */
  maxConsecutiveFailures: 50,
  /** ...or after failing for this long without a success. */
  maxFailingMs: 24 * 3_600_000,
  /** How long a claimed delivery is held: longer than the 10 s deadline of a post. */
  leaseSeconds: 60,
} as const;

const DELIVERY_EVENT_TYPES: readonly string[] = AUDIT_EVENT_TYPES;

/** @internal An endpoint as the API answers it. */
export const webhookOf = (e: WebhookEndpointRecord): Webhook => ({
  id: e.id,
  url: e.url,
  events: [...e.events],
  description: e.description,
  enabled: e.enabled,
  createdAt: e.createdAt,
  disabledReason: e.disabledReason,
});

const deliveryOf = (d: WebhookDeliveryRecord): WebhookDelivery => ({
  id: d.id,
  eventId: d.eventId,
  type: d.type,
  attempt: d.attempt,
  status: d.status,
  responseStatus: d.responseStatus,
  createdAt: d.createdAt,
  lastAttemptAt: d.lastAttemptAt,
  nextAttemptAt: d.nextAttemptAt,
});

const invalidUrl = (message: string) => fieldError('url', 'invalid_url', message);

/** @internal Checks the fields of a create or an update; only those given (`url` is required to create). */
function parseFields(
  input: Partial<CreateWebhookInput & UpdateWebhookInput> | undefined,
  settings: ResolvedWebhooks,
  creating: boolean,
): { patch: WebhookEndpointPatch; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const patch: WebhookEndpointPatch = {};
  const rawUrl: unknown = input?.url;
  if (rawUrl === undefined || rawUrl === null) {
    if (creating) errors.push(fieldError('url', 'required', 'A URL is required.'));
  } else if (typeof rawUrl !== 'string') {
    errors.push(fieldError('url', 'invalid_type', 'The URL must be a string.'));
  } else {
    const problem = urlProblem(rawUrl, settings);
    if (problem) errors.push(invalidUrl(problem));
    else patch.url = new URL(rawUrl).href;
  }
  const rawEvents: unknown = input?.events;
  if (rawEvents !== undefined && rawEvents !== null) {
    if (
      !Array.isArray(rawEvents) ||
      rawEvents.length === 0 ||
      rawEvents.length > WEBHOOK_LIMITS.maxEvents ||
      !rawEvents.every((t) => typeof t === 'string' && (t === '*' || DELIVERY_EVENT_TYPES.includes(t)))
    ) {
      errors.push(
        fieldError('events', 'invalid_event', 'events must be audit event types, or ["*"] for all of them.'),
      );
    } else {
      const words = [...new Set(rawEvents as string[])];
      patch.events = words.includes('*') ? ['*'] : words;
    }
  } else if (creating) {
    patch.events = ['*'];
  }
  const rawDescription: unknown = input?.description;
  if (rawDescription === null || (creating && rawDescription === undefined)) {
    patch.description = null;
  } else if (rawDescription !== undefined) {
    if (typeof rawDescription !== 'string') {
      errors.push(fieldError('description', 'invalid_type', 'The description must be a string.'));
    } else if ([...rawDescription].length > WEBHOOK_LIMITS.descriptionMaxLength) {
      errors.push(fieldError('description', 'too_long', 'At most 200 characters.'));
    } else if (/\p{Cc}/u.test(rawDescription)) {
      errors.push(
        fieldError('description', 'invalid_value', 'The description cannot hold control characters.'),
      );
    } else {
      patch.description = rawDescription.trim() === '' ? null : rawDescription;
    }
  }
  const enabled: unknown = input?.enabled;
  if (!creating && enabled !== undefined) {
    if (typeof enabled !== 'boolean')
      errors.push(fieldError('enabled', 'invalid_type', 'enabled must be a boolean.'));
    else patch.enabled = enabled;
  }
  return { patch, errors };
}

/**
 * Why a URL cannot be an endpoint's, or `undefined`: not an absolute `http(s)` URL, credentials or a
 * fragment in it, or what the sender's policy refuses at once (`http://` outside loopback, an IP literal
 * in a forbidden range). Without a sender, `https://` only.
 */
function urlProblem(raw: string, settings: ResolvedWebhooks): string | undefined {
  if (raw.length > WEBHOOK_LIMITS.urlMaxLength) return 'The URL is too long (at most 2048 characters).';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'The URL must be an absolute https:// URL.';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'The URL must be an https:// URL.';
  if (url.username !== '' || url.password !== '') return 'The URL cannot hold credentials.';
  if (url.hash !== '' || raw.includes('#')) return 'The URL cannot have a fragment.';
  if (!settings.sender) return url.protocol === 'https:' ? undefined : 'The URL must be an https:// URL.';
  const refusal = settings.sender.checkUrl(url);
  return refusal === undefined ? undefined : `The URL is refused: ${refusal}.`;
}

function parsePage(input: WebhookDeliveryListInput | undefined): {
  limit: number;
  before: string | undefined;
} {
  const errors: FieldError[] = [];
  const raw = input?.limit ?? WEBHOOK_LIMITS.deliveriesDefault;
  const limit = typeof raw === 'string' && /^\d{1,4}$/.test(raw) ? Number(raw) : raw;
  if (
    typeof limit !== 'number' ||
    !Number.isInteger(limit) ||
    limit < 1 ||
    limit > WEBHOOK_LIMITS.deliveriesMax
  ) {
    errors.push(
      fieldError(
        'limit',
        'invalid_value',
        `limit must be an integer from 1 to ${WEBHOOK_LIMITS.deliveriesMax}.`,
      ),
    );
  }
  const before = input?.before === undefined ? undefined : normalizeUuid(String(input.before));
  if (before === null)
    errors.push(fieldError('before', 'invalid_value', 'before must be the next of a previous page.'));
  if (errors.length > 0) throw validationError(errors);
  return { limit: limit as number, before: before ?? undefined };
}

/** @internal The webhook use cases over the shared services. */
export function createWebhooks(services: Services, settings: ResolvedWebhooks): TenantAuthWebhooks {
  const { stores, clock, random, events, requireRecent, sealer, logger } = services;
  const newId = () => uuidv7(clock, random);

  const findOwn = async (principal: Principal, rawId: string) => {
    const id = normalizeUuid(rawId);
    const endpoint = id === null ? null : await stores.webhooks.findEndpoint(principal.tenantId, id);
    if (!endpoint) throw notFound();
    return endpoint;
  };

  /** Disables an endpoint that keeps failing, once, with its audit event (the server acts). */
  async function disable(tenantId: string, endpointId: string, reason: string): Promise<boolean> {
    return events.transaction(async (tx, record) => {
      if (!(await tx.webhooks.disableEndpoint(tenantId, endpointId, reason, clock.now()))) return false;
      const parties = {
        tenantId,
        actorId: null,
        subjectId: endpointId,
        sessionId: null,
        actorType: 'system' as const,
      };
      await record({ type: 'webhook_disabled', ...events.base(parties, {}) });
      return true;
    });
  }

  async function attempt(claimed: ClaimedWebhookDelivery): Promise<'succeeded' | 'failed' | 'disabled'> {
    const outcome = await attemptOnce(claimed);
    const lagSeconds = Math.max(0, clock.now().getTime() - claimed.delivery.createdAt.getTime()) / 1000;
    services.instrumentation.onWebhookDelivery({
      outcome,
      attempt: claimed.delivery.attempt + 1,
      lagSeconds,
    });
    return outcome;
  }

  async function attemptOnce(claimed: ClaimedWebhookDelivery): Promise<'succeeded' | 'failed' | 'disabled'> {
    const { delivery } = claimed;
    const sender = settings.sender as NonNullable<ResolvedWebhooks['sender']>;
    let status: number | null = null;
    try {
      const secret = sealer
        .open(
          claimed.sealedSecret,
          WEBHOOK_SECRET_PURPOSE,
          webhookBinding(delivery.tenantId, delivery.endpointId),
        )
        .toString('utf8');
      const timestamp = Math.floor(clock.now().getTime() / 1000);
      const headers = signWebhook(secret, { id: delivery.eventId, timestamp, body: delivery.payload });
      const result = await sender.post({ url: claimed.url, headers, body: delivery.payload });
      status = result.status;
      if (result.status === null) {
        logger.warn(
          { webhookId: delivery.endpointId, deliveryId: delivery.id, reason: result.error },
          'tenant-auth: a webhook delivery got no answer',
        );
      }
    } catch (err) {
      logger.error(
        { err, webhookId: delivery.endpointId, deliveryId: delivery.id },
        'tenant-auth: a webhook delivery failed',
      );
    }
    const now = clock.now();
    const succeeded = status !== null && status >= 200 && status < 300;
    const delay = settings.retryScheduleSeconds[delivery.attempt];
    const counts = await stores.webhooks.recordAttempt(delivery.id, {
      at: now,
      succeeded,
      responseStatus: status,
      nextAttemptAt: succeeded || delay === undefined ? null : new Date(now.getTime() + delay * 1000),
    });
    if (succeeded) return 'succeeded';
    if (counts) {
      const tooMany = counts.consecutiveFailures >= WEBHOOK_LIMITS.maxConsecutiveFailures;
      const tooLong =
        counts.failingSince !== null &&
        now.getTime() - counts.failingSince.getTime() >= WEBHOOK_LIMITS.maxFailingMs;
      if (tooMany || tooLong) {
        const reason = tooMany
          ? `${WEBHOOK_LIMITS.maxConsecutiveFailures} consecutive failed delivery attempts`
          : 'no successful delivery for 24 hours';
        if (await disable(counts.tenantId, counts.endpointId, reason)) return 'disabled';
      }
    }
    return 'failed';
  }

  async function deliverWebhooks(options: { limit?: number } = {}): Promise<WebhookDeliveryRun> {
    const run: WebhookDeliveryRun = { attempted: 0, succeeded: 0, failed: 0, disabled: 0 };
    if (!settings.sender) return run;
    const claimed = await stores.webhooks.claimDeliveries({
      now: clock.now(),
      limit: options.limit ?? 20,
      leaseSeconds: WEBHOOK_LIMITS.leaseSeconds,
    });
    const outcomes = await Promise.all(claimed.map(attempt));
    for (const outcome of outcomes) {
      run.attempted += 1;
      if (outcome === 'succeeded') run.succeeded += 1;
      else run.failed += 1;
      if (outcome === 'disabled') run.disabled += 1;
    }
    return run;
  }

  return {
    deliverWebhooks,
    startWebhookDelivery({ intervalSeconds = 1, batchSize = 50 } = {}) {
      if (!Number.isFinite(intervalSeconds) || intervalSeconds <= 0 || intervalSeconds > 3600) {
        throw configurationError(
          'startWebhookDelivery',
          'intervalSeconds',
          'must be a number of seconds from 0 to 3600',
        );
      }
      if (!Number.isSafeInteger(batchSize) || batchSize < 1 || batchSize > 1000) {
        throw configurationError('startWebhookDelivery', 'batchSize', 'must be an integer from 1 to 1000');
      }
      let stopped = false;
      let timer: NodeJS.Timeout | undefined;
      let inFlight: Promise<void> = Promise.resolve();
      const pass = async () => {
        try {
          // Again at once while full batches come back: a backlog is worked off, not polled.
          while (!stopped && (await deliverWebhooks({ limit: batchSize })).attempted === batchSize);
        } catch (err) {
          logger.warn({ err }, 'tenant-auth: a webhook delivery pass failed');
        }
      };
      const schedule = () => {
        if (stopped) return;
        timer = setTimeout(() => {
          inFlight = pass().finally(schedule);
        }, intervalSeconds * 1000);
        timer.unref();
      };
      schedule();
      return {
        async stop() {
          stopped = true;
          clearTimeout(timer);
          await inFlight;
        },
      };
    },
    async createWebhook(principal, input, context = {}) {
      assertUser(principal);
      await requireRecent(principal);
      await actingUser(stores, principal, clock.now(), 'admin');
      const { patch, errors } = parseFields(input, settings, true);
      if (errors.length > 0) throw validationError(errors);
      const secret = `whsec_${Buffer.from(random(32)).toString('base64')}`;
      return events.transaction(async (tx, record) => {
        const caller = await actingUser(tx, principal, clock.now(), 'admin');
        const id = newId();
        const endpoint: WebhookEndpointRecord = {
          id,
          tenantId: principal.tenantId,
          url: patch.url as string,
          events: patch.events as string[],
          description: patch.description ?? null,
          sealedSecret: sealer.seal(
            Buffer.from(secret, 'utf8'),
            WEBHOOK_SECRET_PURPOSE,
            webhookBinding(principal.tenantId, id),
          ),
          enabled: true,
          disabledReason: null,
          createdAt: clock.now(),
          consecutiveFailures: 0,
          failingSince: null,
        };
        const parties = {
          tenantId: principal.tenantId,
          actorId: caller.id,
          subjectId: id,
          sessionId: principal.sessionId,
        };
        // Recorded before the endpoint exists: it receives the events written after its creation only.
        await record({ type: 'webhook_created', ...events.base(parties, context) });
        await tx.webhooks.createEndpoint(endpoint);
        return { webhook: webhookOf(endpoint), secret };
      });
    },

    async listWebhooks(principal) {
      assertUser(principal);
      await actingPrincipal(stores, principal, clock.now(), 'admin');
      const list = await stores.webhooks.listEndpoints(principal.tenantId, { limit: WEBHOOK_LIMITS.list });
      return list.slice(0, WEBHOOK_LIMITS.list).map(webhookOf);
    },

    async updateWebhook(principal, webhookId, input, context = {}) {
      assertUser(principal);
      await requireRecent(principal);
      const caller = await actingUser(stores, principal, clock.now(), 'admin');
      const endpoint = await findOwn(principal, webhookId);
      const { patch, errors } = parseFields(input, settings, false);
      if (errors.length > 0) throw validationError(errors);
      return events.transaction(async (tx, record) => {
        const parties = {
          tenantId: principal.tenantId,
          actorId: caller.id,
          subjectId: endpoint.id,
          sessionId: principal.sessionId,
        };
        // Recorded before re-enabling: an endpoint enabled again receives the events written after it.
        await record({ type: 'webhook_updated', ...events.base(parties, context) });
        const changed = await tx.webhooks.updateEndpoint(principal.tenantId, endpoint.id, patch);
        if (!changed) throw notFound();
        return webhookOf(changed);
      });
    },

    async deleteWebhook(principal, webhookId, context = {}) {
      assertUser(principal);
      await requireRecent(principal);
      const caller = await actingUser(stores, principal, clock.now(), 'admin');
      const id = normalizeUuid(webhookId);
      if (id === null) throw notFound();
      await events.transaction(async (tx, record) => {
        if (!(await tx.webhooks.deleteEndpoint(principal.tenantId, id))) throw notFound();
        const parties = {
          tenantId: principal.tenantId,
          actorId: caller.id,
          subjectId: id,
          sessionId: principal.sessionId,
        };
        await record({ type: 'webhook_deleted', ...events.base(parties, context) });
      });
    },

    async testWebhook(principal, webhookId) {
      assertUser(principal);
      await actingPrincipal(stores, principal, clock.now(), 'admin');
      const endpoint = await findOwn(principal, webhookId);
      const now = clock.now();
      const delivery: WebhookDeliveryRecord = {
        id: newId(),
        tenantId: principal.tenantId,
        endpointId: endpoint.id,
        eventId: newId(),
        type: WEBHOOK_TEST_EVENT,
        payload: JSON.stringify({
          type: WEBHOOK_TEST_EVENT,
          timestamp: now.toISOString(),
          data: { webhookId: endpoint.id },
        }),
        attempt: 0,
        status: 'pending',
        responseStatus: null,
        createdAt: now,
        lastAttemptAt: null,
        nextAttemptAt: now,
      };
      await stores.webhooks.queueDelivery(delivery);
      return { deliveryId: delivery.id };
    },

    async listWebhookDeliveries(principal, webhookId, input) {
      assertUser(principal);
      await actingPrincipal(stores, principal, clock.now(), 'admin');
      const { limit, before } = parsePage(input);
      const endpoint = await findOwn(principal, webhookId);
      const rows = await stores.webhooks.listDeliveries(principal.tenantId, endpoint.id, {
        limit: limit + 1,
        before,
      });
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return { deliveries: page.map(deliveryOf), next: rows.length > limit && last ? last.id : null };
    },
  };
}
