import type { AuditEventRecord } from '../vocabulary/records.js';
import type { SealedValuePage } from './sealed-value-page.js';

/**
 * A tenant's webhook endpoint as stored (docs/http-api.md, "Webhooks"): where its audit events go, which
 * ones, the secret they are signed with (sealed with the data key), and whether it is enabled.
 *
 * @example
 * const endpoint: WebhookEndpointRecord | null = await stores.webhooks.findEndpoint(tenantId, id);
 */
export interface WebhookEndpointRecord {
  /** UUIDv7. */
  id: string;
  tenantId: string;
  url: string;
  /** Audit event types it receives, or `["*"]` for all. */
  events: string[];
  description: string | null;
  /** The signing secret (`whsec_…`), sealed; never answered after creation. */
  sealedSecret: string;
  enabled: boolean;
  /** Why it was disabled (by the server after failed deliveries); `null` while enabled. */
  disabledReason: string | null;
  createdAt: Date;
  /** Consecutive failed attempts across its deliveries since its last success (or creation, or re-enabling). */
  consecutiveFailures: number;
  /** The first failed attempt since its last success; `null` when the last attempt succeeded (or none was made). */
  failingSince: Date | null;
}

/**
 * The fields of an endpoint an administrator changes; `enabled: true` also clears `disabledReason` and the
 * failure counts (the store does it).
 *
 * @example
 * const patch: WebhookEndpointPatch = { events: ['login_failed'] };
 */
export interface WebhookEndpointPatch {
  url?: string;
  events?: string[];
  description?: string | null;
  enabled?: boolean;
  sealedSecret?: string;
}

/**
 * The status of a delivery: still to be made, made, or given up.
 *
 * @example
 * const done = (status: WebhookDeliveryStatus) => status !== 'pending';
 */
export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed';

/**
 * One event to deliver to one endpoint, with its attempts so far.
 *
 * @example
 * const [latest]: WebhookDeliveryRecord[] = await stores.webhooks.listDeliveries(tenantId, endpointId, { limit: 1 });
 */
export interface WebhookDeliveryRecord {
  /** UUIDv7. */
  id: string;
  tenantId: string;
  endpointId: string;
  /** The event's id: the `webhook-id` of every attempt. */
  eventId: string;
  /** The event type (`webhook.test` for a test). */
  type: string;
  /** The JSON body posted, the same on every attempt. */
  payload: string;
  /** Attempts made so far. */
  attempt: number;
  status: WebhookDeliveryStatus;
  /** The status of the last answer; `null` when none came (no attempt yet, a timeout, a refused address). */
  responseStatus: number | null;
  createdAt: Date;
  lastAttemptAt: Date | null;
  /** When the next attempt is due; `null` once it succeeded or failed. */
  nextAttemptAt: Date | null;
}

/**
 * A delivery claimed for an attempt, with where to send it.
 *
 * @example
 * for (const { delivery, url, sealedSecret } of await stores.webhooks.claimDeliveries({ now, limit: 20, leaseSeconds: 30 })) { … }
 */
export interface ClaimedWebhookDelivery {
  delivery: WebhookDeliveryRecord;
  url: string;
  sealedSecret: string;
}

/**
 * The outcome of one attempt: what {@link WebhookStore.recordAttempt} writes.
 *
 * @example
 * const outcome: WebhookAttemptOutcome = { at: now, succeeded: false, responseStatus: 500, nextAttemptAt: later };
 */
export interface WebhookAttemptOutcome {
  at: Date;
  succeeded: boolean;
  responseStatus: number | null;
  /** When to try again after a failure; `null`: give up (the delivery is `failed`). Ignored on success. */
  nextAttemptAt: Date | null;
}

/**
 * Webhook endpoints of tenants and their deliveries. Every method that takes a tenant is scoped to it:
 * another tenant's endpoints and deliveries are never returned or changed. Optional on the bundle (new
 * in 1.3): without it, the webhook routes answer `feature_unavailable` and no event is queued.
 *
 * @example
 * await stores.transaction(async (tx) => {
 *   await tx.auditEvents.append(event);
 *   await tx.webhooks?.queueDeliveries(event, payloadOf(event), now);
 * });
 */
