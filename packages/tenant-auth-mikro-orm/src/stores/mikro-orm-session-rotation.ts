import { isUuid } from 'tenant-auth-core';
import type { SessionRotation, SessionStore } from 'tenant-auth-core/store-kit';
import { tenantAuthAuditEventSchema } from '../entities/audit-event.js';
import { tenantAuthSessionSchema } from '../entities/session.js';
import { tenantAuthUserSchema } from '../entities/user.js';
import { qualifiedTableName } from '../entity-manager-source.js';
import { toStoreError } from '../to-store-error.js';
import type { AuditEventRecord } from './core-types.js';
import { SESSION_COLUMNS, type SessionRow, toSession, toUser, USER_COLUMNS, type UserRow } from './rows.js';
import { affectedRows, type SqlScope, selectRows } from './sql.js';

/**
 * The part of a rotation statement that inserts `event` from the rows its `rotated` CTE returns (so the
 * record exists if and only if the rotation happened), and its parameters; nothing without an event.
 */
function auditedBy(
  scoped: SqlScope,
  event: AuditEventRecord | undefined,
): { sql: string; params: unknown[] } {
  if (!event) return { sql: '', params: [] };
  return {
    sql: `,
audited as (
  insert into ${qualifiedTableName(scoped.em, tenantAuthAuditEventSchema)}
    (id, tenant_id, type, at, actor_id, subject_id, session_id, ip_address, user_agent, request_id)
  select ?, ?, ?, ?::timestamptz, ?, ?, ?, ?, ?, ? from rotated
)`,
    params: [
      event.id,
      event.tenantId,
      event.type,
      event.at.toISOString(),
      event.actorId,
      event.subjectId,
      event.sessionId,
      event.ipAddress,
      event.userAgent,
      event.requestId,
    ],
  };
}

/**
 * The rotations of `mikroOrmSessionStore`: `rotate` (compare-and-set on the current hash) and
 * `rotateCurrent` (the same with the rest of a refresh's conditions and the user, in one statement).
 */
export function sessionRotation(
  scope: () => SqlScope,
): Pick<SessionStore, 'rotate' | 'rotateCurrent' | 'reauthenticate'> {
  return {
    ...sessionReauthentication(scope),
    async rotate(
      tenantId: string,
      sessionId: string,
      expectedRefreshHash: string,
      next: SessionRotation,
      event?: AuditEventRecord,
    ) {
      if (!isUuid(tenantId) || !isUuid(sessionId)) return false;
      const scoped = scope();
      // Compare-and-set in one statement: the row lock serialises racing rotations, and the rows changed
      // say who won. The WHERE clause pins the current hash to the expected one, so that is what becomes
      // the previous hash. The audit event, if any, is inserted by the same statement from the updated
      // row: it exists if and only if the rotation happened.
      const update = `update ${qualifiedTableName(scoped.em, tenantAuthSessionSchema)} set
  refresh_hash = ?, previous_refresh_hash = ?, refresh_jti = ?, refresh_issued_at = ?::timestamptz,
  refresh_expires_at = ?::timestamptz, expires_at = ?::timestamptz, last_used_at = ?::timestamptz,
  rotated_at = ?::timestamptz
  where id = ? and tenant_id = ? and refresh_hash = ? and revoked_at is null`;
      const params: unknown[] = [
        next.refreshHash,
        expectedRefreshHash,
        next.refreshJti,
        next.refreshIssuedAt.toISOString(),
        next.refreshExpiresAt.toISOString(),
        next.expiresAt.toISOString(),
        next.lastUsedAt.toISOString(),
        next.rotatedAt.toISOString(),
        sessionId,
        tenantId,
        expectedRefreshHash,
      ];
      try {
        if (!event) return (await affectedRows(scoped, update, params)) === 1;
        const audited = auditedBy(scoped, event);
        const rows = await selectRows<{ rotated: number | string }>(
          scoped,
          `with rotated as (${update} returning id)${audited.sql}
select count(*) as rotated from rotated`,
          [...params, ...audited.params],
        );
        return Number(rows[0]?.rotated ?? 0) === 1;
      } catch (err) {
        throw toStoreError(err);
      }
    },

    async rotateCurrent(tenantId, expected, next, event) {
      if (!isUuid(tenantId) || !isUuid(expected.sessionId) || !isUuid(expected.userId)) return null;
      const scoped = scope();
      const sessionTable = qualifiedTableName(scoped.em, tenantAuthSessionSchema);
      const userTable = qualifiedTableName(scoped.em, tenantAuthUserSchema);
      const audited = auditedBy(scoped, event);
      // The refresh hot path in one statement: rotate by compare-and-set on the current hash, only for an
      // active session of this user (which must still exist) whose absolute expiry the new one does not
      // pass; insert the audit record from the rotated row; return the row with its user as one JSON value.
      // Everything reads the statement's one snapshot, and the row lock serialises racing rotations.
      const sql = `with rotated as (
  update ${sessionTable} as s set
    refresh_hash = ?, previous_refresh_hash = ?, refresh_jti = ?, refresh_issued_at = ?::timestamptz,
    refresh_expires_at = ?::timestamptz, expires_at = ?::timestamptz, last_used_at = ?::timestamptz,
    rotated_at = ?::timestamptz
  where s.id = ? and s.tenant_id = ? and s.user_id = ? and s.refresh_hash = ? and s.revoked_at is null
    and s.expires_at > ?::timestamptz and s.absolute_expires_at >= ?::timestamptz
    and exists (select 1 from ${userTable} u where u.id = s.user_id and u.tenant_id = s.tenant_id)
  returning ${SESSION_COLUMNS}
)${audited.sql}
select r.*, (select row_to_json(u) from (select ${USER_COLUMNS}
    from ${userTable} where id = r."userId" and tenant_id = r."tenantId") u) as "user"
  from rotated r`;
      const params: unknown[] = [
        next.refreshHash,
        expected.refreshHash,
        next.refreshJti,
        next.refreshIssuedAt.toISOString(),
        next.refreshExpiresAt.toISOString(),
        next.expiresAt.toISOString(),
        next.lastUsedAt.toISOString(),
        next.rotatedAt.toISOString(),
        expected.sessionId,
        tenantId,
        expected.userId,
        expected.refreshHash,
        expected.activeAt.toISOString(),
        next.expiresAt.toISOString(),
        ...audited.params,
      ];
      try {
        const [row] = await selectRows<SessionRow & { user: UserRow | string | null }>(scoped, sql, params);
        if (!row) return null;
        // pg and PGlite parse `json` into an object; an application may have replaced that parser.
        const user = typeof row.user === 'string' ? (JSON.parse(row.user) as UserRow | null) : row.user;
        // The statement only rotates when the user exists, in the same snapshot: no user here means the
        // database broke that promise, and null would claim nothing changed.
        if (!user) throw new Error('the rotated session came back without its user');
        return { session: toSession(row), user: toUser(user) };
      } catch (err) {
        throw toStoreError(err);
      }
    },
  };
}

