import {
  defineEntity,
  type EntitySchema,
  type InferEntity,
  type Opt,
  type PrimaryKeyProp,
  p,
} from '@mikro-orm/core';
import type { Mutual } from './mutual.js';
import { tenantAuthTenantSchema } from './tenant.js';
import { tenantAuthUserSchema } from './user.js';

/** A row of `tenant_auth_session`, as {@link TenantAuthSession} maps it.
 *
 * @example
 * const open: TenantAuthSessionEntity[] = await em.find(TenantAuthSession, { tenantId, userId, revokedAt: null });
 */
export interface TenantAuthSessionEntity {
  /** The primary key, for MikroORM's typings (`em.findOne(…, pk)`, `em.getReference`). */
  [PrimaryKeyProp]?: 'id';
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
  /** SHA-256 of the current refresh token; the token itself is never stored. */
  refreshHash: string;
  refreshJti: string;
  refreshIssuedAt: Date;
  refreshExpiresAt: Date;
  /** SHA-256 of the refresh token this one replaced (the grace window's reissue and the replay check). */
  previousRefreshHash?: string | null;
  rotatedAt?: Date | null;
  /** How the session was authenticated (`pwd`, `otp`, `hwk`, `sso`, `mfa`); a refresh never changes it. */
  amr: Opt<string[]>;
  /** When the user last proved who they are in this session. */
  authTime: Opt<Date>;
}

/** The schema as defined, with MikroORM's inferred types: what the stores query with. Internal. */
export const tenantAuthSessionSchema = defineEntity({
  name: 'TenantAuthSession',
  tableName: 'tenant_auth_session',
  properties: {
    id: p.uuid().primary().fieldName('id'),
    tenantId: () =>
      p.manyToOne(tenantAuthTenantSchema).mapToPk().fieldName('tenant_id').deleteRule('cascade'),
    userId: () => p.manyToOne(tenantAuthUserSchema).mapToPk().fieldName('user_id').deleteRule('cascade'),
    deviceInfo: p.text().fieldName('device_info'),
    ipAddress: p.text().nullable().fieldName('ip_address'),
    userAgent: p.text().nullable().fieldName('user_agent'),
    createdAt: p.datetime().fieldName('created_at'),
    lastUsedAt: p.datetime().fieldName('last_used_at'),
    expiresAt: p.datetime().fieldName('expires_at').index('tenant_auth_session_expires_at_idx'),
    absoluteExpiresAt: p.datetime().fieldName('absolute_expires_at'),
    revokedAt: p.datetime().nullable().fieldName('revoked_at').index('tenant_auth_session_revoked_at_idx'),
    refreshHash: p.text().fieldName('refresh_hash').index('tenant_auth_session_refresh_hash_idx'),
    refreshJti: p.text().fieldName('refresh_jti'),
    refreshIssuedAt: p.datetime().fieldName('refresh_issued_at'),
    refreshExpiresAt: p.datetime().fieldName('refresh_expires_at'),
    previousRefreshHash: p
      .text()
      .nullable()
      .fieldName('previous_refresh_hash')
      .index('tenant_auth_session_previous_refresh_hash_idx'),
    rotatedAt: p.datetime().nullable().fieldName('rotated_at'),
    // Defaults for rows written by other means than the stores (1.1 rows got them in the migration).
    amr: p.array().fieldName('amr').defaultRaw(`'{pwd}'`),
    authTime: p.datetime().fieldName('auth_time').defaultRaw('now()'),
  },
  indexes: [{ name: 'tenant_auth_session_user_active_idx', properties: ['userId', 'tenantId', 'expiresAt'] }],
});

/**
 * The session table, `tenant_auth_session`. Indexes: the current and the previous refresh hash (refresh
 * lookups), `(user_id, tenant_id, expires_at)` (listing and revoking a user's sessions), `expires_at`
 * and `revoked_at` (cleanup).
 *
 * @example
 * const open = await orm.em.fork().count(TenantAuthSession, { revokedAt: null });
 */
export const TenantAuthSession: EntitySchema<TenantAuthSessionEntity> =
  tenantAuthSessionSchema as unknown as EntitySchema<TenantAuthSessionEntity>;

// The published interface describes what the schema maps: same fields, same values, same primary key.
true satisfies Mutual<TenantAuthSessionEntity, InferEntity<typeof tenantAuthSessionSchema>>;
