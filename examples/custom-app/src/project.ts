import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { TenantAuthTenant } from 'tenant-auth-mikro-orm';

/**
 * A project of a tenant: the application's own entity, in the same ORM as tenant-auth's. `tenantId`
 * references tenant-auth's tenant table, so deleting a tenant deletes its projects too. Its table is
 * created by the application's own migration (src/migrations), which must therefore run after
 * tenant-auth's.
 */
export const Project = defineEntity({
  name: 'Project',
  tableName: 'project',
  properties: {
    id: p.uuid().primary(),
    tenantId: () =>
      p
        .manyToOne(TenantAuthTenant)
        .mapToPk()
        .fieldName('tenant_id')
        .deleteRule('cascade')
        .index('project_tenant_id_idx'),
    name: p.text(),
    createdAt: p.datetime(),
  },
});

export type Project = InferEntity<typeof Project>;
