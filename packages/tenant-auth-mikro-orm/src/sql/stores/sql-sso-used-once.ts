import { createHash } from 'node:crypto';
import { isUuid } from 'tenant-auth-core';
import type { SsoStore } from 'tenant-auth-core/store-kit';
import type { SqlDriver } from '../sql-driver.js';
import { deleteBatch } from '../statements.js';
import { guarded } from '../store-errors.js';
import { tableOf } from '../tables.js';

/**
 * @internal The single-use verbs of `sqlSsoStore` over `tenant_auth_sso_used_once`: a mark is one row
 * keyed by `(tenant_id, kind, id_hash)` (the SHA-256 of the id: the table never holds a state or an
 * assertion ID), so `insert ... on conflict do nothing` lets exactly one of concurrent uses through.
 * Cleanup deletes expired marks in batches through the `expires_at` index.
 */
export function ssoUsedOnceVerbs(
  driver: SqlDriver,
): Required<Pick<SsoStore, 'useOnce' | 'deleteExpiredUsedOnce'>> {
  const table = () => tableOf(driver, 'tenant_auth_sso_used_once');
  return {
    useOnce: ({ tenantId, kind, id }, expiresAt) =>
      guarded(async () => {
        // Fail closed: a key that cannot have been marked is not handed out as fresh either.
        if (!isUuid(tenantId) || (kind !== 'state' && kind !== 'assertion')) return false;
        const idHash = createHash('sha256').update(id, 'utf8').digest('hex');
        const rows = await driver.rows(
          `insert into ${table()} (tenant_id, kind, id_hash, expires_at) values (?, ?, ?, ?::timestamptz)
on conflict do nothing returning id_hash`,
          [tenantId, kind, idHash, expiresAt.toISOString()],
        );
        return rows.length === 1;
      }),
    deleteExpiredUsedOnce: ({ expiredBefore, batchSize }) =>
      guarded(() =>
        deleteBatch(
          driver,
          {
            table: table(),
            // The key is three columns: the batch is chosen by row.
            key: 'ctid',
            where: 'expires_at < ?::timestamptz',
            orderBy: 'expires_at',
            params: [expiredBefore.toISOString()],
          },
          batchSize,
        ),
      ),
  };
}
