import { isUuid } from 'tenant-auth-core';
import type { CompleteTransactionStores } from 'tenant-auth-core/store-kit';
import { TENANT_COLUMNS, type TenantRow, toTenant } from '../rows.js';
import type { SqlDriver } from '../sql-driver.js';
import { guarded } from '../store-errors.js';
import { tableOf } from '../tables.js';

/**
 * @internal `TenantStore` in SQL. `lock` is `SELECT ... FOR UPDATE` on the tenant row, held until the
 * transaction of the driver ends; `delete` is one `DELETE` whose foreign keys cascade to the tenant's
 * users, sessions, one-time tokens and audit events.
 */
export function sqlTenantStore(driver: SqlDriver): CompleteTransactionStores['tenants'] {
  const table = () => tableOf(driver, 'tenant_auth_tenant');
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
        // On every authenticated read of a tenant: one statement.
        const [row] = await driver.rows<TenantRow>(`select ${TENANT_COLUMNS} from ${table()} where id = ?`, [
          tenantId,
        ]);
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