export interface WebhookStore {
  createEndpoint(endpoint: WebhookEndpointRecord): Promise<void>;
  findEndpoint(tenantId: string, id: string): Promise<WebhookEndpointRecord | null>;
  /** The tenant's endpoints, oldest first (ties by id), at most `limit`. */
  listEndpoints(tenantId: string, options: { limit: number }): Promise<WebhookEndpointRecord[]>;
  /**
   * Changes an endpoint of the tenant. `enabled: true` also sets `disabledReason` null and resets the
   * failure counts. Returns the endpoint as changed; `null` when the tenant has no such endpoint.
   */
  updateEndpoint(
    tenantId: string,
    id: string,
    patch: WebhookEndpointPatch,
  ): Promise<WebhookEndpointRecord | null>;
  /**
   * Disables an enabled endpoint with a reason, and stops its pending deliveries (they become `failed`,
   * their next attempt null). Compare-and-set: returns whether this call disabled it.
   */
  disableEndpoint(tenantId: string, id: string, reason: string, at: Date): Promise<boolean>;
  /** Deletes an endpoint of the tenant with its deliveries. Returns whether it existed. */
  deleteEndpoint(tenantId: string, id: string): Promise<boolean>;
  /**
   * Queues `payload` for every enabled endpoint of the event's tenant that subscribes to its type (or to
   * `*`), as a pending delivery due at `event.at` with the event's id (`id` of each delivery: `newId()`).
   * Called in the transaction that appends the event. Returns how many it queued.
   */
  queueDeliveries(event: AuditEventRecord, payload: string, newId: () => string): Promise<number>;
  /** Queues one delivery for one endpoint whatever its filter (a test). */
  queueDelivery(delivery: WebhookDeliveryRecord): Promise<void>;
  /**
   * Claims at most `limit` pending deliveries that are due (`nextAttemptAt <= now`), of enabled
   * endpoints, and not claimed by another (`lockedUntil` null or past), oldest due first: locks each
   * until `now` plus the lease. Two concurrent claims never return the same delivery (PostgreSQL:
   * `FOR UPDATE SKIP LOCKED`).
   */
  claimDeliveries(options: {
    now: Date;
    limit: number;
    leaseSeconds: number;
  }): Promise<ClaimedWebhookDelivery[]>;
  /**
   * Records an attempt of a pending delivery: counts it, sets its status (`succeeded`; `failed` when it
   * failed and `nextAttemptAt` is null; else still `pending`, due then), releases it; and the endpoint's
   * failure counts (reset on success; else one more, `failingSince` kept or set to `at`). Returns the
   * endpoint's counts after it; `null` when the delivery is not pending any more (nothing changed).
   */
  recordAttempt(
    id: string,
    outcome: WebhookAttemptOutcome,
  ): Promise<{
    tenantId: string;
    endpointId: string;
    consecutiveFailures: number;
    failingSince: Date | null;
  } | null>;
  /** The deliveries of an endpoint of the tenant, newest first (by id), older than `before` when given. */
  listDeliveries(
    tenantId: string,
    endpointId: string,
    options: { limit: number; before?: string | undefined },
  ): Promise<WebhookDeliveryRecord[]>;
  /** Pending deliveries, and when the oldest was created, for metrics. */
  countPending(): Promise<{ pending: number; oldestPendingAt: Date | null }>;
  /**
   * Deletes at most `batchSize` deliveries created before `before` that are not pending, across tenants.
   * Returns how many; the caller repeats while a full batch comes back.
   */
  deleteDeliveriesOlderThan(options: { before: Date; batchSize: number }): Promise<number>;
  /** The endpoints' sealed secrets by endpoint id (the page's key), for the re-seal after a data-key rotation. */
  listSealedSecrets(page: SealedValuePage): Promise<{ tenantId: string; id: string; sealedSecret: string }[]>;
  /** Replaces an endpoint's sealed secret only if it is still `expected` (compare-and-set). */
  resealSecret(tenantId: string, id: string, expected: string, next: string): Promise<boolean>;
}
