import { defineEntity, type EntitySchema, type InferEntity, type PrimaryKeyProp, p } from '@mikro-orm/core';
import type { Mutual } from './mutual.js';
import { tenantAuthTenantSchema } from './tenant.js';
import { tenantAuthUserSchema } from './user.js';

/**
 * A row of `tenant_auth_domain`, as {@link TenantAuthDomain} maps it.
 *
 * @example
 * const verified = await em.count(TenantAuthDomain, { tenantId, verifiedAt: { $ne: null } });
 */
export interface TenantAuthDomainEntity {
  /** The primary key, for MikroORM's typings. */
  [PrimaryKeyProp]?: 'id';
  id: string;
  tenantId: string;
  /** A lower-case host name. */
  name: string;
  /** The random part of the TXT record's value. */
  token: string;
  createdAt: Date;
  verifiedAt?: Date | null;
  /** `name` once verified, `null` before: unique, so one tenant at most holds a name verified. */
  verifiedName?: string | null;
}

/** The schema as defined, with MikroORM's inferred types: what the stores query with. Internal. */
export const tenantAuthDomainSchema = defineEntity({
  name: 'TenantAuthDomain',
  tableName: 'tenant_auth_domain',
  properties: {
    id: p.uuid().primary().fieldName('id'),
    tenantId: () =>
      p.manyToOne(tenantAuthTenantSchema).mapToPk().fieldName('tenant_id').deleteRule('cascade'),
    name: p.text().fieldName('name'),
    token: p.text().fieldName('token'),
    createdAt: p.datetime().fieldName('created_at'),
    verifiedAt: p.datetime().nullable().fieldName('verified_at'),
    verifiedName: p
      .text()
      .nullable()
      .fieldName('verified_name')
      .unique('tenant_auth_domain_verified_name_unique'),
  },
  uniques: [{ name: 'tenant_auth_domain_tenant_name_unique', properties: ['tenantId', 'name'] }],
});

/**
 * The domain table, `tenant_auth_domain`: the email domains tenants claim, one row per tenant and name
 * (unique), verified by one tenant at most (`verified_name` unique); going with the tenant.
 *
 * @example
 * const domains = await orm.em.fork().find(TenantAuthDomain, { tenantId });
 */
export const TenantAuthDomain: EntitySchema<TenantAuthDomainEntity> =
  tenantAuthDomainSchema as unknown as EntitySchema<TenantAuthDomainEntity>;

true satisfies Mutual<TenantAuthDomainEntity, InferEntity<typeof tenantAuthDomainSchema>>;

/**
 * A row of `tenant_auth_sso_connection`, as {@link TenantAuthSsoConnection} maps it.
 *
 * @example
 * const enforced = await em.count(TenantAuthSsoConnection, { enforce: true });
 */
export interface TenantAuthSsoConnectionEntity {
  /** The primary key, for MikroORM's typings. */
  [PrimaryKeyProp]?: 'tenantId';
  /** The tenant (one connection each). */
  tenantId: string;
  /** The connection's protocol (`oidc`, `saml`): which identity provider reads it. */
  protocol: string;
  /** What names its identities: the OpenID Connect issuer, the SAML IdP's entity ID. */
  issuer: string;
  /** The protocol's own settings (`jsonb`; OpenID Connect: `{ clientId }`); never a secret. */
  settings: { [field: string]: unknown };
  /** The protocol's secret (the client secret), sealed (AES-256-GCM, `v1.<key id>.<iv>.<body>`); never in clear. */
  sealedSecret?: string | null;
  enforce: boolean;
  defaultRole: 'admin' | 'member';
  createdAt: Date;
  updatedAt: Date;
}

/** The schema as defined, with MikroORM's inferred types: what the stores query with. Internal. */
export const tenantAuthSsoConnectionSchema = defineEntity({
  name: 'TenantAuthSsoConnection',
  tableName: 'tenant_auth_sso_connection',
  properties: {
    tenantId: () =>
      p.manyToOne(tenantAuthTenantSchema).mapToPk().primary().fieldName('tenant_id').deleteRule('cascade'),
    protocol: p.text().fieldName('protocol'),
    issuer: p.text().fieldName('issuer'),
    settings: p.json<{ [field: string]: unknown }>().fieldName('settings'),
    sealedSecret: p.text().nullable().fieldName('sealed_secret'),
    enforce: p.boolean().fieldName('enforce'),
    defaultRole: p.enum(['admin', 'member'] as const).fieldName('default_role'),
    createdAt: p.datetime().fieldName('created_at'),
    updatedAt: p.datetime().fieldName('updated_at'),
  },
});

/**
 * The SSO connection table, `tenant_auth_sso_connection`: one connection per tenant (its primary key),
 * of any protocol (its settings in `settings`), going with the tenant.
 *
 * @example
 * const connection = await orm.em.fork().findOne(TenantAuthSsoConnection, { tenantId });
 */
export const TenantAuthSsoConnection: EntitySchema<TenantAuthSsoConnectionEntity> =
  tenantAuthSsoConnectionSchema as unknown as EntitySchema<TenantAuthSsoConnectionEntity>;

true satisfies Mutual<TenantAuthSsoConnectionEntity, InferEntity<typeof tenantAuthSsoConnectionSchema>>;

/**
 * A row of `tenant_auth_sso_identity`, as {@link TenantAuthSsoIdentity} maps it.
 *
 * @example
 * const linked = await em.count(TenantAuthSsoIdentity, { tenantId, issuer });
 */
export interface TenantAuthSsoIdentityEntity {
  /** The primary key, for MikroORM's typings. */
  [PrimaryKeyProp]?: 'id';
  id: string;
  tenantId: string;
  userId: string;
  issuer: string;
  /** The `sub` at the issuer. */
  subject: string;
  createdAt: Date;
}

/** The schema as defined, with MikroORM's inferred types: what the stores query with. Internal. */
export const tenantAuthSsoIdentitySchema = defineEntity({
  name: 'TenantAuthSsoIdentity',
  tableName: 'tenant_auth_sso_identity',
  properties: {
    id: p.uuid().primary().fieldName('id'),
    tenantId: () =>
      p.manyToOne(tenantAuthTenantSchema).mapToPk().fieldName('tenant_id').deleteRule('cascade'),
    userId: () => p.manyToOne(tenantAuthUserSchema).mapToPk().fieldName('user_id').deleteRule('cascade'),
    issuer: p.text().fieldName('issuer'),
    subject: p.text().fieldName('subject'),
    createdAt: p.datetime().fieldName('created_at'),
  },
  uniques: [
    { name: 'tenant_auth_sso_identity_subject_unique', properties: ['tenantId', 'issuer', 'subject'] },
    { name: 'tenant_auth_sso_identity_user_issuer_unique', properties: ['userId', 'issuer'] },
  ],
});

/**
 * The SSO identity table, `tenant_auth_sso_identity`: which user `(issuer, sub)` names in a tenant
 * (unique), one subject per user and issuer (unique); going with the user and the tenant.
 *
 * @example
 * const identities = await orm.em.fork().find(TenantAuthSsoIdentity, { userId });
 */
export const TenantAuthSsoIdentity: EntitySchema<TenantAuthSsoIdentityEntity> =
  tenantAuthSsoIdentitySchema as unknown as EntitySchema<TenantAuthSsoIdentityEntity>;

true satisfies Mutual<TenantAuthSsoIdentityEntity, InferEntity<typeof tenantAuthSsoIdentitySchema>>;
