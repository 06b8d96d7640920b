import type { WebhookDeliveryRecord, WebhookEndpointRecord, WebhookStore } from '../ports/webhook-store.js';
import type { AuditEventRecord } from '../vocabulary/records.js';
import type { MemoryState, MemoryWebhookDelivery } from './memory-database.js';
import { checkBatchSize, copy, copyOrNull, pageOf, type Run } from './memory-run.js';

function endpointOf(s: MemoryState, tenantId: string, id: string): WebhookEndpointRecord | undefined {
  const endpoint = s.webhookEndpoints.get(id);
  return endpoint?.tenantId === tenantId ? endpoint : undefined;
}

/** Stops the pending deliveries of an endpoint (disabled: they are not made any more). */
function stopPending(s: MemoryState, endpointId: string): void {
  for (const d of [...s.webhookDeliveries.values()]) {
    if (d.endpointId === endpointId && d.status === 'pending') {
      s.webhookDeliveries.set(d.id, { ...d, status: 'failed', nextAttemptAt: null, lockedUntil: null });
    }
  }
}

const subscribes = (endpoint: WebhookEndpointRecord, type: string) =>
  endpoint.events.includes('*') || endpoint.events.includes(type);

const deliveryOf = ({ lockedUntil: _, ...d }: MemoryWebhookDelivery): WebhookDeliveryRecord => copy(d);

/**
 * @internal Queues `payload` for every enabled endpoint of the event's tenant that subscribes to its type,
 * in the state `s` (the caller's atomic step). Returns how many it queued.
 */
export function queueIn(
  s: MemoryState,
  event: AuditEventRecord,
  payload: string,
  newId: (endpointId: string) => string,
): number {
  let queued = 0;
  for (const endpoint of s.webhookEndpoints.values()) {
    if (endpoint.tenantId !== event.tenantId || !endpoint.enabled || !subscribes(endpoint, event.type)) {
      continue;
    }
    const id = newId(endpoint.id);
    s.webhookDeliveries.set(id, {
      id,
      tenantId: event.tenantId,
      endpointId: endpoint.id,
      eventId: event.id,
      type: event.type,
      payload,
      attempt: 0,
      status: 'pending',
      responseStatus: null,
      createdAt: new Date(event.at),
      lastAttemptAt: null,
      nextAttemptAt: new Date(event.at),
      lockedUntil: null,
    });
    queued += 1;
  }
  return queued;
}

