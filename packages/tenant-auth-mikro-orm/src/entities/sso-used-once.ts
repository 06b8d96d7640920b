import { defineEntity, type EntitySchema, type InferEntity, type PrimaryKeyProp, p } from '@mikro-orm/core';
import type { Mutual } from './mutual.js';
import { tenantAuthTenantSchema } from './tenant.js';

/**
 * A row of `tenant_auth_sso_used_once`, as {@link TenantAuthSsoUsedOnce} maps it.
 *
 * @example
 * const marks = await em.count(TenantAuthSsoUsedOnce, { tenantId, kind: 'state' });
 */
export interface TenantAuthSsoUsedOnceEntity {
  /** The primary key, for MikroORM's typings: `(tenantId, kind, idHash)`, as MikroORM infers it. */
  [PrimaryKeyProp]?: ('tenantId' | 'kind' | 'idHash')[];
  tenantId: string;
  /** `state` (a finished SSO sign-in's state) or `assertion` (a SAML assertion's ID). */
  kind: 'state' | 'assertion';
  /** SHA-256 (hex) of the id. */
  idHash: string;
  /** When the mark may be deleted (the id cannot be presented any more). */
  expiresAt: Date;
}

/** The schema as defined, with MikroORM's inferred types: what the stores query with. Internal. */
export const tenantAuthSsoUsedOnceSchema = defineEntity({
  name: 'TenantAuthSsoUsedOnce',
  tableName: 'tenant_auth_sso_used_once',
  properties: {
    tenantId: () =>
      p.manyToOne(tenantAuthTenantSchema).mapToPk().primary().fieldName('tenant_id').deleteRule('cascade'),
    kind: p
      .enum(['state', 'assertion'] as const)
      .primary()
      .fieldName('kind'),
    idHash: p.string().columnType('char(64)').primary().fieldName('id_hash'),
    expiresAt: p.datetime().fieldName('expires_at').index('tenant_auth_sso_used_once_expires_at_idx'),
  },
});

/**
 * The single-use table of SSO, `tenant_auth_sso_used_once`: the states of finished sign-ins and the
 * SAML assertion IDs seen, by tenant, kind and SHA-256 of the id (the primary key), until they expire;
 * going with the tenant. Index: `expires_at` (cleanup).
 *
 * @example
 * const marks = await orm.em.fork().count(TenantAuthSsoUsedOnce, {});
 */
export const TenantAuthSsoUsedOnce: EntitySchema<TenantAuthSsoUsedOnceEntity> =
  tenantAuthSsoUsedOnceSchema as unknown as EntitySchema<TenantAuthSsoUsedOnceEntity>;

true satisfies Mutual<TenantAuthSsoUsedOnceEntity, InferEntity<typeof tenantAuthSsoUsedOnceSchema>>;
