import { isUuid } from 'tenant-auth-core';
import type {
  WebhookDeliveryRecord,
  WebhookDeliveryStatus,
  WebhookEndpointRecord,
  WebhookStore,
} from 'tenant-auth-core/store-kit';
import { dateOrNull, fromTextArray } from '../rows.js';
import type { SqlDriver } from '../sql-driver.js';
import { checkBatchSize, deleteBatch, isoOrNull, textArrayLiteral } from '../statements.js';
import { guarded } from '../store-errors.js';
import { tableOf } from '../tables.js';

type Timestamp = Date | string;

interface EndpointRow {
  id: string;
  tenantId: string;
  url: string;
  events: unknown;
  description: string | null;
  sealedSecret: string;
  enabled: boolean;
  disabledReason: string | null;
  createdAt: Timestamp;
  consecutiveFailures: number | string;
  failingSince: Timestamp | null;
}

const ENDPOINT_COLUMNS = `id, tenant_id as "tenantId", url, events, description, sealed_secret as "sealedSecret",
  enabled, disabled_reason as "disabledReason", created_at as "createdAt",
  consecutive_failures as "consecutiveFailures", failing_since as "failingSince"`;

const toEndpoint = (row: EndpointRow): WebhookEndpointRecord => ({
  id: row.id,
  tenantId: row.tenantId,
  url: row.url,
  events: fromTextArray(row.events),
  description: row.description ?? null,
  sealedSecret: row.sealedSecret,
  enabled: row.enabled,
  disabledReason: row.disabledReason ?? null,
  createdAt: new Date(row.createdAt),
  consecutiveFailures: Number(row.consecutiveFailures),
  failingSince: dateOrNull(row.failingSince),
});

interface DeliveryRow {
  id: string;
  tenantId: string;
  endpointId: string;
  eventId: string;
  type: string;
  payload: string;
  attempt: number | string;
  status: string;
  responseStatus: number | string | null;
  createdAt: Timestamp;
  lastAttemptAt: Timestamp | null;
  nextAttemptAt: Timestamp | null;
}

const DELIVERY_COLUMNS = `d.id, d.tenant_id as "tenantId", d.endpoint_id as "endpointId", d.event_id as "eventId",
  d.type, d.payload, d.attempt, d.status, d.response_status as "responseStatus", d.created_at as "createdAt",
  d.last_attempt_at as "lastAttemptAt", d.next_attempt_at as "nextAttemptAt"`;

const toDelivery = (row: DeliveryRow): WebhookDeliveryRecord => ({
  id: row.id,
  tenantId: row.tenantId,
  endpointId: row.endpointId,
  eventId: row.eventId,
  type: row.type,
  payload: row.payload,
  attempt: Number(row.attempt),
  status: row.status as WebhookDeliveryStatus,
  responseStatus: row.responseStatus === null ? null : Number(row.responseStatus),
  createdAt: new Date(row.createdAt),
  lastAttemptAt: dateOrNull(row.lastAttemptAt),
  nextAttemptAt: dateOrNull(row.nextAttemptAt),
});

/**
 * @internal `WebhookStore` in SQL. Queuing an event's deliveries is one `INSERT ... SELECT` over the
 * tenant's enabled endpoints that subscribe to its type (the ids come from core: UUIDv7, so an endpoint's
 * list is ordered by id); a claim is one `UPDATE ... WHERE id IN (SELECT ... FOR UPDATE SKIP LOCKED)
 * RETURNING`, as the outbox's; recording an attempt updates the delivery only while it is pending, and the
 * endpoint's failure counts in the same statement. Every statement that takes a tenant has it in its `WHERE`.
 */