/** @internal The webhook store on the memory database: each verb runs alone, so each is atomic. */
export function memoryWebhookStore(run: Run): WebhookStore {
  return {
    createEndpoint: (endpoint) =>
      run((s) => {
        if (!s.tenants.has(endpoint.tenantId)) throw new TypeError('unknown tenant');
        if (s.webhookEndpoints.has(endpoint.id)) throw new TypeError('duplicate webhook id');
        s.webhookEndpoints.set(endpoint.id, copy(endpoint));
      }),
    findEndpoint: (tenantId, id) => run((s) => copyOrNull(endpointOf(s, tenantId, id))),
    listEndpoints: (tenantId, { limit }) =>
      run((s) => {
        checkBatchSize(limit);
        return [...s.webhookEndpoints.values()]
          .filter((e) => e.tenantId === tenantId)
          .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1))
          .slice(0, limit)
          .map(copy);
      }),
    updateEndpoint: (tenantId, id, patch) =>
      run((s) => {
        const endpoint = endpointOf(s, tenantId, id);
        if (!endpoint) return null;
        const next: WebhookEndpointRecord = {
          ...endpoint,
          ...(patch.url === undefined ? {} : { url: patch.url }),
          ...(patch.events === undefined ? {} : { events: [...patch.events] }),
          ...(patch.description === undefined ? {} : { description: patch.description }),
          ...(patch.sealedSecret === undefined ? {} : { sealedSecret: patch.sealedSecret }),
          ...(patch.enabled === undefined ? {} : { enabled: patch.enabled }),
        };
        if (patch.enabled === true) {
          next.disabledReason = null;
          next.consecutiveFailures = 0;
          next.failingSince = null;
        }
        if (patch.enabled === false) stopPending(s, id);
        s.webhookEndpoints.set(id, next);
        return copy(next);
      }),
    disableEndpoint: (tenantId, id, reason) =>
      run((s) => {
        const endpoint = endpointOf(s, tenantId, id);
        if (!endpoint?.enabled) return false;
        s.webhookEndpoints.set(id, { ...endpoint, enabled: false, disabledReason: reason });
        stopPending(s, id);
        return true;
      }),
    deleteEndpoint: (tenantId, id) =>
      run((s) => {
        if (!endpointOf(s, tenantId, id)) return false;
        s.webhookEndpoints.delete(id);
        for (const d of [...s.webhookDeliveries.values()]) {
          if (d.endpointId === id) s.webhookDeliveries.delete(d.id);
        }
        return true;
      }),
    queueDeliveries: (event, payload, newId) => run((s) => queueIn(s, event, payload, newId)),
    queueDelivery: (delivery) =>
      run((s) => {
        if (!endpointOf(s, delivery.tenantId, delivery.endpointId)) throw new TypeError('unknown webhook');
        if (s.webhookDeliveries.has(delivery.id)) throw new TypeError('duplicate delivery id');
        s.webhookDeliveries.set(delivery.id, { ...copy(delivery), lockedUntil: null });
      }),
    claimDeliveries: ({ now, limit, leaseSeconds }) =>
      run((s) => {
        checkBatchSize(limit);
        const lockedUntil = new Date(now.getTime() + leaseSeconds * 1000);
        const due = [...s.webhookDeliveries.values()]
          .filter(
            (d) =>
              d.status === 'pending' &&
              d.nextAttemptAt !== null &&
              d.nextAttemptAt <= now &&
              (d.lockedUntil === null || d.lockedUntil <= now) &&
              s.webhookEndpoints.get(d.endpointId)?.enabled === true,
          )
          .sort(
            (a, b) =>
              (a.nextAttemptAt?.getTime() ?? 0) - (b.nextAttemptAt?.getTime() ?? 0) || (a.id < b.id ? -1 : 1),
          )
          .slice(0, limit);
        return due.map((d) => {
          s.webhookDeliveries.set(d.id, { ...d, lockedUntil });
          const endpoint = s.webhookEndpoints.get(d.endpointId) as WebhookEndpointRecord;
          return { delivery: deliveryOf(d), url: endpoint.url, sealedSecret: endpoint.sealedSecret };
        });
      }),
    recordAttempt: (id, { at, succeeded, responseStatus, nextAttemptAt }) =>
      run((s) => {
        const d = s.webhookDeliveries.get(id);
        if (d?.status !== 'pending') return null;
        const given = succeeded || nextAttemptAt === null;
        s.webhookDeliveries.set(id, {
          ...d,
          attempt: d.attempt + 1,
          status: succeeded ? 'succeeded' : given ? 'failed' : 'pending',
          responseStatus,
          lastAttemptAt: new Date(at),
          nextAttemptAt: given ? null : new Date(nextAttemptAt as Date),
          lockedUntil: null,
        });
        const endpoint = s.webhookEndpoints.get(d.endpointId);
        if (!endpoint) return null;
        const next = succeeded
          ? { ...endpoint, consecutiveFailures: 0, failingSince: null }
          : {
              ...endpoint,
              consecutiveFailures: endpoint.consecutiveFailures + 1,
              failingSince: endpoint.failingSince ?? new Date(at),
            };
        s.webhookEndpoints.set(endpoint.id, next);
        return {
          tenantId: next.tenantId,
          endpointId: next.id,
          consecutiveFailures: next.consecutiveFailures,
          failingSince: copy(next.failingSince),
        };
      }),
    listDeliveries: (tenantId, endpointId, { limit, before }) =>
      run((s) => {
        checkBatchSize(limit);
        return [...s.webhookDeliveries.values()]
          .filter(
            (d) =>
              d.tenantId === tenantId &&
              d.endpointId === endpointId &&
              (before === undefined || d.id < before),
          )
          .sort((a, b) => (a.id < b.id ? 1 : -1))
          .slice(0, limit)
          .map(deliveryOf);
      }),
    countPending: () =>
      run((s) => {
        const pending = [...s.webhookDeliveries.values()].filter((d) => d.status === 'pending');
        const oldest = pending.reduce<Date | null>(
          (min, d) => (min === null || d.createdAt < min ? d.createdAt : min),
          null,
        );
        return { pending: pending.length, oldestPendingAt: copy(oldest) };
      }),
    deleteDeliveriesOlderThan: ({ before, batchSize }) =>
      run((s) => {
        checkBatchSize(batchSize);
        const doomed = [...s.webhookDeliveries.values()]
          .filter((d) => d.status !== 'pending' && d.createdAt < before)
          .sort((a, b) => (a.id < b.id ? -1 : 1))
          .slice(0, batchSize);
        for (const d of doomed) s.webhookDeliveries.delete(d.id);
        return doomed.length;
      }),
    listSealedSecrets: (page) =>
      run((s) =>
        pageOf(s.webhookEndpoints.values(), (e) => e.id, page).map(({ tenantId, id, sealedSecret }) => ({
          tenantId,
          id,
          sealedSecret,
        })),
      ),
    resealSecret: (tenantId, id, expected, next) =>
      run((s) => {
        const endpoint = endpointOf(s, tenantId, id);
        if (!endpoint || endpoint.sealedSecret !== expected) return false;
        s.webhookEndpoints.set(id, { ...endpoint, sealedSecret: next });
        return true;
      }),
  };
}
