import { isUuid, type Role } from 'tenant-auth-core';
import type { ApiKeyRecord, ApiKeyStore } from 'tenant-auth-core/store-kit';
import { dateOrNull } from '../rows.js';
import type { SqlDriver } from '../sql-driver.js';
import { checkBatchSize, deleteBatch, isoOrNull } from '../statements.js';
import { guarded } from '../store-errors.js';
import { tableOf } from '../tables.js';

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
 * @internal `ApiKeyStore` in SQL. A secret is looked up through the unique index on
 * `secret_hash`; revoking (`revoked_at is null`) and touching `last_used_at` (`is null or < ?`) are one
 * conditional `UPDATE` each, whose changed rows say whether this call won. Every statement that takes a
 * tenant has it in its `WHERE`.
 */
export function sqlApiKeyStore(
  driver: SqlDriver,
): ApiKeyStore & Required<Pick<ApiKeyStore, 'revokeCreatedBy'>> {
  const table = () => tableOf(driver, 'tenant_auth_api_key');
  return {
    create: (key) =>
      guarded(async () => {
        await driver.execute(
          `insert into ${table()} (id, tenant_id, name, role, prefix, secret_hash, created_at, created_by,
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
            isoOrNull(key.expiresAt),
            isoOrNull(key.lastUsedAt),
            isoOrNull(key.revokedAt),
          ],
        );
      }),
    findBySecretHash: (secretHash) =>
      guarded(async () => {
        const rows = await driver.rows<ApiKeyRow>(`select ${COLUMNS} from ${table()} where secret_hash = ?`, [
          secretHash,
        ]);
        return rows[0] ? toApiKey(rows[0]) : null;
      }),
    findById: (tenantId, id) =>
      guarded(async () => {
        if (!isUuid(tenantId) || !isUuid(id)) return null;
        const rows = await driver.rows<ApiKeyRow>(
          `select ${COLUMNS} from ${table()} where tenant_id = ? and id = ?`,
          [tenantId, id],
        );
        return rows[0] ? toApiKey(rows[0]) : null;
      }),
    listByTenant: (tenantId, { limit }) =>
      guarded(async () => {
        checkBatchSize(limit, 'limit');
        if (!isUuid(tenantId)) return [];
        const rows = await driver.rows<ApiKeyRow>(
          `select ${COLUMNS} from ${table()} where tenant_id = ? and revoked_at is null
order by created_at, id limit ?`,
          [tenantId, limit],
        );
        return rows.map(toApiKey);
      }),
    revoke: (tenantId, id, at) =>
      guarded(async () => {
        if (!isUuid(tenantId) || !isUuid(id)) return false;
        const changed = await driver.execute(
          `update ${table()} set revoked_at = ?::timestamptz where tenant_id = ? and id = ? and revoked_at is null`,
          [at.toISOString(), tenantId, id],
        );
        return changed > 0;
      }),
    revokeCreatedBy: (tenantId, userId, at) =>
      guarded(async () => {
        if (!isUuid(tenantId) || !isUuid(userId)) return 0;
        return driver.execute(
          `update ${table()} set revoked_at = ?::timestamptz where tenant_id = ? and created_by = ? and revoked_at is null`,
          [at.toISOString(), tenantId, userId],
        );
      }),
    touchLastUsed: (tenantId, id, at, staleBefore) =>
      guarded(async () => {
        if (!isUuid(tenantId) || !isUuid(id)) return false;
        const changed = await driver.execute(
          `update ${table()} set last_used_at = ?::timestamptz
where tenant_id = ? and id = ? and (last_used_at is null or last_used_at < ?::timestamptz)`,
          [at.toISOString(), tenantId, id, staleBefore.toISOString()],
        );
        return changed > 0;
      }),
    deleteRetired: ({ before, batchSize }) => {
      // Keys are few next to sessions or events: the batch is picked from the table as it is.
      const batch = {
        table: table(),
        key: 'id',
        where: '(revoked_at < ?::timestamptz or expires_at < ?::timestamptz)',
        orderBy: 'least(revoked_at, expires_at), id',
        params: [before.toISOString(), before.toISOString()],
      };
      return guarded(() => deleteBatch(driver, batch, batchSize));
    },
  };
}
