import { isUuid } from 'tenant-auth-core';
import type { OneTimeTokenRecord, OneTimeTokenStore, Role } from '../core-types.js';
import type { SqlDriver } from '../sql-driver.js';
import { checkBatchSize, consumeUnexpired, deleteBatch } from '../statements.js';
import { guarded } from '../store-errors.js';
import { tableOf } from '../tables.js';

/** A one-time token row as the stores' SQL selects it with {@link ONE_TIME_TOKEN_COLUMNS}. */
interface OneTimeTokenRow {
  id: string;
  kind: string;
  tenantId: string;
  userId?: string | null;
  email: string;
  role?: string | null;
  createdBy?: string | null;
  sessionId?: string | null;
  tokenHash: string;
  createdAt: Date | string;
  expiresAt: Date | string;
}

/** The columns of `tenant_auth_one_time_token`, named as {@link OneTimeTokenRow} names them. */
const ONE_TIME_TOKEN_COLUMNS = `id, kind, tenant_id as "tenantId", user_id as "userId", email, role,
  created_by as "createdBy", session_id as "sessionId", token_hash as "tokenHash", created_at as "createdAt",
  expires_at as "expiresAt"`;

const toOneTimeToken = (row: OneTimeTokenRow): OneTimeTokenRecord => ({
  id: row.id,
  kind: row.kind as OneTimeTokenRecord['kind'],
  tenantId: row.tenantId,
  userId: row.userId ?? null,
  email: row.email,
  role: (row.role ?? null) as Role | null,
  createdBy: row.createdBy ?? null,
  sessionId: row.sessionId ?? null,
  tokenHash: row.tokenHash,
  createdAt: new Date(row.createdAt),
  expiresAt: new Date(row.expiresAt),
});

/**
 * @internal `OneTimeTokenStore` in SQL. Issuing is one statement (a `DELETE` of the older tokens of the
 * same subject in a CTE, then the `INSERT`), so it is whole even outside a transaction. Consuming is one
 * `DELETE ... WHERE kind = ? AND token_hash = ? AND expires_at > ? RETURNING`: of concurrent consumers the
 * database lets one delete the row, and the others find nothing. Lookups by hash go through the unique
 * index on `token_hash`; cleanup deletes in batches through the `expires_at` index, skipping locked rows.
 */
export function sqlOneTimeTokenStore(driver: SqlDriver): OneTimeTokenStore {
  const table = () => tableOf(driver, 'tenant_auth_one_time_token');
  return {
    ...oneTimeTokenIssuing(driver),
    find: (kind, tokenHash, now) =>
      guarded(async () => {
        const [row] = await driver.rows<OneTimeTokenRow>(
          `select ${ONE_TIME_TOKEN_COLUMNS} from ${table()}
  where kind = ? and token_hash = ? and expires_at > ?::timestamptz`,
          [kind, tokenHash, now.toISOString()],
        );
        return row ? toOneTimeToken(row) : null;
      }),
    consume: (kind, tokenHash, now) =>
      guarded(async () => {
        const consumed = {
          table: table(),
          match: { kind, token_hash: tokenHash },
          columns: ONE_TIME_TOKEN_COLUMNS,
        };
        const row = await consumeUnexpired<OneTimeTokenRow>(driver, consumed, now);
        return row ? toOneTimeToken(row) : null;
      }),
    listPending: (tenantId, kind, now, options) =>
      guarded(async () => {
        if (!isUuid(tenantId)) return [];
        const limit = options?.limit === undefined ? [] : [options.limit];
        const rows = await driver.rows<OneTimeTokenRow>(
          `select ${ONE_TIME_TOKEN_COLUMNS} from ${table()}
  where tenant_id = ? and kind = ? and expires_at > ?::timestamptz
  order by created_at desc, id desc${limit.length ? ' limit ?' : ''}`,
          [tenantId, kind, now.toISOString(), ...limit],
        );
        return rows.map(toOneTimeToken);
      }),
    revoke: (tenantId, kind, id) =>
      guarded(async () => {
        if (!isUuid(tenantId) || !isUuid(id)) return false;
        const sql = `delete from ${table()} where id = ? and tenant_id = ? and kind = ?`;
        return (await driver.execute(sql, [id, tenantId, kind])) === 1;
      }),
    revokeForUser: (tenantId, userId, kind) =>
      guarded(async () => {
        if (!isUuid(tenantId) || !isUuid(userId)) return 0;
        const sql = `delete from ${table()} where tenant_id = ? and user_id = ? and kind = ?`;
        return driver.execute(sql, [tenantId, userId, kind]);
      }),
    async deleteExpired({ expiredBefore, batchSize }) {
      checkBatchSize(batchSize);
      const batch = {
        table: table(),
        key: 'id',
        where: 'expires_at < ?::timestamptz',
        orderBy: 'expires_at, id',
        params: [expiredBefore.toISOString()],
      };
      return guarded(() => deleteBatch(driver, batch, batchSize));
    },
  };
}

/**
 * `issue` of `sqlOneTimeTokenStore`: the subject's older tokens replaced by the new one, under an advisory
 * lock on the subject.
 */
function oneTimeTokenIssuing(driver: SqlDriver): Pick<OneTimeTokenStore, 'issue'> {
  return {
    issue: (token: OneTimeTokenRecord) =>
      guarded(async () => {
        const table = tableOf(driver, 'tenant_auth_one_time_token');
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
        // Two issues for one subject at once would each delete what they see (not the other's uncommitted
        // row) and both insert: two live tokens. A transaction-scoped advisory lock on the subject makes them
        // take turns, and the statement after it sees the other's committed row. The issue runs in a
        // transaction: the driver's, or a new one.
        const subjectKey = `tenant-auth/one-time-token/${token.tenantId}/${token.kind}/${token.kind === 'invitation' ? token.email : String(token.userId)}`;
        await driver.transaction(async (tx) => {
          await tx.rows('select pg_advisory_xact_lock(hashtextextended(?, 0))', [subjectKey]);
          await tx.execute(sql, params);
        });
      }),
  };
}
