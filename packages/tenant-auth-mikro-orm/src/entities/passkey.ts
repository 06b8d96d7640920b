import { defineEntity, type EntitySchema, type InferEntity, type PrimaryKeyProp, p } from '@mikro-orm/core';
import type { Mutual } from './mutual.js';
import { tenantAuthTenantSchema } from './tenant.js';
import { tenantAuthUserSchema } from './user.js';

/**
 * A row of `tenant_auth_passkey`, as {@link TenantAuthPasskey} maps it.
 *
 * @example
 * const passkeys = await em.count(TenantAuthPasskey, { tenantId, userId });
 */
export interface TenantAuthPasskeyEntity {
  /** The primary key, for MikroORM's typings. */
  [PrimaryKeyProp]?: 'id';
  id: string;
  tenantId: string;
  userId: string;
  /** The WebAuthn credential id (base64url); unique across every tenant. */
  credentialId: string;
  /** The COSE public key (base64url); public, never a secret. */
  publicKey: string;
  /** The signature counter last seen. */
  counter: number;
  /** The authenticator's transports (`internal`, `hybrid`, …). */
  transports: string[];
  name: string;
  createdAt: Date;
  lastUsedAt?: Date | null;
}

/** The schema as defined, with MikroORM's inferred types: what the stores query with. Internal. */
export const tenantAuthPasskeySchema = defineEntity({
  name: 'TenantAuthPasskey',
  tableName: 'tenant_auth_passkey',
  properties: {
    id: p.uuid().primary().fieldName('id'),
    tenantId: () =>
      p.manyToOne(tenantAuthTenantSchema).mapToPk().fieldName('tenant_id').deleteRule('cascade'),
    userId: () => p.manyToOne(tenantAuthUserSchema).mapToPk().fieldName('user_id').deleteRule('cascade'),
    credentialId: p.text().fieldName('credential_id').unique('tenant_auth_passkey_credential_id_unique'),
    publicKey: p.text().fieldName('public_key'),
    counter: p.bigint('number').fieldName('counter'),
    transports: p.array().fieldName('transports'),
    name: p.text().fieldName('name'),
    createdAt: p.datetime().fieldName('created_at'),
    lastUsedAt: p.datetime().nullable().fieldName('last_used_at'),
  },
  indexes: [{ name: 'tenant_auth_passkey_user_idx', properties: ['userId', 'tenantId'] }],
});

/**
 * The passkey table, `tenant_auth_passkey`: one row per WebAuthn credential (its id unique across
 * tenants), going with the user and the tenant (`on delete cascade`). Index: `(user_id, tenant_id)`.
 *
 * @example
 * const passkeys = await orm.em.fork().count(TenantAuthPasskey, {});
 */
export const TenantAuthPasskey: EntitySchema<TenantAuthPasskeyEntity> =
  tenantAuthPasskeySchema as unknown as EntitySchema<TenantAuthPasskeyEntity>;

true satisfies Mutual<TenantAuthPasskeyEntity, InferEntity<typeof tenantAuthPasskeySchema>>;

/**
 * A row of `tenant_auth_webauthn_challenge`, as {@link TenantAuthWebAuthnChallenge} maps it.
 *
 * @example
 * const waiting = await em.count(TenantAuthWebAuthnChallenge, { expiresAt: { $gt: new Date() } });
 */
export interface TenantAuthWebAuthnChallengeEntity {
  /** The primary key, for MikroORM's typings. */
  [PrimaryKeyProp]?: 'challengeHash';
  /** SHA-256 (hex) of the challenge. */
  challengeHash: string;
  /** `registration`, `login`, `mfa` or `reauthentication`. */
  purpose: 'registration' | 'login' | 'mfa' | 'reauthentication';
  /** `null` for a passkey login. */
  tenantId?: string | null;
  /** `null` for a passkey login. */
  userId?: string | null;
  createdAt: Date;
  expiresAt: Date;
}

/** The schema as defined, with MikroORM's inferred types: what the stores query with. Internal. */
export const tenantAuthWebAuthnChallengeSchema = defineEntity({
  name: 'TenantAuthWebAuthnChallenge',
  tableName: 'tenant_auth_webauthn_challenge',
  properties: {
    challengeHash: p.string().columnType('char(64)').primary().fieldName('challenge_hash'),
    purpose: p.enum(['registration', 'login', 'mfa', 'reauthentication'] as const).fieldName('purpose'),
    tenantId: () =>
      p.manyToOne(tenantAuthTenantSchema).mapToPk().nullable().fieldName('tenant_id').deleteRule('cascade'),
    userId: () =>
      p
        .manyToOne(tenantAuthUserSchema)
        .mapToPk()
        .nullable()
        .fieldName('user_id')
        .deleteRule('cascade')
        .index('tenant_auth_webauthn_challenge_user_idx'),
    createdAt: p.datetime().fieldName('created_at'),
    expiresAt: p.datetime().fieldName('expires_at').index('tenant_auth_webauthn_challenge_expires_at_idx'),
  },
});

/**
 * The WebAuthn challenge table, `tenant_auth_webauthn_challenge`: challenges waiting for their
 * ceremony, by their SHA-256, 5 minutes each, single use; a user's go with the user. Indexes: `user_id`
 * (the cascade), `expires_at` (cleanup).
 *
 * @example
 * const waiting = await orm.em.fork().count(TenantAuthWebAuthnChallenge, {});
 */
export const TenantAuthWebAuthnChallenge: EntitySchema<TenantAuthWebAuthnChallengeEntity> =
  tenantAuthWebAuthnChallengeSchema as unknown as EntitySchema<TenantAuthWebAuthnChallengeEntity>;

true satisfies Mutual<
  TenantAuthWebAuthnChallengeEntity,
  InferEntity<typeof tenantAuthWebAuthnChallengeSchema>
>;
