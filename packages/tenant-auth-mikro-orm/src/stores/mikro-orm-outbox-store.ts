import type { EntityManager } from '@mikro-orm/core';
import { isUuid } from 'tenant-auth-core';
import { tenantAuthOutboxMessageSchema } from '../entities/outbox-message.js';
import { qualifiedTableName } from '../entity-manager-source.js';
import { toStoreError } from '../to-store-error.js';
import type { OutboxMessageRecord, OutboxStore } from './core-types.js';
import { OUTBOX_COLUMNS, type OutboxRow, toOutboxMessage } from './rows.js';
import { affectedRows, checkBatchSize, type SqlScope, selectRows } from './sql.js';

/** Oldest due first, then by id: the order of a claim. */
function byDue(a: OutboxMessageRecord, b: OutboxMessageRecord): number {
  return a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * @internal `OutboxStore` on MikroORM. A claim is one
 * `UPDATE ... WHERE id IN (SELECT id ... ORDER BY next_attempt_at, id LIMIT n FOR UPDATE SKIP LOCKED)
 * RETURNING`: concurrent claimers skip each other's rows instead of waiting for them, and a row another
 * claim changed meanwhile is re-checked against the WHERE clause, so no message is handed out twice. Due
 * messages are found through the partial index on `next_attempt_at` of the messages that are not dead.
 * Retrying and burying change only messages that are not dead.
 */
export function mikroOrmOutboxStore(em: () => EntityManager, scope: () => SqlScope): OutboxStore {
  return {
    async enqueue(message) {
      try {
        await em().insert(tenantAuthOutboxMessageSchema, {
          id: message.id,
          tenantId: message.tenantId,
          template: message.template,
          recipient: message.to,
          payload: message.payload,
          createdAt: message.createdAt,
          attempts: message.attempts,
          nextAttemptAt: message.nextAttemptAt,
          lockedUntil: message.lockedUntil,
          lastError: message.lastError,
          deadAt: message.deadAt,
        });
      } catch (err) {
        throw toStoreError(err);
      }
    },

    async claim({ now, limit, leaseSeconds }) {
      checkBatchSize(limit, 'limit');
      const scoped = scope();
      const table = qualifiedTableName(scoped.em, tenantAuthOutboxMessageSchema);
      const lockedUntil = new Date(now.getTime() + leaseSeconds * 1000);
      const sql = `update ${table} set locked_until = ?::timestamptz, attempts = attempts + 1
where id in (
    select id from ${table}
    where dead_at is null and next_attempt_at <= ?::timestamptz
      and (locked_until is null or locked_until <= ?::timestamptz)
    order by next_attempt_at, id limit ? for update skip locked
)
returning ${OUTBOX_COLUMNS}`;
      const at = now.toISOString();
      try {
        const rows = await selectRows<OutboxRow>(scoped, sql, [lockedUntil.toISOString(), at, at, limit]);
        // RETURNING comes in no particular order.
        return rows.map(toOutboxMessage).sort(byDue);
      } catch (err) {
        throw toStoreError(err);
      }
    },

    async complete(id) {
      if (!isUuid(id)) return false;
      try {
        return (await em().nativeDelete(tenantAuthOutboxMessageSchema, { id })) === 1;
      } catch (err) {
        throw toStoreError(err);
      }
    },

    async retry(id, { nextAttemptAt, error }) {
      if (!isUuid(id)) return false;
      try {
        const changed = await em().nativeUpdate(
          tenantAuthOutboxMessageSchema,
          { id, deadAt: null },
          { nextAttemptAt, lastError: error, lockedUntil: null },
        );
        return changed === 1;
      } catch (err) {
        throw toStoreError(err);
      }
    },

    async bury(id, { at, error }) {
      if (!isUuid(id)) return false;
      try {
        const changed = await em().nativeUpdate(
          tenantAuthOutboxMessageSchema,
          { id, deadAt: null },
          { deadAt: at, lastError: error, lockedUntil: null, payload: '' },
        );
        return changed === 1;
      } catch (err) {
        throw toStoreError(err);
      }
    },

    ...outboxUpkeep(scope),
  };
}

/** The upkeep of `mikroOrmOutboxStore`: the counts monitoring reads, and the deletion of dead messages. */
function outboxUpkeep(scope: () => SqlScope): Pick<OutboxStore, 'counts' | 'deleteDead'> {
  return {
    async counts() {
      const scoped = scope();
      const table = qualifiedTableName(scoped.em, tenantAuthOutboxMessageSchema);
      try {
        const rows = await selectRows<{ pending: unknown; dead: unknown; oldest: Date | string | null }>(
          scoped,
          `select count(*) filter (where dead_at is null) as pending,
  count(*) filter (where dead_at is not null) as dead,
  min(created_at) filter (where dead_at is null) as oldest
from ${table}`,
          [],
        );
        const row = rows[0];
        return {
          pending: Number(row?.pending ?? 0),
          dead: Number(row?.dead ?? 0),
          oldestPendingAt: row?.oldest == null ? null : new Date(row.oldest),
        };
      } catch (err) {
        throw toStoreError(err);
      }
    },

    async deleteDead({ deadBefore, batchSize }) {
      checkBatchSize(batchSize);
      const scoped = scope();
      const table = qualifiedTableName(scoped.em, tenantAuthOutboxMessageSchema);
      const sql = `delete from ${table} where id = any(array(
    select id from ${table} where dead_at < ?::timestamptz
    order by dead_at, id limit ? for update skip locked
))`;
      try {
        return await affectedRows(scoped, sql, [deadBefore.toISOString(), batchSize]);
      } catch (err) {
        throw toStoreError(err);
      }
    },
  };
}
