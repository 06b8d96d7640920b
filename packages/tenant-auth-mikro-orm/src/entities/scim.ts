import { defineEntity, type EntitySchema, type InferEntity, type PrimaryKeyProp, p } from '@mikro-orm/core';
import type { Mutual } from './mutual.js';
import { tenantAuthTenantSchema } from './tenant.js';
import { tenantAuthUserSchema } from './user.js';

/**
 * A row of `tenant_auth_scim_token`, as {@link TenantAuthScimToken} maps it.
 *
 * @example
 * const connected = await em.count(TenantAuthScimToken, {});
 */
export interface TenantAuthScimTokenEntity {
  /** The primary key, for MikroORM's typings. */
  [PrimaryKeyProp]?: 'tenantId';
  /** The tenant (one token each). */
  tenantId: string;
  /** SHA-256 (hex) of the token; the token itself is never stored. Unique. */
  tokenHash: string;
  createdAt: Date;
  lastUsedAt?: Date | null;
}

/** The schema as defined, with MikroORM's inferred types: what the stores query with. Internal. */
export const tenantAuthScimTokenSchema = defineEntity({
  name: 'TenantAuthScimToken',
  tableName: 'tenant_auth_scim_token',
  properties: {
    tenantId: () =>
      p.manyToOne(tenantAuthTenantSchema).mapToPk().primary().fieldName('tenant_id').deleteRule('cascade'),
    tokenHash: p
      .string()
      .columnType('char(64)')
      .fieldName('token_hash')
      .unique('tenant_auth_scim_token_token_hash_unique'),
    createdAt: p.datetime().fieldName('created_at'),
    lastUsedAt: p.datetime().nullable().fieldName('last_used_at'),
  },
});

/**
 * The SCIM token table, `tenant_auth_scim_token` (1.3): one token per tenant (its primary key), found by
 * the SHA-256 of the token (unique); going with the tenant.
 *
 * @example
 * const token = await orm.em.fork().findOne(TenantAuthScimToken, { tenantId });
 */
export const TenantAuthScimToken: EntitySchema<TenantAuthScimTokenEntity> =
  tenantAuthScimTokenSchema as unknown as EntitySchema<TenantAuthScimTokenEntity>;

true satisfies Mutual<TenantAuthScimTokenEntity, InferEntity<typeof tenantAuthScimTokenSchema>>;

/**
 * A row of `tenant_auth_scim_group_role`, as {@link TenantAuthScimGroupRole} maps it.
 *
 * @example
 * const admins = await em.count(TenantAuthScimGroupRole, { tenantId, role: 'admin' });
 */
export interface TenantAuthScimGroupRoleEntity {
  /** The primary key, for MikroORM's typings: `(tenantId, position)`, as MikroORM infers it. */
  [PrimaryKeyProp]?: ('tenantId' | 'position')[];
  tenantId: string;
  /** The line's place in the mapping, from 0. */
  position: number;
  /** A group's `displayName` (exact match). */
  groupName: string;
  role: 'admin' | 'member';
}

/** The schema as defined, with MikroORM's inferred types: what the stores query with. Internal. */
export const tenantAuthScimGroupRoleSchema = defineEntity({
  name: 'TenantAuthScimGroupRole',
  tableName: 'tenant_auth_scim_group_role',
  properties: {
    tenantId: () =>
      p.manyToOne(tenantAuthTenantSchema).mapToPk().primary().fieldName('tenant_id').deleteRule('cascade'),
    position: p.integer().primary().fieldName('position'),
    groupName: p.text().fieldName('group_name'),
    role: p.enum(['admin', 'member'] as const).fieldName('role'),
  },
});

/**
 * The group-to-role mapping of tenants' SCIM provisioning, `tenant_auth_scim_group_role` (1.3): one row
 * per line, by tenant and position (the primary key); `role` is `admin` or `member` (a check constraint);
 * going with the tenant.
 *
 * @example
 * const mapping = await orm.em.fork().find(TenantAuthScimGroupRole, { tenantId }, { orderBy: { position: 'asc' } });
 */
export const TenantAuthScimGroupRole: EntitySchema<TenantAuthScimGroupRoleEntity> =
  tenantAuthScimGroupRoleSchema as unknown as EntitySchema<TenantAuthScimGroupRoleEntity>;

true satisfies Mutual<TenantAuthScimGroupRoleEntity, InferEntity<typeof tenantAuthScimGroupRoleSchema>>;

/**
 * A row of `tenant_auth_scim_profile`, as {@link TenantAuthScimProfile} maps it.
 *
 * @example
 * const managed = await em.count(TenantAuthScimProfile, { tenantId, managed: true });
 */
export interface TenantAuthScimProfileEntity {
  /** The primary key, for MikroORM's typings. */
  [PrimaryKeyProp]?: 'userId';
  /** The user (one profile each). */
  userId: string;
  tenantId: string;
  /** The directory's id of the user. */
  externalId?: string | null;
  givenName?: string | null;
  familyName?: string | null;
  formattedName?: string | null;
  displayName?: string | null;
  /** Created or linked by the directory: its role follows its groups. */
  managed: boolean;
  updatedAt: Date;
}

/** The schema as defined, with MikroORM's inferred types: what the stores query with. Internal. */
export const tenantAuthScimProfileSchema = defineEntity({
  name: 'TenantAuthScimProfile',
  tableName: 'tenant_auth_scim_profile',
  properties: {
    userId: () =>
      p.manyToOne(tenantAuthUserSchema).mapToPk().primary().fieldName('user_id').deleteRule('cascade'),
    tenantId: () =>
      p.manyToOne(tenantAuthTenantSchema).mapToPk().fieldName('tenant_id').deleteRule('cascade'),
    externalId: p.text().nullable().fieldName('external_id'),
    givenName: p.text().nullable().fieldName('given_name'),
    familyName: p.text().nullable().fieldName('family_name'),
    formattedName: p.text().nullable().fieldName('formatted_name'),
    displayName: p.text().nullable().fieldName('display_name'),
    managed: p.boolean().fieldName('managed'),
    updatedAt: p.datetime().fieldName('updated_at'),
  },
  indexes: [{ name: 'tenant_auth_scim_profile_external_id_idx', properties: ['tenantId', 'externalId'] }],
});

