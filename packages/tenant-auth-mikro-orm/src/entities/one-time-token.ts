import { defineEntity, type EntitySchema, type InferEntity, type PrimaryKeyProp, p } from '@mikro-orm/core';
import { ROLES, type Role } from 'tenant-auth-core';
import { ONE_TIME_TOKEN_KINDS, type OneTimeTokenKind } from 'tenant-auth-core/store-kit';
import type { Mutual } from './mutual.js';
import { tenantAuthTenantSchema } from './tenant.js';
import { tenantAuthUserSchema } from './user.js';

/** A row of `tenant_auth_one_time_token`, as {@link TenantAuthOneTimeToken} maps it.
 *
 * @example
 * const pending: TenantAuthOneTimeTokenEntity[] = await em.find(TenantAuthOneTimeToken, { tenantId, kind: 'invitation' });
 */
export interface TenantAuthOneTimeTokenEntity {
  /** The primary key, for MikroORM's typings (`em.findOne(…, pk)`, `em.getReference`). */
  [PrimaryKeyProp]?: 'id';
  id: string;
  kind: OneTimeTokenKind;
  tenantId: string;
  userId?: string | null;
  email: string;
  role?: Role | null;
  createdBy?: string | null;
  sessionId?: string | null;
  /** SHA-256 of the token, hex; the token itself is never stored. */
  tokenHash: string;
  createdAt: Date;
  expiresAt: Date;
}

/** The schema as defined, with MikroORM's inferred types: what the stores query with. Internal. */
export const tenantAuthOneTimeTokenSchema = defineEntity({
  name: 'TenantAuthOneTimeToken',
  tableName: 'tenant_auth_one_time_token',
  properties: {
    id: p.uuid().primary().fieldName('id'),
    kind: p.enum(ONE_TIME_TOKEN_KINDS).fieldName('kind'),
    tenantId: () =>
      p.manyToOne(tenantAuthTenantSchema).mapToPk().fieldName('tenant_id').deleteRule('cascade'),
    userId: () =>
      p.manyToOne(tenantAuthUserSchema).mapToPk().nullable().fieldName('user_id').deleteRule('cascade'),
    email: p.text().fieldName('email'),
    role: p.enum(ROLES).nullable().fieldName('role'),
    createdBy: () =>
      p.manyToOne(tenantAuthUserSchema).mapToPk().nullable().fieldName('created_by').deleteRule('set null'),
    sessionId: p.uuid().nullable().fieldName('session_id'),
    tokenHash: p
      .string()
      .columnType('char(64)')
      .fieldName('token_hash')
      .unique('tenant_auth_one_time_token_token_hash_unique'),
    createdAt: p.datetime().fieldName('created_at'),
    expiresAt: p.datetime().fieldName('expires_at').index('tenant_auth_one_time_token_expires_at_idx'),
  },
  indexes: [
    // All three are compared for equality; user_id first also serves the cascade from a deleted user.
    { name: 'tenant_auth_one_time_token_user_idx', properties: ['userId', 'kind', 'tenantId'] },
    { name: 'tenant_auth_one_time_token_email_idx', properties: ['tenantId', 'kind', 'email'] },
    {
      name: 'tenant_auth_one_time_token_pending_idx',
      properties: ['tenantId', 'kind', 'createdAt'],
      columns: [{ name: 'tenant_id' }, { name: 'kind' }, { name: 'created_at', sort: 'DESC' }],
    },
  ],
});

/**
 * The one-time token table, `tenant_auth_one_time_token`: invitations, password resets, email
 * verifications and email changes, each stored by the SHA-256 of its token (unique). A token goes with its
 * tenant and with the user it was issued for (`on delete cascade`); `created_by` becomes null when the
 * inviting user is deleted; `session_id` has no foreign key (sessions are cleaned up on their own).
 * Indexes: `(user_id, kind, tenant_id)` and `(tenant_id, kind, email)` (a new token replaces the older of
 * its subject), `(tenant_id, kind, created_at desc)` (pending invitations), `expires_at` (cleanup).
 *
 * @example
 * const pending = await orm.em.fork().count(TenantAuthOneTimeToken, { kind: 'invitation', expiresAt: { $gt: new Date() } });
 */
export const TenantAuthOneTimeToken: EntitySchema<TenantAuthOneTimeTokenEntity> =
  tenantAuthOneTimeTokenSchema as unknown as EntitySchema<TenantAuthOneTimeTokenEntity>;

// The published interface describes what the schema maps: same fields, same values, same primary key.
true satisfies Mutual<TenantAuthOneTimeTokenEntity, InferEntity<typeof tenantAuthOneTimeTokenSchema>>;
