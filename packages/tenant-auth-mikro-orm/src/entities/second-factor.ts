import {
  defineEntity,
  type EntitySchema,
  type InferEntity,
  type Opt,
  type PrimaryKeyProp,
  p,
} from '@mikro-orm/core';
import type { Mutual } from './mutual.js';
import { tenantAuthTenantSchema } from './tenant.js';
import { tenantAuthUserSchema } from './user.js';

/**
 * A row of `tenant_auth_totp_factor`, as {@link TenantAuthTotpFactor} maps it.
 *
 * @example
 * const active = await em.count(TenantAuthTotpFactor, { tenantId, confirmedAt: { $ne: null } });
 */
export interface TenantAuthTotpFactorEntity {
  /** The primary key, for MikroORM's typings. */
  [PrimaryKeyProp]?: 'userId';
  /** The user (one factor each). */
  userId: string;
  tenantId: string;
  /** The secret, sealed (AES-256-GCM, `v1.<key id>.<iv>.<body>`); never in clear. */
  sealedSecret: string;
  createdAt: Date;
  confirmedAt?: Date | null;
  /** The last TOTP time step a code was accepted for (the replay rule). */
  lastStep?: number | null;
}

/** The schema as defined, with MikroORM's inferred types: what the stores query with. Internal. */
export const tenantAuthTotpFactorSchema = defineEntity({
  name: 'TenantAuthTotpFactor',
  tableName: 'tenant_auth_totp_factor',
  properties: {
    userId: () =>
      p.manyToOne(tenantAuthUserSchema).mapToPk().primary().fieldName('user_id').deleteRule('cascade'),
    tenantId: () =>
      p.manyToOne(tenantAuthTenantSchema).mapToPk().fieldName('tenant_id').deleteRule('cascade'),
    sealedSecret: p.text().fieldName('sealed_secret'),
    createdAt: p.datetime().fieldName('created_at'),
    confirmedAt: p.datetime().nullable().fieldName('confirmed_at'),
    lastStep: p.integer().nullable().fieldName('last_step'),
  },
});

/**
 * The TOTP factor table, `tenant_auth_totp_factor`: one row per user (its primary key), going with the
 * user and the tenant (`on delete cascade`).
 *
 * @example
 * const factors = await orm.em.fork().count(TenantAuthTotpFactor, { confirmedAt: { $ne: null } });
 */
export const TenantAuthTotpFactor: EntitySchema<TenantAuthTotpFactorEntity> =
  tenantAuthTotpFactorSchema as unknown as EntitySchema<TenantAuthTotpFactorEntity>;

true satisfies Mutual<TenantAuthTotpFactorEntity, InferEntity<typeof tenantAuthTotpFactorSchema>>;

/**
 * A row of `tenant_auth_recovery_code`, as {@link TenantAuthRecoveryCode} maps it.
 *
 * @example
 * const left = await em.count(TenantAuthRecoveryCode, { tenantId, userId });
 */
export interface TenantAuthRecoveryCodeEntity {
  /** The primary key, for MikroORM's typings. */
  [PrimaryKeyProp]?: 'codeHash';
  /** SHA-256 over the user's id and the code (base64url); the code itself is never stored. */
  codeHash: string;
  tenantId: string;
  userId: string;
  createdAt: Date;
}

/** The schema as defined, with MikroORM's inferred types: what the stores query with. Internal. */
export const tenantAuthRecoveryCodeSchema = defineEntity({
  name: 'TenantAuthRecoveryCode',
  tableName: 'tenant_auth_recovery_code',
  properties: {
    codeHash: p.text().primary().fieldName('code_hash'),
    tenantId: () =>
      p.manyToOne(tenantAuthTenantSchema).mapToPk().fieldName('tenant_id').deleteRule('cascade'),
    userId: () => p.manyToOne(tenantAuthUserSchema).mapToPk().fieldName('user_id').deleteRule('cascade'),
    createdAt: p.datetime().fieldName('created_at'),
  },
  indexes: [{ name: 'tenant_auth_recovery_code_user_idx', properties: ['userId', 'tenantId'] }],
});

/**
 * The recovery code table, `tenant_auth_recovery_code`: one row per unused code, by its hash; going with
 * the user and the tenant. Index: `(user_id, tenant_id)`.
 *
 * @example
 * const codes = await orm.em.fork().count(TenantAuthRecoveryCode, { userId });
 */
export const TenantAuthRecoveryCode: EntitySchema<TenantAuthRecoveryCodeEntity> =
  tenantAuthRecoveryCodeSchema as unknown as EntitySchema<TenantAuthRecoveryCodeEntity>;

true satisfies Mutual<TenantAuthRecoveryCodeEntity, InferEntity<typeof tenantAuthRecoveryCodeSchema>>;

/**
 * A row of `tenant_auth_mfa_challenge`, as {@link TenantAuthMfaChallenge} maps it.
 *
 * @example
 * const waiting = await em.count(TenantAuthMfaChallenge, { expiresAt: { $gt: new Date() } });
 */
export interface TenantAuthMfaChallengeEntity {
  /** The primary key, for MikroORM's typings. */
  [PrimaryKeyProp]?: 'tokenHash';
  /** SHA-256 (hex) of the `mfaToken`; the token itself is never stored. */
  tokenHash: string;
  tenantId: string;
  userId: string;
  /** `verify` (answer with a factor) or `setup` (enrol one). */
  purpose: 'verify' | 'setup';
  /** How the first factor was proven. */
  amr: string[];
  createdAt: Date;
  expiresAt: Date;
  /** Wrong answers so far. */
  failures: Opt<number>;
}

/** The schema as defined, with MikroORM's inferred types: what the stores query with. Internal. */
export const tenantAuthMfaChallengeSchema = defineEntity({
  name: 'TenantAuthMfaChallenge',
  tableName: 'tenant_auth_mfa_challenge',
  properties: {
    tokenHash: p.string().columnType('char(64)').primary().fieldName('token_hash'),
    tenantId: () =>
      p.manyToOne(tenantAuthTenantSchema).mapToPk().fieldName('tenant_id').deleteRule('cascade'),
    userId: () =>
      p
        .manyToOne(tenantAuthUserSchema)
        .mapToPk()
        .fieldName('user_id')
        .deleteRule('cascade')
        .index('tenant_auth_mfa_challenge_user_idx'),
    purpose: p.enum(['verify', 'setup'] as const).fieldName('purpose'),
    amr: p.array().fieldName('amr'),
    createdAt: p.datetime().fieldName('created_at'),
    expiresAt: p.datetime().fieldName('expires_at').index('tenant_auth_mfa_challenge_expires_at_idx'),
    failures: p.integer().default(0).fieldName('failures'),
  },
});

/**
 * The MFA challenge table, `tenant_auth_mfa_challenge`: logins waiting for their second factor, by the
 * SHA-256 of their `mfaToken`, 5 minutes each; going with the user and the tenant. Indexes: `user_id`
 * (the cascade), `expires_at` (cleanup).
 *
 * @example
 * const waiting = await orm.em.fork().count(TenantAuthMfaChallenge, { expiresAt: { $gt: new Date() } });
 */
export const TenantAuthMfaChallenge: EntitySchema<TenantAuthMfaChallengeEntity> =
  tenantAuthMfaChallengeSchema as unknown as EntitySchema<TenantAuthMfaChallengeEntity>;

true satisfies Mutual<TenantAuthMfaChallengeEntity, InferEntity<typeof tenantAuthMfaChallengeSchema>>;
