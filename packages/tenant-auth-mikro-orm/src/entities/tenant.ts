import {
  defineEntity,
  type EntitySchema,
  type InferEntity,
  type Opt,
  type PrimaryKeyProp,
  p,
} from '@mikro-orm/core';
import type { Mutual } from './mutual.js';

/** A row of `tenant_auth_tenant`, as {@link TenantAuthTenant} maps it.
 *
 * @example
 * const tenant: TenantAuthTenantEntity | null = await em.findOne(TenantAuthTenant, { slug: 'acme' });
 */
export interface TenantAuthTenantEntity {
  /** The primary key, for MikroORM's typings (`em.findOne(…, pk)`, `em.getReference`). */
  [PrimaryKeyProp]?: 'id';
  id: string;
  /** Lower-case letters, digits and single hyphens, 3 to 63 characters; unique. */
  slug: string;
  name: string;
  createdAt: Date;
  /** Whether every user must sign in with a second factor. */
  requireMfa: Opt<boolean>;
}

/** The schema as defined, with MikroORM's inferred types: what the stores query with. Internal. */
export const tenantAuthTenantSchema = defineEntity({
  name: 'TenantAuthTenant',
  tableName: 'tenant_auth_tenant',
  properties: {
    id: p.uuid().primary().fieldName('id'),
    slug: p
      .text()
      .fieldName('slug')
      .unique('tenant_auth_tenant_slug_unique')
      // Written the way PostgreSQL prints it back, so the schema diff stays empty.
      .check(
        "((slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$'::text) AND ((char_length(slug) >= 3) AND (char_length(slug) <= 63)))",
      ),
    name: p.text().fieldName('name'),
    createdAt: p.datetime().fieldName('created_at'),
    requireMfa: p.boolean().fieldName('require_mfa').default(false),
  },
});

/**
 * The tenant table, `tenant_auth_tenant`. Column names are pinned, so the application's naming strategy
 * does not change them (the shipped migrations and the raw cleanup SQL rely on them).
 *
 * @example
 * const orm = await MikroORM.init({ entities: [...tenantAuthEntities, ...myEntities], clientUrl });
 * const tenant = await orm.em.fork().findOne(TenantAuthTenant, { slug: 'acme' });
 */
export const TenantAuthTenant: EntitySchema<TenantAuthTenantEntity> =
  tenantAuthTenantSchema as unknown as EntitySchema<TenantAuthTenantEntity>;

// The published interface describes what the schema maps: same fields, same values, same primary key.
true satisfies Mutual<TenantAuthTenantEntity, InferEntity<typeof tenantAuthTenantSchema>>;