export function sqlWebhookStore(driver: SqlDriver): WebhookStore {
  const endpoints = () => tableOf(driver, 'tenant_auth_webhook_endpoint');
  const deliveries = () => tableOf(driver, 'tenant_auth_webhook_delivery');
  const stopPending = (tenantId: string, id: string) =>
    driver.execute(
      `update ${deliveries()} set status = 'failed', next_attempt_at = null, locked_until = null
where tenant_id = ? and endpoint_id = ? and status = 'pending'`,
      [tenantId, id],
    );
  return {
    createEndpoint: (e) =>
      guarded(async () => {
        await driver.execute(
          `insert into ${endpoints()} (id, tenant_id, url, events, description, sealed_secret, enabled, disabled_reason,
  created_at, consecutive_failures, failing_since)
values (?, ?, ?, ?::text[], ?, ?, ?, ?, ?::timestamptz, ?, ?::timestamptz)`,
          [
            e.id,
            e.tenantId,
            e.url,
            textArrayLiteral(e.events),
            e.description,
            e.sealedSecret,
            e.enabled,
            e.disabledReason,
            e.createdAt.toISOString(),
            e.consecutiveFailures,
            isoOrNull(e.failingSince),
          ],
        );
      }),
    findEndpoint: (tenantId, id) =>
      guarded(async () => {
        if (!isUuid(tenantId) || !isUuid(id)) return null;
        const [row] = await driver.rows<EndpointRow>(
          `select ${ENDPOINT_COLUMNS} from ${endpoints()} where tenant_id = ? and id = ?`,
          [tenantId, id],
        );
        return row ? toEndpoint(row) : null;
      }),
    listEndpoints: (tenantId, { limit }) =>
      guarded(async () => {
        checkBatchSize(limit, 'limit');
        if (!isUuid(tenantId)) return [];
        const rows = await driver.rows<EndpointRow>(
          `select ${ENDPOINT_COLUMNS} from ${endpoints()} where tenant_id = ? order by created_at, id limit ?`,
          [tenantId, limit],
        );
        return rows.map(toEndpoint);
      }),
    updateEndpoint: (tenantId, id, patch) =>
      guarded(async () => {
        if (!isUuid(tenantId) || !isUuid(id)) return null;
        const sets: string[] = [];
        const params: unknown[] = [];
        if (patch.url !== undefined) sets.push('url = ?') && params.push(patch.url);
        if (patch.events !== undefined)
          sets.push('events = ?::text[]') && params.push(textArrayLiteral(patch.events));
        if (patch.description !== undefined) sets.push('description = ?') && params.push(patch.description);
        if (patch.sealedSecret !== undefined)
          sets.push('sealed_secret = ?') && params.push(patch.sealedSecret);
        if (patch.enabled !== undefined) sets.push('enabled = ?') && params.push(patch.enabled);
        if (patch.enabled === true) {
          sets.push('disabled_reason = null', 'consecutive_failures = 0', 'failing_since = null');
        }
        if (sets.length === 0) sets.push('id = id');
        const [row] = await driver.rows<EndpointRow>(
          `update ${endpoints()} set ${sets.join(', ')} where tenant_id = ? and id = ? returning ${ENDPOINT_COLUMNS}`,
          [...params, tenantId, id],
        );
        if (!row) return null;
        if (patch.enabled === false) await stopPending(tenantId, id);
        return toEndpoint(row);
      }),
    disableEndpoint: (tenantId, id, reason) =>
      guarded(async () => {
        if (!isUuid(tenantId) || !isUuid(id)) return false;
        const changed = await driver.execute(
          `update ${endpoints()} set enabled = false, disabled_reason = ? where tenant_id = ? and id = ? and enabled`,
          [reason, tenantId, id],
        );
        if (changed === 0) return false;
        await stopPending(tenantId, id);
        return true;
      }),
    deleteEndpoint: (tenantId, id) =>
      guarded(async () => {
        if (!isUuid(tenantId) || !isUuid(id)) return false;
        // Its deliveries go with it (on delete cascade).
        return (
          (await driver.execute(`delete from ${endpoints()} where tenant_id = ? and id = ?`, [
            tenantId,
            id,
          ])) > 0
        );
      }),
    queueDeliveries: (event, payload, newId) =>
      guarded(async () => {
        if (!isUuid(event.tenantId)) return 0;
        const matching = await driver.rows<{ id: string }>(
          `select id from ${endpoints()} where tenant_id = ? and enabled and (events && array['*', ?]::text[])
order by id`,
          [event.tenantId, event.type],
        );
        if (matching.length === 0) return 0;
        const ids = matching.map(() => newId());
        return driver.execute(
          `insert into ${deliveries()} (id, tenant_id, endpoint_id, event_id, type, payload, attempt, status, response_status,
  created_at, last_attempt_at, next_attempt_at, locked_until)
select d.id, ?, d.endpoint_id, ?, ?, ?, 0, 'pending', null, ?::timestamptz, null, ?::timestamptz, null
from unnest(?::uuid[], ?::uuid[]) as d(id, endpoint_id)`,
          [
            event.tenantId,
            event.id,
            event.type,
            payload,
            event.at.toISOString(),
            event.at.toISOString(),
            textArrayLiteral(ids),
            textArrayLiteral(matching.map((m) => m.id)),
          ],
        );
      }),
    queueDelivery: (d) =>
      guarded(async () => {
        await driver.execute(
          `insert into ${deliveries()} (id, tenant_id, endpoint_id, event_id, type, payload, attempt, status, response_status,
  created_at, last_attempt_at, next_attempt_at, locked_until)
values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?::timestamptz, ?::timestamptz, ?::timestamptz, null)`,
          [
            d.id,
            d.tenantId,
            d.endpointId,
            d.eventId,
            d.type,
            d.payload,
            d.attempt,
            d.status,
            d.responseStatus,
            d.createdAt.toISOString(),
            isoOrNull(d.lastAttemptAt),
            isoOrNull(d.nextAttemptAt),
          ],
        );
      }),
    claimDeliveries: ({ now, limit, leaseSeconds }) =>
      guarded(async () => {
        checkBatchSize(limit, 'limit');
        const at = now.toISOString();
        const lockedUntil = new Date(now.getTime() + leaseSeconds * 1000).toISOString();
        const rows = await driver.rows<DeliveryRow & { url: string; sealedSecret: string }>(
          `with claimed as (
  update ${deliveries()} set locked_until = ?::timestamptz
  where id in (
    select x.id from ${deliveries()} x join ${endpoints()} e on e.id = x.endpoint_id
    where x.status = 'pending' and x.next_attempt_at <= ?::timestamptz
      and (x.locked_until is null or x.locked_until <= ?::timestamptz) and e.enabled
    order by x.next_attempt_at, x.id limit ? for update of x skip locked
  )
  returning *
)
select ${DELIVERY_COLUMNS}, e.url, e.sealed_secret as "sealedSecret"
from claimed d join ${endpoints()} e on e.id = d.endpoint_id
order by d.next_attempt_at, d.id`,
          [lockedUntil, at, at, limit],
        );
        return rows.map((row) => ({
          delivery: toDelivery(row),
          url: row.url,
          sealedSecret: row.sealedSecret,
        }));
      }),
    recordAttempt: (id, { at, succeeded, responseStatus, nextAttemptAt }) =>
      guarded(async () => {
        if (!isUuid(id)) return null;
        const given = succeeded || nextAttemptAt === null;
        const status = succeeded ? 'succeeded' : given ? 'failed' : 'pending';
        const [row] = await driver.rows<{
          tenantId: string;
          endpointId: string;
          consecutiveFailures: number | string;
          failingSince: Timestamp | null;
        }>(
          `with attempt as (
  update ${deliveries()} set attempt = attempt + 1, status = ?, response_status = ?, last_attempt_at = ?::timestamptz,
    next_attempt_at = ?::timestamptz, locked_until = null
  where id = ? and status = 'pending'
  returning tenant_id, endpoint_id
)
update ${endpoints()} e set
  consecutive_failures = case when ? then 0 else e.consecutive_failures + 1 end,
  failing_since = case when ? then null else coalesce(e.failing_since, ?::timestamptz) end
from attempt where e.id = attempt.endpoint_id and e.tenant_id = attempt.tenant_id
returning e.tenant_id as "tenantId", e.id as "endpointId", e.consecutive_failures as "consecutiveFailures",
  e.failing_since as "failingSince"`,
          [
            status,
            responseStatus,
            at.toISOString(),
            given ? null : isoOrNull(nextAttemptAt),
            id,
            succeeded,
            succeeded,
            at.toISOString(),
          ],
        );
        return row
          ? {
              tenantId: row.tenantId,
              endpointId: row.endpointId,
              consecutiveFailures: Number(row.consecutiveFailures),
              failingSince: dateOrNull(row.failingSince),
            }
          : null;
      }),
    listDeliveries: (tenantId, endpointId, { limit, before }) =>
      guarded(async () => {
        checkBatchSize(limit, 'limit');
        if (!isUuid(tenantId) || !isUuid(endpointId)) return [];
        if (before !== undefined && !isUuid(before)) return [];
        const rows = await driver.rows<DeliveryRow>(
          `select ${DELIVERY_COLUMNS} from ${deliveries()} d
where d.endpoint_id = ? and d.tenant_id = ?${before === undefined ? '' : ' and d.id < ?'}
order by d.id desc limit ?`,
          before === undefined ? [endpointId, tenantId, limit] : [endpointId, tenantId, before, limit],
        );
        return rows.map(toDelivery);
      }),
    countPending: () =>
      guarded(async () => {
        const [row] = await driver.rows<{ pending: unknown; oldest: Timestamp | null }>(
          `select count(*) as pending, min(created_at) as oldest from ${deliveries()} where status = 'pending'`,
          [],
        );
        return { pending: Number(row?.pending ?? 0), oldestPendingAt: dateOrNull(row?.oldest ?? null) };
      }),
    deleteDeliveriesOlderThan: ({ before, batchSize }) => {
      const batch = {
        table: deliveries(),
        key: 'id',
        where: `created_at < ?::timestamptz and status <> 'pending'`,
        orderBy: 'created_at, id',
        params: [before.toISOString()],
      };
      return guarded(() => deleteBatch(driver, batch, batchSize));
    },
    listSealedSecrets: ({ after, limit }) =>
      guarded(async () => {
        checkBatchSize(limit, 'limit');
        const rows = await driver.rows<{ tenantId: string; id: string; sealedSecret: string }>(
          `select tenant_id as "tenantId", id, sealed_secret as "sealedSecret" from ${endpoints()}
${after === null ? '' : 'where id > ?'} order by id limit ?`,
          after === null ? [limit] : [after, limit],
        );
        return rows;
      }),
    resealSecret: (tenantId, id, expected, next) =>
      guarded(async () => {
        if (!isUuid(tenantId) || !isUuid(id)) return false;
        const changed = await driver.execute(
          `update ${endpoints()} set sealed_secret = ? where tenant_id = ? and id = ? and sealed_secret = ?`,
          [next, tenantId, id, expected],
        );
        return changed > 0;
      }),
  };
}
