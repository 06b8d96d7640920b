import { defineEntity, type EntitySchema, type InferEntity, type PrimaryKeyProp, p } from '@mikro-orm/core';
import type { Mutual } from './mutual.js';
import { tenantAuthTenantSchema } from './tenant.js';
import { tenantAuthUserSchema } from './user.js';

/**
 * A row of `tenant_auth_api_key`, as {@link TenantAuthApiKey} maps it.
 *
 * @example
 * const active = await em.count(TenantAuthApiKey, { tenantId, revokedAt: null });
 */
export interface TenantAuthApiKeyEntity {
  /** The primary key, for MikroORM's typings. */
  [PrimaryKeyProp]?: 'id';
  /** UUIDv7. */
  id: string;
  tenantId: string;
  name: string;
  role: string;
  /** The first 12 characters of the secret (`tak_…`). */
  prefix: string;
  /** SHA-256 (hex) of the secret; the secret itself is never stored. Unique. */
  secretHash: string;
  createdAt: Date;
  /** The administrator who created it; `null` once that account is deleted. */
  createdBy?: string | null;
  expiresAt?: Date | null;
  lastUsedAt?: Date | null;
  revokedAt?: Date | null;
}

/** The schema as defined, with MikroORM's inferred types: what the stores query with. Internal. */
export const tenantAuthApiKeySchema = defineEntity({
  name: 'TenantAuthApiKey',
  tableName: 'tenant_auth_api_key',
  properties: {
    id: p.uuid().primary().fieldName('id'),
    tenantId: () =>
      p.manyToOne(tenantAuthTenantSchema).mapToPk().fieldName('tenant_id').deleteRule('cascade'),
    name: p.text().fieldName('name'),
    role: p.text().fieldName('role'),
    prefix: p.text().fieldName('prefix'),
    secretHash: p
      .string()
      .columnType('char(64)')
      .fieldName('secret_hash')
      .unique('tenant_auth_api_key_secret_hash_unique'),
    createdAt: p.datetime().fieldName('created_at'),
    createdBy: () =>
      p.manyToOne(tenantAuthUserSchema).mapToPk().nullable().fieldName('created_by').deleteRule('set null'),
    expiresAt: p.datetime().nullable().fieldName('expires_at'),
    lastUsedAt: p.datetime().nullable().fieldName('last_used_at'),
    revokedAt: p.datetime().nullable().fieldName('revoked_at'),
  },
  indexes: [{ name: 'tenant_auth_api_key_tenant_idx', properties: ['tenantId', 'createdAt'] }],
});

/**
 * The API key table, `tenant_auth_api_key` (1.2): one row per key, found by the SHA-256 of its secret
 * (unique); going with its tenant (`on delete cascade`); `created_by` becomes null when its creator is
 * deleted (the key belongs to the tenant). Index: `(tenant_id, created_at)` (the tenant's list).
 *
 * @example
 * const keys = await orm.em.fork().find(TenantAuthApiKey, { tenantId, revokedAt: null });
 */
export const TenantAuthApiKey: EntitySchema<TenantAuthApiKeyEntity> =
  tenantAuthApiKeySchema as unknown as EntitySchema<TenantAuthApiKeyEntity>;

true satisfies Mutual<TenantAuthApiKeyEntity, InferEntity<typeof tenantAuthApiKeySchema>>;
