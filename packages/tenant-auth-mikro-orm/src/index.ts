// tenant-auth-mikro-orm: tenant-auth's stores, entities and migrations on MikroORM 7 (PostgreSQL, PGlite).

export { createMikroOrmStores, type MikroOrmStoresOptions } from './create-mikro-orm-stores.js';
export type { TenantAuthApiKeyEntity } from './entities/api-key.js';
export { TenantAuthApiKey } from './entities/api-key.js';
export type { TenantAuthAuditEventEntity } from './entities/audit-event.js';
export { TenantAuthAuditEvent } from './entities/audit-event.js';
export type { TenantAuthOneTimeTokenEntity } from './entities/one-time-token.js';
export { TenantAuthOneTimeToken } from './entities/one-time-token.js';
export type { TenantAuthOutboxMessageEntity } from './entities/outbox-message.js';
export { TenantAuthOutboxMessage } from './entities/outbox-message.js';
export type { TenantAuthPasskeyEntity, TenantAuthWebAuthnChallengeEntity } from './entities/passkey.js';
export { TenantAuthPasskey, TenantAuthWebAuthnChallenge } from './entities/passkey.js';
export type {
  TenantAuthScimGroupEntity,
  TenantAuthScimGroupMemberEntity,
  TenantAuthScimGroupRoleEntity,
  TenantAuthScimProfileEntity,
  TenantAuthScimTokenEntity,
} from './entities/scim.js';
export {
  TenantAuthScimGroup,
  TenantAuthScimGroupMember,
  TenantAuthScimGroupRole,
  TenantAuthScimProfile,
  TenantAuthScimToken,
} from './entities/scim.js';
export type {
  TenantAuthMfaChallengeEntity,
  TenantAuthRecoveryCodeEntity,
  TenantAuthTotpFactorEntity,
} from './entities/second-factor.js';
export {
  TenantAuthMfaChallenge,
  TenantAuthRecoveryCode,
  TenantAuthTotpFactor,
} from './entities/second-factor.js';
export type { TenantAuthSessionEntity } from './entities/session.js';
export { TenantAuthSession } from './entities/session.js';
export type {
  TenantAuthDomainEntity,
  TenantAuthSsoConnectionEntity,
  TenantAuthSsoIdentityEntity,
} from './entities/single-sign-on.js';
export {
  TenantAuthDomain,
  TenantAuthSsoConnection,
  TenantAuthSsoIdentity,
} from './entities/single-sign-on.js';
export type { TenantAuthSsoUsedOnceEntity } from './entities/sso-used-once.js';
export { TenantAuthSsoUsedOnce } from './entities/sso-used-once.js';
export type { TenantAuthTenantEntity } from './entities/tenant.js';
export { TenantAuthTenant } from './entities/tenant.js';
export type { TenantAuthUserEntity } from './entities/user.js';
export { TenantAuthUser } from './entities/user.js';
export type { TenantAuthWebhookDeliveryEntity, TenantAuthWebhookEndpointEntity } from './entities/webhook.js';
export { TenantAuthWebhookDelivery, TenantAuthWebhookEndpoint } from './entities/webhook.js';
export type { EntityManagerSource } from './entity-manager-source.js';
export type { TenantAuthMigrationOptions } from './run-tenant-auth-migrations.js';
export { runTenantAuthMigrations } from './run-tenant-auth-migrations.js';
export { tenantAuthEntities } from './tenant-auth-entities.js';
export { tenantAuthMigrations } from './tenant-auth-migrations.js';
export { StoreDriverError } from './to-store-error.js';
