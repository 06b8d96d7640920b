import type { EntityManager } from '@mikro-orm/core';
import { isUuid } from 'tenant-auth-core';
import type { TenantRecord, TenantStore } from 'tenant-auth-core/store-kit';
import { tenantAuthTenantSchema } from '../entities/tenant.js';
import { qualifiedTableName } from '../entity-manager-source.js';
import { toStoreError } from '../to-store-error.js';
import { TENANT_COLUMNS, type TenantRow, toTenant } from './rows.js';
import { type SqlScope, selectRows } from './sql.js';

/**
 * @internal `TenantStore` on MikroORM. `em()` gives a fresh fork for each operation, or the entity
 * manager of the transaction the store is bound to; `scope()` where its SQL runs (no transaction, or that
 * one). `lock` is `SELECT ... FOR UPDATE` on the tenant row,
 * held until that transaction ends; `delete` is one `DELETE` whose foreign keys cascade to the tenant's
 * users, sessions, one-time tokens and audit events.
 */
export function mikroOrmTenantStore(em: () => EntityManager, scope: () => SqlScope): TenantStore {
  return {
    async create(tenant: TenantRecord) {
      try {
        await em().insert(tenantAuthTenantSchema, {
          id: tenant.id,
          slug: tenant.slug,
          name: tenant.name,
          createdAt: tenant.createdAt,
          requireMfa: tenant.requireMfa,
        });
      } catch (err) {
        throw toStoreError(err);
      }
    },
    async findById(tenantId) {
      if (!isUuid(tenantId)) return null;
      const scoped = scope();
      try {
        // On every authenticated read of a tenant: one statement, no unit of work.
        const [row] = await selectRows<TenantRow>(
          scoped,
          `select ${TENANT_COLUMNS} from ${qualifiedTableName(scoped.em, tenantAuthTenantSchema)} where id = ?`,
          [tenantId],
        );
        return row ? toTenant(row) : null;
      } catch (err) {
        throw toStoreError(err);
      }
    },
    async lock(tenantId) {
      if (!isUuid(tenantId)) return false;
      const scoped = scope();
      try {
        const rows = await selectRows(
          scoped,
          // NO KEY UPDATE: lockers of the tenant wait for each other, but the foreign-key checks of every
          // insert under the tenant (sessions, audit events: FOR KEY SHARE) do not wait for them, and a
          // member removal cannot deadlock against a refresh.
          `select id from ${qualifiedTableName(scoped.em, tenantAuthTenantSchema)} where id = ? for no key update`,
          [tenantId],
        );
        return rows.length === 1;
      } catch (err) {
        throw toStoreError(err);
      }
    },
    async setRequireMfa(tenantId, requireMfa) {
      if (!isUuid(tenantId)) return false;
      try {
        return (await em().nativeUpdate(tenantAuthTenantSchema, { id: tenantId }, { requireMfa })) === 1;
      } catch (err) {
        throw toStoreError(err);
      }
    },
    async delete(tenantId) {
      if (!isUuid(tenantId)) return false;
      try {
        return (await em().nativeDelete(tenantAuthTenantSchema, { id: tenantId })) === 1;
      } catch (err) {
        throw toStoreError(err);
      }
    },
  };
}
