import { isUuid } from 'tenant-auth-core';
import type { AuditEventQuery, AuditEventRecord, AuditEventStore } from '../core-types.js';
import type { SqlDriver } from '../sql-driver.js';
import { checkBatchSize } from '../statements.js';
import { guarded } from '../store-errors.js';
import { tableOf } from '../tables.js';

/** An audit event row as the stores' SQL selects it with {@link AUDIT_EVENT_COLUMNS}. */
interface AuditEventRow {
  id: string;
  tenantId: string;
  type: string;
  at: Date | string;
  actorId: string | null;
  actorType: string;
  subjectId: string | null;
  sessionId: string | null;
  ipAddress: string | null;
  userAgent: string | null;
  requestId: string | null;
}

/** The columns of `tenant_auth_audit_event`, named as {@link AuditEventRow} names them. */
const AUDIT_EVENT_COLUMNS = `id, tenant_id as "tenantId", type, at, actor_id as "actorId",
  actor_type as "actorType", subject_id as "subjectId", session_id as "sessionId", ip_address as "ipAddress", user_agent as "userAgent",
  request_id as "requestId"`;

const toAuditEvent = (row: AuditEventRow): AuditEventRecord => ({
  id: row.id,
  tenantId: row.tenantId,
  type: row.type as AuditEventRecord['type'],
  at: new Date(row.at),
  actorId: row.actorId ?? null,
  actorType:
    row.actorType === 'api_key' || row.actorType === 'system' || row.actorType === 'scim'
      ? row.actorType
      : 'user',
  subjectId: row.subjectId ?? null,
  sessionId: row.sessionId ?? null,
  ipAddress: row.ipAddress ?? null,
  userAgent: row.userAgent ?? null,
  requestId: row.requestId ?? null,
});

/**
 * @internal The columns, placeholders and parameters that insert `event`: one list for `append` and for the
 * rotations that record their event in the same statement.
 */
export function auditEventInsert(event: AuditEventRecord): {
  columns: string;
  values: string;
  params: unknown[];
} {
  return {
    columns: `(id, tenant_id, type, at, actor_id, actor_type, subject_id, session_id, ip_address, user_agent,
    request_id)`,
    values: '?, ?, ?, ?::timestamptz, ?, ?, ?, ?, ?, ?, ?',
    params: [
      event.id,
      event.tenantId,
      event.type,
      event.at.toISOString(),
      event.actorId,
      event.actorType,
      event.subjectId,
      event.sessionId,
      event.ipAddress,
      event.userAgent,
      event.requestId,
    ],
  };
}

/** One branch of a page: the tenant's events matching `where`, newest first, at most `limit`. */
function page(table: string, where: string[], params: unknown[], query: AuditEventQuery) {
  const conditions = ['tenant_id = ?', ...where];
  const values = [...params];
  if (query.type !== undefined) {
    conditions.push('type = ?');
    values.push(query.type);
  }
  if (query.before !== undefined) {
    conditions.push('id < ?');
    values.push(query.before);
  }
  values.push(query.limit);
  return {
    sql: `select ${AUDIT_EVENT_COLUMNS} from ${table} where ${conditions.join(' and ')} order by id desc limit ?`,
    params: values,
  };
}

/**
 * @internal `AuditEventStore` in SQL. Pages are keyset pages by id (UUIDv7, time-ordered), newest
 * first: `WHERE tenant_id = ? [AND type = ?] [AND id < ?] ORDER BY id DESC LIMIT n`, read backwards from
 * the `(tenant_id, id)` primary key or the `(tenant_id, type, id)` index. Filtered by user, a page is the
 * union of two such pages, one through the `(tenant_id, actor_id, id)` index and one through
 * `(tenant_id, subject_id, id)`, so it reads at most twice the page whatever the size of the log, where
 * one `actor_id = ? OR subject_id = ?` scan would collect and sort every event of the user. Retention
 * deletes in batches through the `at` index, skipping locked rows.
 */
export function sqlAuditEventStore(driver: SqlDriver): AuditEventStore {
  const table = () => tableOf(driver, 'tenant_auth_audit_event');
  return {
    append: (event) =>
      guarded(async () => {
        const insert = auditEventInsert(event);
        await driver.execute(
          `insert into ${table()} ${insert.columns}
values (${insert.values})`,
          insert.params,
        );
      }),

    async list(tenantId, query) {
      checkBatchSize(query.limit, 'limit');
      if (!isUuid(tenantId)) return [];
      if (query.before !== undefined && !isUuid(query.before)) return [];
      if (query.userId !== undefined && !isUuid(query.userId)) return [];
      const t = table();
      let statement: { sql: string; params: unknown[] };
      if (query.userId === undefined) {
        statement = page(t, [], [tenantId], query);
      } else {
        const asActor = page(t, ['actor_id = ?'], [tenantId, query.userId], query);
        const asSubject = page(t, ['subject_id = ?'], [tenantId, query.userId], query);
        // UNION, not UNION ALL: an event whose actor is also its subject is listed once.
        statement = {
          sql: `select * from ((${asActor.sql}) union (${asSubject.sql})) as events order by id desc limit ?`,
          params: [...asActor.params, ...asSubject.params, query.limit],
        };
      }
      return guarded(async () =>
        (await driver.rows<AuditEventRow>(statement.sql, statement.params)).map(toAuditEvent),
      );
    },

    async deleteOlderThan({ before, batchSize }) {
      checkBatchSize(batchSize);
      const t = table();
      // The batch is joined on the primary key (tenant_id, id), so the DELETE finds its rows by key: the
      // composite key is why this is not `deleteBatch`'s `key = any(array(...))`.
      const sql = `delete from ${t} as event using (
    select tenant_id, id from ${t} where at < ?::timestamptz
    order by at limit ? for update skip locked
) as batch
where event.tenant_id = batch.tenant_id and event.id = batch.id`;
      return guarded(() => driver.execute(sql, [before.toISOString(), batchSize]));
    },
  };
}
