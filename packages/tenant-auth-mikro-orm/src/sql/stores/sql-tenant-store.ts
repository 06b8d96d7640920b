import { isUuid } from 'tenant-auth-core';
import type { CompleteTransactionStores } from 'tenant-auth-core/store-kit';
import { batchedReadsBy } from '../batched-reads.js';
import { TENANT_COLUMNS, type TenantRow, toTenant } from '../rows.js';
import type { SqlDriver } from '../sql-driver.js';
import { textArrayLiteral } from '../statements.js';
import { copyOfStoreError, guarded } from '../store-errors.js';
import { tableOf } from '../tables.js';

/**
 * @internal `TenantStore` in SQL. `lock` is `SELECT ... FOR UPDATE` on the tenant row, held until the
 * transaction of the driver ends; `delete` is one `DELETE` whose foreign keys cascade to the tenant's
 * users, sessions, one-time tokens and audit events.
 */
export function sqlTenantStore(
  driver: SqlDriver,
  options: { batchedReads: boolean },
): CompleteTransactionStores['tenants'] {
  const table = () => tableOf(driver, 'tenant_auth_tenant');
  const one = async (from: string, id: string) =>
    (await driver.rows<TenantRow>(`select ${TENANT_COLUMNS} from ${from} where id = ?`, [id]))[0];
  // On every authenticated read of a tenant: one statement, shared by the reads of a busy server
  // (batched-reads.ts; by table, as its schema can be the asking request's).
  const byId = options.batchedReads
    ? batchedReadsBy<TenantRow>((from) => ({
        one: (id) => one(from, id),
        many: async (ids) => {
          const sql = `select ${TENANT_COLUMNS} from ${from} where id = any(?::uuid[])`;
          const rows = await driver.rows<TenantRow>(sql, [textArrayLiteral(ids)]);
          return new Map(rows.map((row) => [row.id, row]));
        },
        copyError: copyOfStoreError,
      }))
    : one;
  return {
    create: (tenant) =>
      guarded(async () => {
        await driver.execute(
          `insert into ${table()} (id, slug, name, created_at, require_mfa) values (?, ?, ?, ?::timestamptz, ?)`,
          [tenant.id, tenant.slug, tenant.name, tenant.createdAt.toISOString(), tenant.requireMfa],
        );
      }),
    findById: (tenantId) =>
      guarded(async () => {
        if (!isUuid(tenantId)) return null;
        // The database writes ids in lower case: the key a batched read finds its row by.
        const row = await byId(table(), tenantId.toLowerCase());
        return row ? toTenant(row) : null;
      }),
    lock: (tenantId) =>
      guarded(async () => {
        if (!isUuid(tenantId)) return false;
        const rows = await driver.rows(
          // NO KEY UPDATE: lockers of the tenant wait for each other, but the foreign-key checks of every
          // insert under the tenant (sessions, audit events: FOR KEY SHARE) do not wait for them, and a
          // member removal cannot deadlock against a refresh.
          `select id from ${table()} where id = ? for no key update`,
          [tenantId],
        );
        return rows.length === 1;
      }),
    setRequireMfa: (tenantId, requireMfa) =>
      guarded(async () => {
        if (!isUuid(tenantId)) return false;
        const sql = `update ${table()} set require_mfa = ? where id = ?`;
        return (await driver.execute(sql, [requireMfa, tenantId])) === 1;
      }),
    delete: (tenantId) =>
      guarded(async () => {
        if (!isUuid(tenantId)) return false;
        return (await driver.execute(`delete from ${table()} where id = ?`, [tenantId])) === 1;
      }),
  };
}
