import { isUuid } from 'tenant-auth-core';
import {
  authenticationOf,
  type CompleteTransactionStores,
  type SessionStore,
} from 'tenant-auth-core/store-kit';
import {
  SESSION_COLUMNS,
  type SessionRow,
  toSession,
  toUser,
  USER_COLUMNS,
  type UserRow,
  userOf,
} from '../rows.js';
import type { SqlDriver } from '../sql-driver.js';
import { checkBatchSize, isoOrNull, textArrayLiteral } from '../statements.js';
import { guarded } from '../store-errors.js';
import { tableOf } from '../tables.js';
import { sessionRotation } from './sql-session-rotation.js';

/**
 * @internal `SessionStore` in SQL. Every read and write is scoped by tenant. Rotation is one conditional
 * `UPDATE ... WHERE id = ? AND tenant_id = ? AND refresh_hash = ? AND revoked_at IS NULL`: the database
 * serialises concurrent updates of the row, and the affected-row count says who won; `rotateCurrent` is
 * the same update with the rest of a refresh's conditions, the audit record and the user in one
 * statement. Revocations are single `UPDATE`s; cleanup deletes at most `batchSize` rows per call, oldest
 * expiry first, skipping rows locked by others.
 */
export function sqlSessionStore(driver: SqlDriver): CompleteTransactionStores['sessions'] {
  return { ...sessionReads(driver), ...sessionRotation(driver), ...sessionWrites(driver) };
}

/** The reads of `sqlSessionStore`: by id, by refresh hash (with the user), a user's active sessions. */
function sessionReads(
  driver: SqlDriver,
): Pick<SessionStore, 'findById' | 'findByRefreshHash' | 'listActiveForUser'> {
  const table = () => tableOf(driver, 'tenant_auth_session');
  return {
    findById: (tenantId, sessionId) =>
      guarded(async () => {
        if (!isUuid(tenantId) || !isUuid(sessionId)) return null;
        const [row] = await driver.rows<SessionRow>(
          `select ${SESSION_COLUMNS} from ${table()} where id = ? and tenant_id = ?`,
          [sessionId, tenantId],
        );
        return row ? toSession(row) : null;
      }),
    findByRefreshHash: (tenantId, refreshHash) =>
      guarded(async () => {
        if (!isUuid(tenantId)) return null;
        // The refresh hot path: one statement through the two hash indexes, the user by primary key in
        // the same statement (as one JSON value, in the columns the user store reads).
        const rows = await driver.rows<SessionRow & { user: UserRow | string | null }>(
          `select s.*, (select row_to_json(u) from (select ${USER_COLUMNS}
    from ${tableOf(driver, 'tenant_auth_user')} where id = s."userId" and tenant_id = s."tenantId") u) as "user"
  from (select ${SESSION_COLUMNS} from ${table()}
    where tenant_id = ? and (refresh_hash = ? or previous_refresh_hash = ?) limit 2) s`,
          [tenantId, refreshHash, refreshHash],
        );
        // Hashes of random tokens do not collide; should they, the session whose current token it is wins.
        const row = rows.find((r) => r.refreshHash === refreshHash) ?? rows[0];
        if (!row) return null;
        const user = userOf(row);
        return { session: toSession(row), user: user ? toUser(user) : null };
      }),
    listActiveForUser: (tenantId, userId, now, options) =>
      guarded(async () => {
        if (!isUuid(tenantId) || !isUuid(userId)) return [];
        const limit = options?.limit === undefined ? [] : [options.limit];
        const rows = await driver.rows<SessionRow>(
          `select ${SESSION_COLUMNS} from ${table()}
  where tenant_id = ? and user_id = ? and revoked_at is null and expires_at > ?::timestamptz
  order by created_at desc, id desc${limit.length ? ' limit ?' : ''}`,
          [tenantId, userId, now.toISOString(), ...limit],
        );
        return rows.map(toSession);
      }),
  };
}

