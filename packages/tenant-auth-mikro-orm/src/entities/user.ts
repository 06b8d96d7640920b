import {
  defineEntity,
  type EntitySchema,
  type InferEntity,
  type Opt,
  type PrimaryKeyProp,
  p,
} from '@mikro-orm/core';
import { ROLES, type Role } from 'tenant-auth-core';
import type { Mutual } from './mutual.js';
import { tenantAuthTenantSchema } from './tenant.js';

/** A row of `tenant_auth_user`, as {@link TenantAuthUser} maps it.
 *
 * @example
 * const owners: TenantAuthUserEntity[] = await em.find(TenantAuthUser, { tenantId, role: 'owner' });
 */
export interface TenantAuthUserEntity {
  /** The primary key, for MikroORM's typings (`em.findOne(…, pk)`, `em.getReference`). */
  [PrimaryKeyProp]?: 'id';
  id: string;
  tenantId: string;
  /** Normalised (lower case); unique across all tenants. */
  email: string;
  /** A bcrypt hash; never leaves the store. */
  passwordHash: string;
  role: Role;
  /** `false` unless given: optional in `em.create`. */
  emailVerified: Opt<boolean>;
  createdAt: Date;
  /** Consecutive wrong second-factor answers (the second-factor lock); 0 unless given. */
  mfaFailures: Opt<number>;
  /** How many times the second factor was locked; 0 unless given. */
  mfaLocks: Opt<number>;
  /** When the second-factor lock ends (or ended); `null` when it never was locked. */
  mfaLockedUntil?: Date | null;
  /** Whether the account may sign in (`false`: deactivated, 1.3); `true` unless given. */
  active: Opt<boolean>;
}

/** The schema as defined, with MikroORM's inferred types: what the stores query with. Internal. */
export const tenantAuthUserSchema = defineEntity({
  name: 'TenantAuthUser',
  tableName: 'tenant_auth_user',
  properties: {
    id: p.uuid().primary().fieldName('id'),
    tenantId: () =>
      p
        .manyToOne(tenantAuthTenantSchema)
        .mapToPk()
        .fieldName('tenant_id')
        .deleteRule('cascade')
        // Checked at commit: registration inserts the owner before the tenant, so a taken email is reported first.
        .deferMode('deferred'),
    email: p
      .text()
      .fieldName('email')
      .unique('tenant_auth_user_email_unique')
      .check('((email = lower(email)) AND ((char_length(email) >= 3) AND (char_length(email) <= 254)))'),
    passwordHash: p.text().fieldName('password_hash'),
    role: p.enum(ROLES).fieldName('role'),
    emailVerified: p.boolean().default(false).fieldName('email_verified'),
    createdAt: p.datetime().fieldName('created_at'),
    mfaFailures: p.integer().default(0).fieldName('mfa_failures'),
    mfaLocks: p.integer().default(0).fieldName('mfa_locks'),
    mfaLockedUntil: p.datetime().nullable().fieldName('mfa_locked_until'),
    active: p.boolean().default(true).fieldName('active'),
  },
  // A tenant's members, oldest first; also what the cascade from a deleted tenant looks users up by.
  indexes: [{ name: 'tenant_auth_user_tenant_idx', properties: ['tenantId', 'createdAt'] }],
});

/**
 * The user table, `tenant_auth_user`. The email is stored normalised (lower case) and is unique across
 * all tenants; a check constraint refuses any email that is not lower case, so the unique index on
 * `email` is also unique on `lower(email)`. `role` is `owner`, `admin` or `member` (a check constraint);
 * `email_verified` defaults to false; `mfa_failures`, `mfa_locks` and `mfa_locked_until` hold the
 * second-factor lock; `active` (default true) is false for a deactivated account. Index: `(tenant_id, created_at)` (a tenant's members).
 *
 * @example
 * const user = await orm.em.fork().findOne(TenantAuthUser, { email: 'ada@example.com' });
 */
export const TenantAuthUser: EntitySchema<TenantAuthUserEntity> =
  tenantAuthUserSchema as unknown as EntitySchema<TenantAuthUserEntity>;

// The published interface describes what the schema maps: same fields, same values, same primary key.
true satisfies Mutual<TenantAuthUserEntity, InferEntity<typeof tenantAuthUserSchema>>;
