import { defineEntity, p } from '@mikro-orm/core';

/**
 * The tenant table, `tenant_auth_tenant`. Column names are pinned, so the application's naming strategy
 * does not change them (the shipped migrations and the raw cleanup SQL rely on them).
 *
 * @example
 * const orm = await MikroORM.init({ entities: [...tenantAuthEntities, ...myEntities], clientUrl });
 * const tenant = await orm.em.fork().findOne(TenantAuthTenant, { slug: 'acme' });
 */
export const TenantAuthTenant = defineEntity({
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
  },
});