/** The writes of `sqlSessionStore` but rotation: creating, revoking, deleting expired sessions. */
function sessionWrites(
  driver: SqlDriver,
): Pick<SessionStore, 'create' | 'revoke' | 'revokeAllForUser' | 'deleteExpired'> &
  Required<Pick<SessionStore, 'revokeWithoutStrongAuth' | 'revokeHeldBySso'>> {
  const table = () => tableOf(driver, 'tenant_auth_session');
  return {
    create: (s) =>
      guarded(async () => {
        await driver.execute(
          `insert into ${table()} (id, tenant_id, user_id, device_info, ip_address, user_agent, created_at,
  last_used_at, expires_at, absolute_expires_at, revoked_at, refresh_hash, refresh_jti, refresh_issued_at,
  refresh_expires_at, previous_refresh_hash, rotated_at, amr, auth_time)
values (?, ?, ?, ?, ?, ?, ?::timestamptz, ?::timestamptz, ?::timestamptz, ?::timestamptz, ?::timestamptz, ?, ?,
  ?::timestamptz, ?::timestamptz, ?, ?::timestamptz, ?::text[], ?::timestamptz)`,
          [
            s.id,
            s.tenantId,
            s.userId,
            s.deviceInfo,
            s.ipAddress,
            s.userAgent,
            s.createdAt.toISOString(),
            s.lastUsedAt.toISOString(),
            s.expiresAt.toISOString(),
            s.absoluteExpiresAt.toISOString(),
            isoOrNull(s.revokedAt),
            s.refreshHash,
            s.refreshJti,
            s.refreshIssuedAt.toISOString(),
            s.refreshExpiresAt.toISOString(),
            s.previousRefreshHash,
            isoOrNull(s.rotatedAt),
            textArrayLiteral(authenticationOf(s).amr),
            authenticationOf(s).authTime.toISOString(),
          ],
        );
      }),
    revoke: (tenantId, sessionId, at, options = {}) =>
      guarded(async () => {
        if (!isUuid(tenantId) || !isUuid(sessionId)) return false;
        if (options.userId !== undefined && !isUuid(options.userId)) return false;
        const ofUser = options.userId === undefined ? [] : [options.userId];
        const sql = `update ${table()} set revoked_at = ?::timestamptz
  where id = ? and tenant_id = ?${ofUser.length ? ' and user_id = ?' : ''} and revoked_at is null`;
        return (await driver.execute(sql, [at.toISOString(), sessionId, tenantId, ...ofUser])) === 1;
      }),
    revokeAllForUser: (tenantId, userId, at, options = {}) =>
      guarded(async () => {
        if (!isUuid(tenantId) || !isUuid(userId)) return 0;
        const except =
          options.exceptSessionId === undefined || !isUuid(options.exceptSessionId)
            ? []
            : [options.exceptSessionId];
        const sql = `update ${table()} set revoked_at = ?::timestamptz
  where tenant_id = ? and user_id = ? and revoked_at is null${except.length ? ' and id <> ?' : ''}`;
        return driver.execute(sql, [at.toISOString(), tenantId, userId, ...except]);
      }),
    revokeWithoutStrongAuth: (tenantId, at) =>
      guarded(async () => {
        if (!isUuid(tenantId)) return 0;
        return driver.execute(
          `update ${table()} set revoked_at = ?::timestamptz
  where tenant_id = ? and revoked_at is null and not (amr && array['mfa', 'sso']::text[])`,
          [at.toISOString(), tenantId],
        );
      }),
    revokeHeldBySso: (tenantId, domains, at) =>
      guarded(async () => {
        if (!isUuid(tenantId) || domains.length === 0) return 0;
        // One statement, whatever the tenant's size: the held users' active sessions that SSO did not
        // make. The domain is what follows the last "@" of a printable-ASCII address with something
        // before it (core's domainOf).
        return driver.execute(
          `update ${table()} s set revoked_at = ?::timestamptz
  from ${tableOf(driver, 'tenant_auth_user')} u
  where s.tenant_id = ? and s.revoked_at is null and s.expires_at > ?::timestamptz
    and not ('sso' = any(s.amr))
    and u.id = s.user_id and u.tenant_id = s.tenant_id and u.role <> 'owner'
    and u.email ~ '^[!-~]+$'
    and substring(u.email from '^.+@([^@]*)$') = any(?::text[])`,
          [at.toISOString(), tenantId, at.toISOString(), textArrayLiteral([...domains])],
        );
      }),
    deleteExpired: async ({ expiredBefore, revokedBefore, batchSize }) => {
      checkBatchSize(batchSize);
      const t = table();
      // Oldest expiry first across both kinds: every expired row expires before every revoked-but-unexpired
      // one, so each part only needs its own first `batchSize` rows. Each part is an index range scan
      // (expires_at, revoked_at); rows another cleanup has locked are skipped, not waited for. The batch is
      // turned into an array so the DELETE itself looks the rows up by primary key, whatever the table size.
      const sql = `with expired as (
    select id, expires_at from ${t}
    where expires_at < ?::timestamptz
    order by expires_at, id limit ? for update skip locked
), revoked as (
    select id, expires_at from ${t}
    where revoked_at < ?::timestamptz and expires_at >= ?::timestamptz
    order by expires_at, id limit ? for update skip locked
), batch as (
    select id from (select * from expired union all select * from revoked) candidates
    order by expires_at, id limit ?
)
delete from ${t} where id = any(array(select id from batch))`;
      const expired = expiredBefore.toISOString();
      const revoked = revokedBefore.toISOString();
      return guarded(() => driver.execute(sql, [expired, batchSize, revoked, expired, batchSize, batchSize]));
    },
  };
}
