import { isUuid } from 'tenant-auth-core';
import type { OutboxMessageRecord, OutboxStore } from '../core-types.js';
import { dateOrNull } from '../rows.js';
import type { SqlDriver } from '../sql-driver.js';
import { checkBatchSize, deleteBatch, isoOrNull } from '../statements.js';
import { guarded } from '../store-errors.js';
import { tableOf } from '../tables.js';

/** An outbox row as the stores' SQL selects it with {@link OUTBOX_COLUMNS}. */
interface OutboxRow {
  id: string;
  tenantId: string | null;
  template: string;
  recipient: string;
  payload: string;
  createdAt: Date | string;
  attempts: number | string;
  nextAttemptAt: Date | string;
  lockedUntil: Date | string | null;
  lastError: string | null;
  deadAt: Date | string | null;
}

/** The columns of `tenant_auth_outbox_message`, named as {@link OutboxRow} names them. */
const OUTBOX_COLUMNS = `id, tenant_id as "tenantId", template, recipient, payload, created_at as "createdAt",
  attempts, next_attempt_at as "nextAttemptAt", locked_until as "lockedUntil", last_error as "lastError",
  dead_at as "deadAt"`;

const toOutboxMessage = (row: OutboxRow): OutboxMessageRecord => ({
  id: row.id,
  tenantId: row.tenantId ?? null,
  template: row.template,
  to: row.recipient,
  payload: row.payload,
  createdAt: new Date(row.createdAt),
  attempts: Number(row.attempts),
  nextAttemptAt: new Date(row.nextAttemptAt),
  lockedUntil: dateOrNull(row.lockedUntil),
  lastError: row.lastError ?? null,
  deadAt: dateOrNull(row.deadAt),
});

/** Oldest due first, then by id: the order of a claim. */
function byDue(a: OutboxMessageRecord, b: OutboxMessageRecord): number {
  return a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * @internal `OutboxStore` in SQL. A claim is one
 * `UPDATE ... WHERE id IN (SELECT id ... ORDER BY next_attempt_at, id LIMIT n FOR UPDATE SKIP LOCKED)
 * RETURNING`: concurrent claimers skip each other's rows instead of waiting for them, and a row another
 * claim changed meanwhile is re-checked against the WHERE clause, so no message is handed out twice. Due
 * messages are found through the partial index on `next_attempt_at` of the messages that are not dead.
 * Retrying and burying change only messages that are not dead.
 */
export function sqlOutboxStore(driver: SqlDriver): OutboxStore {
  const table = () => tableOf(driver, 'tenant_auth_outbox_message');
  return {
    enqueue: (message) =>
      guarded(async () => {
        await driver.execute(
          `insert into ${table()} (id, tenant_id, template, recipient, payload, created_at, attempts, next_attempt_at,
  locked_until, last_error, dead_at)
values (?, ?, ?, ?, ?, ?::timestamptz, ?, ?::timestamptz, ?::timestamptz, ?, ?::timestamptz)`,
          [
            message.id,
            message.tenantId,
            message.template,
            message.to,
            message.payload,
            message.createdAt.toISOString(),
            message.attempts,
            message.nextAttemptAt.toISOString(),
            isoOrNull(message.lockedUntil),
            message.lastError,
            isoOrNull(message.deadAt),
          ],
        );
      }),

    async claim({ now, limit, leaseSeconds }) {
      checkBatchSize(limit, 'limit');
      const t = table();
      const lockedUntil = new Date(now.getTime() + leaseSeconds * 1000);
      const sql = `update ${t} set locked_until = ?::timestamptz, attempts = attempts + 1
where id in (
    select id from ${t}
    where dead_at is null and next_attempt_at <= ?::timestamptz
      and (locked_until is null or locked_until <= ?::timestamptz)
    order by next_attempt_at, id limit ? for update skip locked
)
returning ${OUTBOX_COLUMNS}`;
      const at = now.toISOString();
      const rows = await guarded(() =>
        driver.rows<OutboxRow>(sql, [lockedUntil.toISOString(), at, at, limit]),
      );
      // RETURNING comes in no particular order.
      return rows.map(toOutboxMessage).sort(byDue);
    },

    complete: (id) =>
      guarded(async () => {
        if (!isUuid(id)) return false;
        return (await driver.execute(`delete from ${table()} where id = ?`, [id])) === 1;
      }),

    retry: (id, { nextAttemptAt, error }) =>
      guarded(async () => {
        if (!isUuid(id)) return false;
        const sql = `update ${table()} set next_attempt_at = ?::timestamptz, last_error = ?, locked_until = null
  where id = ? and dead_at is null`;
        return (await driver.execute(sql, [nextAttemptAt.toISOString(), error, id])) === 1;
      }),

    bury: (id, { at, error }) =>
      guarded(async () => {
        if (!isUuid(id)) return false;
        const sql = `update ${table()} set dead_at = ?::timestamptz, last_error = ?, locked_until = null, payload = ''
  where id = ? and dead_at is null`;
        return (await driver.execute(sql, [at.toISOString(), error, id])) === 1;
      }),

    ...outboxUpkeep(driver),
  };
}

/** The upkeep of `sqlOutboxStore`: the counts monitoring reads, and the deletion of dead messages. */
function outboxUpkeep(driver: SqlDriver): Pick<OutboxStore, 'counts' | 'deleteDead'> {
  const table = () => tableOf(driver, 'tenant_auth_outbox_message');
  return {
    counts: () =>
      guarded(async () => {
        const [row] = await driver.rows<{ pending: unknown; dead: unknown; oldest: Date | string | null }>(
          `select count(*) filter (where dead_at is null) as pending,
  count(*) filter (where dead_at is not null) as dead,
  min(created_at) filter (where dead_at is null) as oldest
from ${table()}`,
          [],
        );
        return {
          pending: Number(row?.pending ?? 0),
          dead: Number(row?.dead ?? 0),
          oldestPendingAt: row?.oldest == null ? null : new Date(row.oldest),
        };
      }),

    async deleteDead({ deadBefore, batchSize }) {
      checkBatchSize(batchSize);
      const batch = {
        table: table(),
        key: 'id',
        where: 'dead_at < ?::timestamptz',
        orderBy: 'dead_at, id',
        params: [deadBefore.toISOString()],
      };
      return guarded(() => deleteBatch(driver, batch, batchSize));
    },
  };
}
