import type { EntityManager } from '@mikro-orm/core';
import { isUuid } from 'tenant-auth-core';
import type { SessionRecord, SessionStore, SessionWithUser } from 'tenant-auth-core/store-kit';
import { tenantAuthSessionSchema } from '../entities/session.js';
import { tenantAuthUserSchema } from '../entities/user.js';
import { qualifiedTableName } from '../entity-manager-source.js';
import { toStoreError } from '../to-store-error.js';
import { sessionRotation } from './mikro-orm-session-rotation.js';
import { SESSION_COLUMNS, type SessionRow, toSession, toUser, USER_COLUMNS, type UserRow } from './rows.js';
import { affectedRows, checkBatchSize, type SqlScope, selectRows } from './sql.js';

/**
 * @internal `SessionStore` on MikroORM (PostgreSQL or PGlite). Every read and write is scoped by tenant in SQL.
 * Rotation is one conditional `UPDATE ... WHERE id = ? AND tenant_id = ? AND refresh_hash = ? AND
 * revoked_at IS NULL`: the database serialises concurrent updates of the row, and the affected-row count
 * says who won; `rotateCurrent` is the same update with the rest of a refresh's conditions, the audit
 * record and the user in one statement. Revocations are single `UPDATE`s; cleanup deletes at most `batchSize` rows per call,
 * oldest expiry first, skipping rows locked by others.
 */
export function mikroOrmSessionStore(em: () => EntityManager, scope: () => SqlScope): SessionStore {
  return { ...sessionReads(em, scope), ...sessionRotation(scope), ...sessionWrites(em, scope) };
}

/** The reads of `mikroOrmSessionStore`: by id, by refresh hash (with the user), a user's active sessions. */
function sessionReads(
  em: () => EntityManager,
  scope: () => SqlScope,
): Pick<SessionStore, 'findById' | 'findByRefreshHash' | 'listActiveForUser'> {
  return {
    async findById(tenantId: string, sessionId: string): Promise<SessionRecord | null> {
      if (!isUuid(tenantId) || !isUuid(sessionId)) return null;
      const scoped = scope();
      try {
        const [row] = await selectRows<SessionRow>(
          scoped,
          `select ${SESSION_COLUMNS} from ${qualifiedTableName(scoped.em, tenantAuthSessionSchema)} where id = ? and tenant_id = ?`,
          [sessionId, tenantId],
        );
        return row ? toSession(row) : null;
      } catch (err) {
        throw toStoreError(err);
      }
    },

    async findByRefreshHash(tenantId: string, refreshHash: string): Promise<SessionWithUser | null> {
      if (!isUuid(tenantId)) return null;
      const scoped = scope();
      try {
        // The refresh hot path: one statement through the two hash indexes, the user by primary key in
        // the same statement (as one JSON value, in the columns the user store reads), no unit of work.
        const rows = await selectRows<SessionRow & { user: UserRow | string | null }>(
          scoped,
          `select s.*, (select row_to_json(u) from (select ${USER_COLUMNS}
    from ${qualifiedTableName(scoped.em, tenantAuthUserSchema)} where id = s."userId" and tenant_id = s."tenantId") u) as "user"
  from (select ${SESSION_COLUMNS} from ${qualifiedTableName(scoped.em, tenantAuthSessionSchema)}
    where tenant_id = ? and (refresh_hash = ? or previous_refresh_hash = ?) limit 2) s`,
          [tenantId, refreshHash, refreshHash],
        );
        // Hashes of random tokens do not collide; should they, the session whose current token it is wins.
        const row = rows.find((r) => r.refreshHash === refreshHash) ?? rows[0];
        if (!row) return null;
        // pg and PGlite parse `json` into an object; an application may have replaced that parser.
        const user = typeof row.user === 'string' ? (JSON.parse(row.user) as UserRow | null) : row.user;
        return { session: toSession(row), user: user ? toUser(user) : null };
      } catch (err) {
        throw toStoreError(err);
      }
    },

    async listActiveForUser(
      tenantId: string,
      userId: string,
      now: Date,
      options?: { limit?: number },
    ): Promise<SessionRecord[]> {
      if (!isUuid(tenantId) || !isUuid(userId)) return [];
      try {
        const rows = await em().find(
          tenantAuthSessionSchema,
          { tenantId, userId, revokedAt: null, expiresAt: { $gt: now } },
          {
            disableIdentityMap: true,
            orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
            ...(options?.limit === undefined ? {} : { limit: options.limit }),
          },
        );
        return rows.map(toSession);
      } catch (err) {
        throw toStoreError(err);
      }
    },
  };
}

/** The writes of `mikroOrmSessionStore` but rotation: creating, revoking, deleting expired sessions. */
function sessionWrites(
  em: () => EntityManager,
  scope: () => SqlScope,
): Pick<
  SessionStore,
  'create' | 'revoke' | 'revokeAllForUser' | 'revokeWithoutStrongAuth' | 'deleteExpired'
