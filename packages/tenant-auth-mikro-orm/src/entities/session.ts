import { defineEntity, p } from '@mikro-orm/core';
import { TenantAuthTenant } from './tenant.js';
import { TenantAuthUser } from './user.js';

/**
 * The session table, `tenant_auth_session`. Indexes: the current and the previous refresh hash (refresh
 * lookups), `(user_id, tenant_id, expires_at)` (listing and revoking a user's sessions), `expires_at`
 * and `revoked_at` (cleanup).
 *
 * @example
 * const open = await orm.em.fork().count(TenantAuthSession, { revokedAt: null });
 */
export const TenantAuthSession = defineEntity({
  name: 'TenantAuthSession',
  tableName: 'tenant_auth_session',
  properties: {
    id: p.uuid().primary().fieldName('id'),
    tenantId: () => p.manyToOne(TenantAuthTenant).mapToPk().fieldName('tenant_id').deleteRule('cascade'),
    userId: () => p.manyToOne(TenantAuthUser).mapToPk().fieldName('user_id').deleteRule('cascade'),
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
  },
  indexes: [{ name: 'tenant_auth_session_user_active_idx', properties: ['userId', 'tenantId', 'expiresAt'] }],
});
