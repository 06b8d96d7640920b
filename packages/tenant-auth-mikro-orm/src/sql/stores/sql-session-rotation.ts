import { isUuid } from 'tenant-auth-core';
import type { SessionRotation, SessionStore } from 'tenant-auth-core/store-kit';
import { webhookPayloadOf } from 'tenant-auth-core/store-kit';
import type { AuditEventRecord } from '../core-types.js';
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
import { textArrayLiteral } from '../statements.js';
import { guarded } from '../store-errors.js';
import { tableOf } from '../tables.js';
import { auditEventInsert } from './sql-audit-event-store.js';

/**
 * The part of a rotation statement that inserts `event` from the rows its `rotated` CTE returns (so the
 * record exists if and only if the rotation happened), and its parameters; nothing without an event. The
 * same statement queues the event's webhook deliveries (docs/http-api.md, "Webhooks": every audit event is
 * queued in the transaction that writes it), one per enabled endpoint of the tenant that subscribes to its
 * type, with ids as `webhookDeliveryIdOf` makes them: no statement is added.
 */
function auditedBy(
  driver: SqlDriver,
  event: AuditEventRecord | undefined,
): { sql: string; params: unknown[] } {
  if (!event) return { sql: '', params: [] };
  const insert = auditEventInsert(event);
  return {
    sql: `,
audited as (
  insert into ${tableOf(driver, 'tenant_auth_audit_event')}
    ${insert.columns}
  select ${insert.values} from rotated
),
queued as (
  insert into ${tableOf(driver, 'tenant_auth_webhook_delivery')} (id, tenant_id, endpoint_id, event_id, type, payload,
    attempt, status, response_status, created_at, last_attempt_at, next_attempt_at, locked_until)
  select (substr(w.event_id, 1, 19) || '8' || substr(w.h, 1, 3) || '-' || substr(w.h, 4, 12))::uuid,
    w.tenant_id, w.endpoint_id, w.event_id::uuid, ?, ?, 0, 'pending', null, ?::timestamptz, null, ?::timestamptz, null
  from (select e.tenant_id, e.id as endpoint_id, ?::text as event_id, md5(?::text || '|' || e.id::text) as h
    from ${tableOf(driver, 'tenant_auth_webhook_endpoint')} e
    where exists (select 1 from rotated) and e.tenant_id = ? and e.enabled
      and e.events && array['*', ?]::text[]) w
)`,
    params: [
      ...insert.params,
      event.type,
      webhookPayloadOf(event),
      event.at.toISOString(),
      event.at.toISOString(),
      event.id,
      event.id,
      event.tenantId,
      event.type,
    ],
  };
}

/**
 * The rotations of `sqlSessionStore`: `rotate` (compare-and-set on the current hash) and
 * `rotateCurrent` (the same with the rest of a refresh's conditions and the user, in one statement).
 */
export function sessionRotation(
  driver: SqlDriver,
): Pick<SessionStore, 'rotate' | 'rotateCurrent'> & Required<Pick<SessionStore, 'reauthenticate'>> {
  return {
    ...sessionReauthentication(driver),
    async rotate(
      tenantId: string,
      sessionId: string,
      expectedRefreshHash: string,
      next: SessionRotation,
      event?: AuditEventRecord,
    ) {
      if (!isUuid(tenantId) || !isUuid(sessionId)) return false;
      // Compare-and-set in one statement: the row lock serialises racing rotations, and the rows changed
      // say who won. The WHERE clause pins the current hash to the expected one, so that is what becomes
      // the previous hash. The audit event, if any, is inserted by the same statement from the updated
      // row: it exists if and only if the rotation happened.
      const update = `update ${tableOf(driver, 'tenant_auth_session')} set
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
      return guarded(async () => {
        if (!event) return (await driver.execute(update, params)) === 1;
        const audited = auditedBy(driver, event);
        const rows = await driver.rows<{ rotated: number | string }>(
          `with rotated as (${update} returning id)${audited.sql}
select count(*) as rotated from rotated`,
          [...params, ...audited.params],
        );
        return Number(rows[0]?.rotated ?? 0) === 1;
      });
    },

    async rotateCurrent(tenantId, expected, next, event) {
      if (!isUuid(tenantId) || !isUuid(expected.sessionId) || !isUuid(expected.userId)) return null;
      const sessionTable = tableOf(driver, 'tenant_auth_session');
      const userTable = tableOf(driver, 'tenant_auth_user');
      const audited = auditedBy(driver, event);
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
      return guarded(async () => {
        const [row] = await driver.rows<SessionRow & { user: UserRow | string | null }>(sql, params);
        if (!row) return null;
        const user = userOf(row);
        // The statement only rotates when the user exists, in the same snapshot: no user here means the
        // database broke that promise, and null would claim nothing changed.
        if (!user) throw new Error('the rotated session came back without its user');
        return { session: toSession(row), user: toUser(user) };
      });
    },
  };
}

/** `reauthenticate` of `sqlSessionStore`: a rotation that also sets `amr` and `auth_time`. */
function sessionReauthentication(driver: SqlDriver): Required<Pick<SessionStore, 'reauthenticate'>> {
  return {
    async reauthenticate(tenantId, sessionId, userId, next, event) {
      if (!isUuid(tenantId) || !isUuid(sessionId) || !isUuid(userId)) return null;
      const audited = auditedBy(driver, event);
      // One statement: the active session of this user rotates to the new token and takes the new amr and
      // auth_time; the audit record goes in from the updated row, so it exists if and only if it did.
      const sql = `with rotated as (
  update ${tableOf(driver, 'tenant_auth_session')} set
    previous_refresh_hash = refresh_hash, refresh_hash = ?, refresh_jti = ?, refresh_issued_at = ?::timestamptz,
    refresh_expires_at = ?::timestamptz, expires_at = ?::timestamptz, last_used_at = ?::timestamptz,
    rotated_at = ?::timestamptz, amr = ?::text[], auth_time = ?::timestamptz
  where id = ? and tenant_id = ? and user_id = ? and revoked_at is null and expires_at > ?::timestamptz
  returning ${SESSION_COLUMNS}
)${audited.sql}
select * from rotated`;
      return guarded(async () => {
        const [row] = await driver.rows<SessionRow>(sql, [
          next.refreshHash,
          next.refreshJti,
          next.refreshIssuedAt.toISOString(),
          next.refreshExpiresAt.toISOString(),
          next.expiresAt.toISOString(),
          next.lastUsedAt.toISOString(),
          next.rotatedAt.toISOString(),
          textArrayLiteral(next.amr),
          next.authTime.toISOString(),
          sessionId,
          tenantId,
          userId,
          next.lastUsedAt.toISOString(),
          ...audited.params,
        ]);
        return row ? toSession(row) : null;
      });
    },
  };
}
