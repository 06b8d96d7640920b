import { isUuid } from 'tenant-auth-core';
import type { UserStore } from 'tenant-auth-core/store-kit';
import { batchedReadsBy } from '../batched-reads.js';
import { toUser, USER_COLUMNS, type UserRow } from '../rows.js';
import type { SqlDriver } from '../sql-driver.js';
import { textArrayLiteral } from '../statements.js';
import { copyOfStoreError, guarded } from '../store-errors.js';
import { tableOf } from '../tables.js';

/**
 * @internal `UserStore` in SQL. Uniqueness of the email is decided by its unique constraint, so concurrent
 * registrations and email changes are safe; a violation becomes `email_taken`. Every change is one
 * `UPDATE` or `DELETE` scoped by tenant; deleting a user cascades (foreign keys) to its sessions and the
 * one-time tokens issued for it.
 */
export function sqlUserStore(
  driver: SqlDriver,
  options: { batchedReads: boolean },
): UserStore & Required<Pick<UserStore, 'setActive' | 'countActiveByRole'>> {
  const table = () => tableOf(driver, 'tenant_auth_user');
  // A user by id, scoped to its tenant in the statement, keyed `tenantId/userId` (both valid ids, in lower
  // case as the database writes them).
  const keyOf = (tenantId: string, userId: string) => `${tenantId}/${userId}`;
  const one = async (from: string, key: string) => {
    const [tenantId, userId] = key.split('/');
    const sql = `select ${USER_COLUMNS} from ${from} where id = ? and tenant_id = ?`;
    return (await driver.rows<UserRow>(sql, [userId, tenantId]))[0];
  };
  // On every role check: one statement, shared by the checks of a busy server (batched-reads.ts; by
  // table, as its schema can be the asking request's).
  const byKey = options.batchedReads
    ? batchedReadsBy<UserRow>((from) => ({
        one: (key) => one(from, key),
        async many(keys) {
          const pairs = keys.map((key) => key.split('/') as [string, string]);
          const rows = await driver.rows<UserRow>(
            `select ${USER_COLUMNS} from ${from}
  where (tenant_id, id) in (select * from unnest(?::uuid[], ?::uuid[]))`,
            [
              textArrayLiteral(pairs.map(([tenantId]) => tenantId)),
              textArrayLiteral(pairs.map(([, userId]) => userId)),
            ],
          );
          return new Map(rows.map((row) => [keyOf(row.tenantId, row.id), row]));
        },
        copyError: copyOfStoreError,
      }))
    : one;
  /** One `UPDATE` of the user of the tenant: `set` with its parameters first. */
  const update = (tenantId: string, userId: string, set: string, params: readonly unknown[]) =>
    guarded(async () => {
      if (!isUuid(tenantId) || !isUuid(userId)) return false;
      const sql = `update ${table()} set ${set} where id = ? and tenant_id = ?`;
      return (await driver.execute(sql, [...params, userId, tenantId])) === 1;
    });
  return {
    create: (user) =>
      guarded(async () => {
        await driver.execute(
          `insert into ${table()} (id, tenant_id, email, password_hash, role, email_verified, created_at, active)
  values (?, ?, ?, ?, ?, ?, ?::timestamptz, ?)`,
          [
            user.id,
            user.tenantId,
            user.email,
            user.passwordHash,
            user.role,
            user.emailVerified,
            user.createdAt.toISOString(),
            user.active !== false,
          ],
        );
      }),
    findByEmail: (email) =>
      guarded(async () => {
        const [row] = await driver.rows<UserRow>(`select ${USER_COLUMNS} from ${table()} where email = ?`, [
          email,
        ]);
        return row ? toUser(row) : null;
      }),
    findById: (tenantId, userId) =>
      guarded(async () => {
        if (!isUuid(tenantId) || !isUuid(userId)) return null;
        const row = await byKey(table(), keyOf(tenantId.toLowerCase(), userId.toLowerCase()));
        return row ? toUser(row) : null;
      }),
    listByTenant: (tenantId, options) =>
      guarded(async () => {
        if (!isUuid(tenantId)) return [];
        const limit = options?.limit === undefined ? '' : ' limit ?';
        const rows = await driver.rows<UserRow>(
          `select ${USER_COLUMNS} from ${table()} where tenant_id = ? order by created_at asc, id asc${limit}`,
          options?.limit === undefined ? [tenantId] : [tenantId, options.limit],
        );
        return rows.map(toUser);
      }),
    countByRole: (tenantId, role) =>
      guarded(async () => {
        if (!isUuid(tenantId)) return 0;
        const [row] = await driver.rows<{ count: number | string }>(
          `select count(*) as count from ${table()} where tenant_id = ? and role = ?`,
          [tenantId, role],
        );
        return Number(row?.count ?? 0);
      }),
    countActiveByRole: (tenantId, role) =>
      guarded(async () => {
        if (!isUuid(tenantId)) return 0;
        const [row] = await driver.rows<{ count: number | string }>(
          `select count(*) as count from ${table()} where tenant_id = ? and role = ? and active`,
          [tenantId, role],
        );
        return Number(row?.count ?? 0);
      }),
    setActive: (tenantId, userId, active) => update(tenantId, userId, 'active = ?', [active]),
    setPasswordHash: (tenantId, userId, passwordHash) =>
      update(tenantId, userId, 'password_hash = ?', [passwordHash]),
    setRole: (tenantId, userId, role) => update(tenantId, userId, 'role = ?', [role]),
    markEmailVerified: (tenantId, userId) => update(tenantId, userId, 'email_verified = true', []),
    // A taken email violates the unique constraint: `email_taken`, and nothing changes.
    changeEmail: (tenantId, userId, email) =>
      update(tenantId, userId, 'email = ?, email_verified = true', [email]),
    delete: (tenantId, userId) =>
      guarded(async () => {
        if (!isUuid(tenantId) || !isUuid(userId)) return false;
        const sql = `delete from ${table()} where id = ? and tenant_id = ?`;
        return (await driver.execute(sql, [userId, tenantId])) === 1;
      }),
  };
}