/** `reauthenticate` of `mikroOrmSessionStore`: a rotation that also sets `amr` and `auth_time`. */
function sessionReauthentication(scope: () => SqlScope): Pick<SessionStore, 'reauthenticate'> {
  return {
    async reauthenticate(tenantId, sessionId, userId, next, event) {
      if (!isUuid(tenantId) || !isUuid(sessionId) || !isUuid(userId)) return null;
      const scoped = scope();
      const audited = auditedBy(scoped, event);
      // One statement: the active session of this user rotates to the new token and takes the new amr and
      // auth_time; the audit record goes in from the updated row, so it exists if and only if it did.
      const sql = `with rotated as (
  update ${qualifiedTableName(scoped.em, tenantAuthSessionSchema)} set
    previous_refresh_hash = refresh_hash, refresh_hash = ?, refresh_jti = ?, refresh_issued_at = ?::timestamptz,
    refresh_expires_at = ?::timestamptz, expires_at = ?::timestamptz, last_used_at = ?::timestamptz,
    rotated_at = ?::timestamptz, amr = ?::text[], auth_time = ?::timestamptz
  where id = ? and tenant_id = ? and user_id = ? and revoked_at is null and expires_at > ?::timestamptz
  returning ${SESSION_COLUMNS}
)${audited.sql}
select * from rotated`;
      try {
        const [row] = await selectRows<SessionRow>(scoped, sql, [
          next.refreshHash,
          next.refreshJti,
          next.refreshIssuedAt.toISOString(),
          next.refreshExpiresAt.toISOString(),
          next.expiresAt.toISOString(),
          next.lastUsedAt.toISOString(),
          next.rotatedAt.toISOString(),
          `{${next.amr.join(',')}}`,
          next.authTime.toISOString(),
          sessionId,
          tenantId,
          userId,
          next.lastUsedAt.toISOString(),
          ...audited.params,
        ]);
        return row ? toSession(row) : null;
      } catch (err) {
        throw toStoreError(err);
      }
    },
  };
}