/**
 * What directories keep of users, `tenant_auth_scim_profile` (1.3): one row per user a directory has
 * touched (its primary key), with its `externalId`, names and whether the directory manages it; going with
 * the user and the tenant. Index: `(tenant_id, external_id)` (`externalId eq` filters).
 *
 * @example
 * const profile = await orm.em.fork().findOne(TenantAuthScimProfile, { userId });
 */
export const TenantAuthScimProfile: EntitySchema<TenantAuthScimProfileEntity> =
  tenantAuthScimProfileSchema as unknown as EntitySchema<TenantAuthScimProfileEntity>;

true satisfies Mutual<TenantAuthScimProfileEntity, InferEntity<typeof tenantAuthScimProfileSchema>>;

/**
 * A row of `tenant_auth_scim_group`, as {@link TenantAuthScimGroup} maps it.
 *
 * @example
 * const groups = await em.count(TenantAuthScimGroup, { tenantId });
 */
export interface TenantAuthScimGroupEntity {
  /** The primary key, for MikroORM's typings. */
  [PrimaryKeyProp]?: 'id';
  /** UUIDv7. */
  id: string;
  tenantId: string;
  displayName: string;
  createdAt: Date;
  updatedAt: Date;
}

/** The schema as defined, with MikroORM's inferred types: what the stores query with. Internal. */
export const tenantAuthScimGroupSchema = defineEntity({
  name: 'TenantAuthScimGroup',
  tableName: 'tenant_auth_scim_group',
  properties: {
    id: p.uuid().primary().fieldName('id'),
    tenantId: () =>
      p.manyToOne(tenantAuthTenantSchema).mapToPk().fieldName('tenant_id').deleteRule('cascade'),
    displayName: p.text().fieldName('display_name'),
    createdAt: p.datetime().fieldName('created_at'),
    updatedAt: p.datetime().fieldName('updated_at'),
  },
  indexes: [
    { name: 'tenant_auth_scim_group_tenant_idx', properties: ['tenantId', 'createdAt'] },
    {
      // `displayName eq` ignores ASCII case: lower() under the "C" collation folds ASCII letters only.
      name: 'tenant_auth_scim_group_display_name_idx',
      expression:
        'create index "tenant_auth_scim_group_display_name_idx" on "tenant_auth_scim_group" ("tenant_id", lower("display_name" collate "C"))',
    },
  ],
});

/**
 * The groups of tenants' directories, `tenant_auth_scim_group` (1.3): one row per group (its members are
 * rows of `tenant_auth_scim_group_member`), going with the tenant. Indexes: `(tenant_id, created_at)` (the
 * tenant's list) and `(tenant_id, lower(display_name collate "C"))` (`displayName eq`, ignoring ASCII case).
 *
 * @example
 * const groups = await orm.em.fork().find(TenantAuthScimGroup, { tenantId });
 */
export const TenantAuthScimGroup: EntitySchema<TenantAuthScimGroupEntity> =
  tenantAuthScimGroupSchema as unknown as EntitySchema<TenantAuthScimGroupEntity>;

true satisfies Mutual<TenantAuthScimGroupEntity, InferEntity<typeof tenantAuthScimGroupSchema>>;

/**
 * A row of `tenant_auth_scim_group_member`, as {@link TenantAuthScimGroupMember} maps it.
 *
 * @example
 * const memberships = await em.count(TenantAuthScimGroupMember, { userId });
 */
export interface TenantAuthScimGroupMemberEntity {
  /** The primary key, for MikroORM's typings: `(groupId, userId)`, as MikroORM infers it. */
  [PrimaryKeyProp]?: ('groupId' | 'userId')[];
  groupId: string;
  userId: string;
  tenantId: string;
}

/** The schema as defined, with MikroORM's inferred types: what the stores query with. Internal. */
export const tenantAuthScimGroupMemberSchema = defineEntity({
  name: 'TenantAuthScimGroupMember',
  tableName: 'tenant_auth_scim_group_member',
  properties: {
    groupId: () =>
      p.manyToOne(tenantAuthScimGroupSchema).mapToPk().primary().fieldName('group_id').deleteRule('cascade'),
    userId: () =>
      p.manyToOne(tenantAuthUserSchema).mapToPk().primary().fieldName('user_id').deleteRule('cascade'),
    tenantId: () =>
      p.manyToOne(tenantAuthTenantSchema).mapToPk().fieldName('tenant_id').deleteRule('cascade'),
  },
  indexes: [{ name: 'tenant_auth_scim_group_member_user_idx', properties: ['userId'] }],
});

/**
 * The members of directories' groups, `tenant_auth_scim_group_member` (1.3): one row per group and user
 * (the primary key), going with the group, the user and the tenant. Index: `user_id` (a user's groups, and
 * deleting a user).
 *
 * @example
 * const members = await orm.em.fork().find(TenantAuthScimGroupMember, { groupId });
 */
export const TenantAuthScimGroupMember: EntitySchema<TenantAuthScimGroupMemberEntity> =
  tenantAuthScimGroupMemberSchema as unknown as EntitySchema<TenantAuthScimGroupMemberEntity>;

true satisfies Mutual<TenantAuthScimGroupMemberEntity, InferEntity<typeof tenantAuthScimGroupMemberSchema>>;
