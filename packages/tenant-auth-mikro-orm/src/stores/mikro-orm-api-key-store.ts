import { isUuid, type Role } from 'tenant-auth-core';
import type { ApiKeyRecord, ApiKeyStore } from 'tenant-auth-core/store-kit';
import { tenantAuthApiKeySchema } from '../entities/api-key.js';
import { qualifiedTableName } from '../entity-manager-source.js';
import { guarded } from '../to-store-error.js';
import { affectedRows, checkBatchSize, executeSql, type SqlScope, selectRows } from './sql.js';

const COLUMNS = `id, tenant_id as "tenantId", name, role, prefix, secret_hash as "secretHash",
  created_at as "createdAt", created_by as "createdBy", expires_at as "expiresAt",
  last_used_at as "lastUsedAt", revoked_at as "revokedAt"`;

interface ApiKeyRow {
  id: string;
  tenantId: string;
  name: string;
  role: string;
  prefix: string;
  secretHash: string;
  createdAt: Date | string;
  createdBy: string | null;
  expiresAt: Date | string | null;
  lastUsedAt: Date | string | null;
  revokedAt: Date | string | null;
}

const dateOrNull = (value: Date | string | null | undefined): Date | null =>
  value == null ? null : new Date(value);

const toApiKey = (row: ApiKeyRow): ApiKeyRecord => ({
  id: row.id,
  tenantId: row.tenantId,
  name: row.name,
  role: row.role as Role,
  prefix: row.prefix,
  secretHash: row.secretHash.trim(),
  createdAt: new Date(row.createdAt),
  createdBy: row.createdBy ?? null,
  expiresAt: dateOrNull(row.expiresAt),
  lastUsedAt: dateOrNull(row.lastUsedAt),
  revokedAt: dateOrNull(row.revokedAt),
});

/**
 * @internal `ApiKeyStore` on MikroORM, in SQL. A secret is looked up through the unique index on
 * `secret_hash`; revoking (`revoked_at is null`) and touching `last_used_at` (`is null or < ?`) are one
 * conditional `UPDATE` each, whose changed rows say whether this call won. Every statement that takes a
 * tenant has it in its `WHERE`.
 */
export function mikroOrmApiKeyStore(scope: () => SqlScope): ApiKeyStore {
  const table = (s: SqlScope) => qualifiedTableName(s.em, tenantAuthApiKeySchema);
  return {
    create: (key) =>
      guarded(async () => {
        const s = scope();
        await executeSql(
          s,
          `insert into ${table(s)} (id, tenant_id, name, role, prefix, secret_hash, created_at, created_by,
  expires_at, last_used_at, revoked_at)
values (?, ?, ?, ?, ?, ?, ?::timestamptz, ?, ?::timestamptz, ?::timestamptz, ?::timestamptz)`,
          [
            key.id,
            key.tenantId,
            key.name,
            key.role,
            key.prefix,
            key.secretHash,
            key.createdAt.toISOString(),
            key.createdBy,
            key.expiresAt?.toISOString() ?? null,
            key.lastUsedAt?.toISOString() ?? null,
            key.revokedAt?.toISOString() ?? null,
          ],
          'run',
        );
      }),
    findBySecretHash: (secretHash) =>
      guarded(async () => {
        const s = scope();
        const rows = await selectRows<ApiKeyRow>(
          s,
          `select ${COLUMNS} from ${table(s)} where secret_hash = ?`,
          [secretHash],
        );
        return rows[0] ? toApiKey(rows[0]) : null;
      }),
    findById: (tenantId, id) =>
      guarded(async () => {
        if (!isUuid(tenantId) || !isUuid(id)) return null;
        const s = scope();
        const rows = await selectRows<ApiKeyRow>(
          s,
          `select ${COLUMNS} from ${table(s)} where tenant_id = ? and id = ?`,
          [tenantId, id],
        );
        return rows[0] ? toApiKey(rows[0]) : null;
      }),
    listByTenant: (tenantId, { limit }) =>
      guarded(async () => {
        checkBatchSize(limit, 'limit');
        if (!isUuid(tenantId)) return [];
        const s = scope();
        const rows = await selectRows<ApiKeyRow>(
          s,
          `select ${COLUMNS} from ${table(s)} where tenant_id = ? and revoked_at is null
order by created_at, id limit ?`,
          [tenantId, limit],
        );
        return rows.map(toApiKey);
      }),
    revoke: (tenantId, id, at) =>
      guarded(async () => {
        if (!isUuid(tenantId) || !isUuid(id)) return false;
        const s = scope();
        const changed = await affectedRows(
          s,
          `update ${table(s)} set revoked_at = ?::timestamptz where tenant_id = ? and id = ? and revoked_at is null`,
          [at.toISOString(), tenantId, id],
        );
        return changed > 0;
      }),
    touchLastUsed: (tenantId, id, at, staleBefore) =>
      guarded(async () => {
        if (!isUuid(tenantId) || !isUuid(id)) return false;
        const s = scope();
        const changed = await affectedRows(
          s,
          `update ${table(s)} set last_used_at = ?::timestamptz
where tenant_id = ? and id = ? and (last_used_at is null or last_used_at < ?::timestamptz)`,
          [at.toISOString(), tenantId, id, staleBefore.toISOString()],
        );
        return changed > 0;
      }),
  };
}
