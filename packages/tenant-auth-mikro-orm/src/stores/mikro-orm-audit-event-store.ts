import type { EntityManager } from '@mikro-orm/core';
import { isUuid } from 'tenant-auth-core';
import { tenantAuthAuditEventSchema } from '../entities/audit-event.js';
import { qualifiedTableName } from '../entity-manager-source.js';
import { toStoreError } from '../to-store-error.js';
import type { AuditEventQuery, AuditEventStore } from './core-types.js';
import { AUDIT_EVENT_COLUMNS, type AuditEventRow, toAuditEvent } from './rows.js';
import { affectedRows, checkBatchSize, type SqlScope, selectRows } from './sql.js';

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
 * @internal `AuditEventStore` on MikroORM. Pages are keyset pages by id (UUIDv7, time-ordered), newest
 * first: `WHERE tenant_id = ? [AND type = ?] [AND id < ?] ORDER BY id DESC LIMIT n`, read backwards from
 * the `(tenant_id, id)` primary key or the `(tenant_id, type, id)` index. Filtered by user, a page is the
 * union of two such pages, one through the `(tenant_id, actor_id, id)` index and one through
 * `(tenant_id, subject_id, id)`, so it reads at most twice the page whatever the size of the log, where
 * one `actor_id = ? OR subject_id = ?` scan would collect and sort every event of the user. Retention
 * deletes in batches through the `at` index, skipping locked rows.
 */
export function mikroOrmAuditEventStore(em: () => EntityManager, scope: () => SqlScope): AuditEventStore {
  return {
    async append(event) {
      try {
        await em().insert(tenantAuthAuditEventSchema, {
          id: event.id,
          tenantId: event.tenantId,
          type: event.type,
          at: event.at,
          actorId: event.actorId,
          actorType: event.actorType,
          subjectId: event.subjectId,
          sessionId: event.sessionId,
          ipAddress: event.ipAddress,
          userAgent: event.userAgent,
          requestId: event.requestId,
        });
      } catch (err) {
        throw toStoreError(err);
      }
    },

    async list(tenantId, query) {
      checkBatchSize(query.limit, 'limit');
      if (!isUuid(tenantId)) return [];
      if (query.before !== undefined && !isUuid(query.before)) return [];
      if (query.userId !== undefined && !isUuid(query.userId)) return [];
      const scoped = scope();
      const table = qualifiedTableName(scoped.em, tenantAuthAuditEventSchema);
      let statement: { sql: string; params: unknown[] };
      if (query.userId === undefined) {
        statement = page(table, [], [tenantId], query);
      } else {
        const asActor = page(table, ['actor_id = ?'], [tenantId, query.userId], query);
        const asSubject = page(table, ['subject_id = ?'], [tenantId, query.userId], query);
        // UNION, not UNION ALL: an event whose actor is also its subject is listed once.
        statement = {
          sql: `select * from ((${asActor.sql}) union (${asSubject.sql})) as events order by id desc limit ?`,
          params: [...asActor.params, ...asSubject.params, query.limit],
        };
      }
      try {
        const rows = await selectRows<AuditEventRow>(scoped, statement.sql, statement.params);
        return rows.map(toAuditEvent);
      } catch (err) {
        throw toStoreError(err);
      }
    },

    async deleteOlderThan({ before, batchSize }) {
      checkBatchSize(batchSize);
      const scoped = scope();
      const table = qualifiedTableName(scoped.em, tenantAuthAuditEventSchema);
      // The batch is joined on the primary key (tenant_id, id), so the DELETE finds its rows by key.
      const sql = `delete from ${table} as event using (
    select tenant_id, id from ${table} where at < ?::timestamptz
    order by at limit ? for update skip locked
) as batch
where event.tenant_id = batch.tenant_id and event.id = batch.id`;
      try {
        return await affectedRows(scoped, sql, [before.toISOString(), batchSize]);
      } catch (err) {
        throw toStoreError(err);
      }
    },
  };
}