> {
  return {
    ...strongAuthRevocation(scope),
    async create(session: SessionRecord): Promise<void> {
      try {
        await em().insert(tenantAuthSessionSchema, {
          id: session.id,
          tenantId: session.tenantId,
          userId: session.userId,
          deviceInfo: session.deviceInfo,
          ipAddress: session.ipAddress,
          userAgent: session.userAgent,
          createdAt: session.createdAt,
          lastUsedAt: session.lastUsedAt,
          expiresAt: session.expiresAt,
          absoluteExpiresAt: session.absoluteExpiresAt,
          revokedAt: session.revokedAt,
          refreshHash: session.refreshHash,
          refreshJti: session.refreshJti,
          refreshIssuedAt: session.refreshIssuedAt,
          refreshExpiresAt: session.refreshExpiresAt,
          previousRefreshHash: session.previousRefreshHash,
          rotatedAt: session.rotatedAt,
          amr: [...session.amr],
          authTime: session.authTime,
        });
      } catch (err) {
        throw toStoreError(err);
      }
    },

    async revoke(
      tenantId: string,
      sessionId: string,
      at: Date,
      options: { userId?: string } = {},
    ): Promise<boolean> {
      if (!isUuid(tenantId) || !isUuid(sessionId)) return false;
      if (options.userId !== undefined && !isUuid(options.userId)) return false;
      try {
        const where =
          options.userId === undefined
            ? { id: sessionId, tenantId, revokedAt: null }
            : { id: sessionId, tenantId, userId: options.userId, revokedAt: null };
        const affected = await em().nativeUpdate(tenantAuthSessionSchema, where, { revokedAt: at });
        return affected === 1;
      } catch (err) {
        throw toStoreError(err);
      }
    },

    async revokeAllForUser(
      tenantId: string,
      userId: string,
      at: Date,
      options: { exceptSessionId?: string } = {},
    ): Promise<number> {
      if (!isUuid(tenantId) || !isUuid(userId)) return 0;
      const except = options.exceptSessionId;
      try {
        const where =
          except === undefined || !isUuid(except)
            ? { tenantId, userId, revokedAt: null }
            : { tenantId, userId, revokedAt: null, id: { $ne: except } };
        return await em().nativeUpdate(tenantAuthSessionSchema, where, { revokedAt: at });
      } catch (err) {
        throw toStoreError(err);
      }
    },

    async deleteExpired(options: {
      expiredBefore: Date;
      revokedBefore: Date;
      batchSize: number;
    }): Promise<number> {
      const { expiredBefore, revokedBefore, batchSize } = options;
      checkBatchSize(batchSize);
      const scoped = scope();
      const table = qualifiedTableName(scoped.em, tenantAuthSessionSchema);
      // Oldest expiry first across both kinds: every expired row expires before every revoked-but-unexpired
      // one, so each part only needs its own first `batchSize` rows. Each part is an index range scan
      // (expires_at, revoked_at); rows another cleanup has locked are skipped, not waited for. The batch is
      // turned into an array so the DELETE itself looks the rows up by primary key, whatever the table size.
      const sql = `with expired as (
    select id, expires_at from ${table}
    where expires_at < ?::timestamptz
    order by expires_at, id limit ? for update skip locked
), revoked as (
    select id, expires_at from ${table}
    where revoked_at < ?::timestamptz and expires_at >= ?::timestamptz
    order by expires_at, id limit ? for update skip locked
), batch as (
    select id from (select * from expired union all select * from revoked) candidates
    order by expires_at, id limit ?
)
delete from ${table} where id = any(array(select id from batch))`;
      const expired = expiredBefore.toISOString();
      try {
        return await affectedRows(scoped, sql, [
          expired,
          batchSize,
          revokedBefore.toISOString(),
          expired,
          batchSize,
          batchSize,
        ]);
      } catch (err) {
        throw toStoreError(err);
      }
    },
  };
}

/** `revokeWithoutStrongAuth` of `mikroOrmSessionStore`: one `UPDATE` over the tenant's sessions. */
function strongAuthRevocation(scope: () => SqlScope): Pick<SessionStore, 'revokeWithoutStrongAuth'> {
  return {
    async revokeWithoutStrongAuth(tenantId: string, at: Date): Promise<number> {
      if (!isUuid(tenantId)) return 0;
      const scoped = scope();
      try {
        return await affectedRows(
          scoped,
          `update ${qualifiedTableName(scoped.em, tenantAuthSessionSchema)} set revoked_at = ?::timestamptz
  where tenant_id = ? and revoked_at is null and not (amr && array['mfa', 'sso']::text[])`,
          [at.toISOString(), tenantId],
        );
      } catch (err) {
        throw toStoreError(err);
      }
    },
  };
}
