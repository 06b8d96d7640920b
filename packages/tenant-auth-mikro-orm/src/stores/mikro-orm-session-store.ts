import type { EntityManager } from '@mikro-orm/core';
import type { Session, SessionRotation, SessionStore } from 'tenant-auth-core';
import { TenantAuthSession } from '../entities/session.js';
import { type EntityManagerSource, qualifiedTableName, rootEntityManager } from '../entity-manager-source.js';
import { toStoreError } from '../to-store-error.js';
import { isUuid } from '../uuid.js';

interface SessionRow {
  id: string;
  tenantId: string;
  userId: string;
  deviceInfo: string;
  ipAddress?: string | null;
  userAgent?: string | null;
  createdAt: Date;
  lastUsedAt: Date;
  expiresAt: Date;
  absoluteExpiresAt: Date;
  revokedAt?: Date | null;
  refreshHash: string;
  refreshJti: string;
  refreshIssuedAt: Date;
  refreshExpiresAt: Date;
  previousRefreshHash?: string | null;
  rotatedAt?: Date | null;
}

const dateOrNull = (value: Date | null | undefined): Date | null => (value == null ? null : new Date(value));

const toSession = (row: SessionRow): Session => ({
  id: row.id,
  tenantId: row.tenantId,
  userId: row.userId,
  deviceInfo: row.deviceInfo,
  ipAddress: row.ipAddress ?? null,
  userAgent: row.userAgent ?? null,
  createdAt: new Date(row.createdAt),
  lastUsedAt: new Date(row.lastUsedAt),
  expiresAt: new Date(row.expiresAt),
  absoluteExpiresAt: new Date(row.absoluteExpiresAt),
  revokedAt: dateOrNull(row.revokedAt),
  refreshHash: row.refreshHash,
  refreshJti: row.refreshJti,
  refreshIssuedAt: new Date(row.refreshIssuedAt),
  refreshExpiresAt: new Date(row.refreshExpiresAt),
  previousRefreshHash: row.previousRefreshHash ?? null,
  rotatedAt: dateOrNull(row.rotatedAt),
});

/**
 * `SessionStore` on MikroORM (PostgreSQL or PGlite). Every read and write is scoped by tenant in SQL.
 * Rotation is one conditional `UPDATE ... WHERE id = ? AND tenant_id = ? AND refresh_hash = ? AND
 * revoked_at IS NULL`: the database serialises concurrent updates of the row, and the affected-row count
 * says who won. Revocations are single `UPDATE`s; cleanup deletes at most `batchSize` rows per call,
 * oldest expiry first, skipping rows locked by others.
 *
 * @example
 * const sessions = new MikroOrmSessionStore(orm);
 * const won = await sessions.rotate(tenantId, sessionId, presentedHash, next);
 * while ((await sessions.deleteExpired({ expiredBefore: now, revokedBefore: now, batchSize: 1000 })) === 1000) {}
 */
export class MikroOrmSessionStore implements SessionStore {
  readonly #root: EntityManager;

  constructor(source: EntityManagerSource) {
    this.#root = rootEntityManager(source);
  }

  #em(): EntityManager {
    return this.#root.fork();
  }

  async create(session: Session): Promise<Session> {
    try {
      await this.#em().insert(TenantAuthSession, {
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
      });
    } catch (err) {
      throw toStoreError(err);
    }
    return toSession(session);
  }

  async findById(tenantId: string, sessionId: string): Promise<Session | null> {
    if (!isUuid(tenantId) || !isUuid(sessionId)) return null;
    try {
      const row = await this.#em().findOne(
        TenantAuthSession,
        { id: sessionId, tenantId },
        { disableIdentityMap: true },
      );
      return row ? toSession(row) : null;
    } catch (err) {
      throw toStoreError(err);
    }
  }

  async findByRefreshHash(tenantId: string, refreshHash: string): Promise<Session | null> {
    if (!isUuid(tenantId)) return null;
    try {
      const rows = await this.#em().find(
        TenantAuthSession,
        { tenantId, $or: [{ refreshHash }, { previousRefreshHash: refreshHash }] },
        { disableIdentityMap: true, limit: 2 },
      );
      // Hashes of random tokens do not collide; should they, the session whose current token it is wins.
      const row = rows.find((r) => r.refreshHash === refreshHash) ?? rows[0];
      return row ? toSession(row) : null;
    } catch (err) {
      throw toStoreError(err);
    }
  }

  async rotate(
    tenantId: string,
    sessionId: string,
    expectedRefreshHash: string,
    next: SessionRotation,
  ): Promise<boolean> {
    if (!isUuid(tenantId) || !isUuid(sessionId)) return false;
    try {
      const affected = await this.#em().nativeUpdate(
        TenantAuthSession,
        { id: sessionId, tenantId, refreshHash: expectedRefreshHash, revokedAt: null },
        {
          refreshHash: next.refreshHash,
          // The WHERE clause pins the current hash to the expected one, so this is the old current hash.
          previousRefreshHash: expectedRefreshHash,
          refreshJti: next.refreshJti,
          refreshIssuedAt: next.refreshIssuedAt,
          refreshExpiresAt: next.refreshExpiresAt,
          expiresAt: next.expiresAt,
          lastUsedAt: next.lastUsedAt,
          rotatedAt: next.rotatedAt,
        },
      );
      return affected === 1;
    } catch (err) {
      throw toStoreError(err);
    }
  }

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
      const affected = await this.#em().nativeUpdate(TenantAuthSession, where, { revokedAt: at });
      return affected === 1;
    } catch (err) {
      throw toStoreError(err);
    }
  }

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
      return await this.#em().nativeUpdate(TenantAuthSession, where, { revokedAt: at });
    } catch (err) {
      throw toStoreError(err);
    }
  }

  async listActiveForUser(tenantId: string, userId: string, now: Date): Promise<Session[]> {
    if (!isUuid(tenantId) || !isUuid(userId)) return [];
    try {
      const rows = await this.#em().find(
        TenantAuthSession,
        { tenantId, userId, revokedAt: null, expiresAt: { $gt: now } },
        { disableIdentityMap: true, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] },
      );
      return rows.map(toSession);
    } catch (err) {
      throw toStoreError(err);
    }
  }

  async deleteExpired(options: {
    expiredBefore: Date;
    revokedBefore: Date;
    batchSize: number;
  }): Promise<number> {
    const { expiredBefore, revokedBefore, batchSize } = options;
    if (!Number.isInteger(batchSize) || batchSize < 1)
      throw new TypeError('batchSize must be a positive integer');
    const em = this.#em();
    const table = qualifiedTableName(em, TenantAuthSession);
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
      const result = await em
        .getConnection()
        .execute(
          sql,
          [expired, batchSize, revokedBefore.toISOString(), expired, batchSize, batchSize],
          'run',
        );
      return Number((result as { affectedRows?: unknown }).affectedRows ?? 0);
    } catch (err) {
      throw toStoreError(err);
    }
  }
}
