import type { EntityManager } from '@mikro-orm/core';
import { isUuid } from 'tenant-auth-core';
import { tenantAuthOneTimeTokenSchema } from '../entities/one-time-token.js';
import { qualifiedTableName } from '../entity-manager-source.js';
import { toStoreError } from '../to-store-error.js';
import type { OneTimeTokenRecord, OneTimeTokenStore } from './core-types.js';
import { ONE_TIME_TOKEN_COLUMNS, type OneTimeTokenRow, toOneTimeToken } from './rows.js';
import { affectedRows, checkBatchSize, type SqlScope, selectRows, sqlScopeOf } from './sql.js';

/**
 * @internal `OneTimeTokenStore` on MikroORM. Issuing is one statement (a `DELETE` of the older tokens of
 * the same subject in a CTE, then the `INSERT`), so it is whole even outside a transaction. Consuming is
 * one `DELETE ... WHERE kind = ? AND token_hash = ? AND expires_at > ? RETURNING`: of concurrent consumers
 * the database lets one delete the row, and the others find nothing. Lookups by hash go through the unique
 * index on `token_hash`; cleanup deletes in batches through the `expires_at` index, skipping locked rows.
 */
export function mikroOrmOneTimeTokenStore(em: () => EntityManager, scope: () => SqlScope): OneTimeTokenStore {
  return {
    ...oneTimeTokenIssuing(em),

    async find(kind, tokenHash, now) {
      try {
        const row = await em().findOne(
          tenantAuthOneTimeTokenSchema,
          { kind, tokenHash, expiresAt: { $gt: now } },
          { disableIdentityMap: true },
        );
        return row ? toOneTimeToken(row) : null;
      } catch (err) {
        throw toStoreError(err);
      }
    },

    async consume(kind, tokenHash, now) {
      const scoped = scope();
      const table = qualifiedTableName(scoped.em, tenantAuthOneTimeTokenSchema);
      try {
        const rows = await selectRows<OneTimeTokenRow>(
          scoped,
          `delete from ${table} where kind = ? and token_hash = ? and expires_at > ?::timestamptz
returning ${ONE_TIME_TOKEN_COLUMNS}`,
          [kind, tokenHash, now.toISOString()],
        );
        const row = rows[0];
        return row ? toOneTimeToken(row) : null;
      } catch (err) {
        throw toStoreError(err);
      }
    },

    async listPending(tenantId, kind, now, options) {
      if (!isUuid(tenantId)) return [];
      try {
        const rows = await em().find(
          tenantAuthOneTimeTokenSchema,
          { tenantId, kind, expiresAt: { $gt: now } },
          {
            disableIdentityMap: true,
            orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
            ...(options?.limit === undefined ? {} : { limit: options.limit }),
          },
        );
        return rows.map(toOneTimeToken);
      } catch (err) {
        throw toStoreError(err);
      }
    },

    async revoke(tenantId, kind, id) {
      if (!isUuid(tenantId) || !isUuid(id)) return false;
      try {
        return (await em().nativeDelete(tenantAuthOneTimeTokenSchema, { id, tenantId, kind })) === 1;
      } catch (err) {
        throw toStoreError(err);
      }
    },

    async revokeForUser(tenantId, userId, kind) {
      if (!isUuid(tenantId) || !isUuid(userId)) return 0;
      try {
        return await em().nativeDelete(tenantAuthOneTimeTokenSchema, { tenantId, userId, kind });
      } catch (err) {
        throw toStoreError(err);
      }
    },

    async deleteExpired({ expiredBefore, batchSize }) {
      checkBatchSize(batchSize);
      const scoped = scope();
      const table = qualifiedTableName(scoped.em, tenantAuthOneTimeTokenSchema);
      // The batch becomes an array, so the DELETE looks its rows up by primary key.
      const sql = `delete from ${table} where id = any(array(
    select id from ${table} where expires_at < ?::timestamptz
    order by expires_at, id limit ? for update skip locked
))`;
      try {
        return await affectedRows(scoped, sql, [expiredBefore.toISOString(), batchSize]);
      } catch (err) {
        throw toStoreError(err);
      }
    },
  };
}

/**
 * `issue` of `mikroOrmOneTimeTokenStore`: the subject's older tokens replaced by the new one, under an
 * advisory lock on the subject.
 */
function oneTimeTokenIssuing(em: () => EntityManager): Pick<OneTimeTokenStore, 'issue'> {
  return {
    async issue(token: OneTimeTokenRecord): Promise<void> {
      // An entity manager of its own: the issue runs in a transaction, the caller's or a new one.
      const scoped = em();
      const table = qualifiedTableName(scoped, tenantAuthOneTimeTokenSchema);
      // The subject: an address in a tenant for an invitation, a user for the other kinds.
      const subject =
        token.kind === 'invitation'
          ? { sql: 'email = ?', params: [token.email] }
          : token.userId === null
            ? { sql: 'user_id is null', params: [] }
            : { sql: 'user_id = ?', params: [token.userId] };
      const sql = `with replaced as (
    delete from ${table} where tenant_id = ? and kind = ? and ${subject.sql}
)
insert into ${table} (id, kind, tenant_id, user_id, email, role, created_by, session_id, token_hash, created_at, expires_at)
values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?::timestamptz, ?::timestamptz)`;
      // Two issues for one subject at once would each delete what they see (not the other's uncommitted
      // row) and both insert: two live tokens. A transaction-scoped advisory lock on the subject makes them
      // take turns, and the statement after it sees the other's committed row.
      const subjectKey = `tenant-auth/one-time-token/${token.tenantId}/${token.kind}/${token.kind === 'invitation' ? token.email : String(token.userId)}`;
      const write = async (tx: EntityManager) => {
        const inTransaction = sqlScopeOf(tx);
        await selectRows(inTransaction, 'select pg_advisory_xact_lock(hashtextextended(?, 0))', [subjectKey]);
        await affectedRows(inTransaction, sql, params);
      };
      const params = [
        token.tenantId,
        token.kind,
        ...subject.params,
        token.id,
        token.kind,
        token.tenantId,
        token.userId,
        token.email,
        token.role,
        token.createdBy,
        token.sessionId,
        token.tokenHash,
        token.createdAt.toISOString(),
        token.expiresAt.toISOString(),
      ];
      try {
        if (scoped.isInTransaction()) await write(scoped);
        else await scoped.fork().transactional((tx) => write(tx));
      } catch (err) {
        throw toStoreError(err);
      }
    },
  };
}
