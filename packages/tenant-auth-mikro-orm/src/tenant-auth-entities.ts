import type { EntitySchema } from '@mikro-orm/core';
import { TenantAuthApiKey, type TenantAuthApiKeyEntity } from './entities/api-key.js';
import { TenantAuthAuditEvent, type TenantAuthAuditEventEntity } from './entities/audit-event.js';
import { TenantAuthOneTimeToken, type TenantAuthOneTimeTokenEntity } from './entities/one-time-token.js';
import { TenantAuthOutboxMessage, type TenantAuthOutboxMessageEntity } from './entities/outbox-message.js';
import {
  TenantAuthPasskey,
  type TenantAuthPasskeyEntity,
  TenantAuthWebAuthnChallenge,
  type TenantAuthWebAuthnChallengeEntity,
} from './entities/passkey.js';
import {
  TenantAuthScimGroup,
  type TenantAuthScimGroupEntity,
  TenantAuthScimGroupMember,
  type TenantAuthScimGroupMemberEntity,
  TenantAuthScimGroupRole,
  type TenantAuthScimGroupRoleEntity,
  TenantAuthScimProfile,
  type TenantAuthScimProfileEntity,
  TenantAuthScimToken,
  type TenantAuthScimTokenEntity,
} from './entities/scim.js';
import {
  TenantAuthMfaChallenge,
  type TenantAuthMfaChallengeEntity,
  TenantAuthRecoveryCode,
  type TenantAuthRecoveryCodeEntity,
  TenantAuthTotpFactor,
  type TenantAuthTotpFactorEntity,
} from './entities/second-factor.js';
import { TenantAuthSession, type TenantAuthSessionEntity } from './entities/session.js';
import {
  TenantAuthDomain,
  type TenantAuthDomainEntity,
  TenantAuthSsoConnection,
  type TenantAuthSsoConnectionEntity,
  TenantAuthSsoIdentity,
  type TenantAuthSsoIdentityEntity,
} from './entities/single-sign-on.js';
import { TenantAuthSsoUsedOnce, type TenantAuthSsoUsedOnceEntity } from './entities/sso-used-once.js';
import { TenantAuthTenant, type TenantAuthTenantEntity } from './entities/tenant.js';
import { TenantAuthUser, type TenantAuthUserEntity } from './entities/user.js';
import {
  TenantAuthWebhookDelivery,
  type TenantAuthWebhookDeliveryEntity,
  TenantAuthWebhookEndpoint,
  type TenantAuthWebhookEndpointEntity,
} from './entities/webhook.js';

/**
 * Every entity of tenant-auth, to spread into the application's own `entities` option.
 *
 * @example
 * const orm = await MikroORM.init({ entities: [...tenantAuthEntities, Book, Author], clientUrl });
 */
export const tenantAuthEntities: readonly [
  EntitySchema<TenantAuthTenantEntity>,
  EntitySchema<TenantAuthUserEntity>,
  EntitySchema<TenantAuthSessionEntity>,
  EntitySchema<TenantAuthOneTimeTokenEntity>,
  EntitySchema<TenantAuthOutboxMessageEntity>,
  EntitySchema<TenantAuthAuditEventEntity>,
  EntitySchema<TenantAuthTotpFactorEntity>,
  EntitySchema<TenantAuthRecoveryCodeEntity>,
  EntitySchema<TenantAuthMfaChallengeEntity>,
  EntitySchema<TenantAuthPasskeyEntity>,
  EntitySchema<TenantAuthWebAuthnChallengeEntity>,
  EntitySchema<TenantAuthDomainEntity>,
  EntitySchema<TenantAuthSsoConnectionEntity>,
  EntitySchema<TenantAuthSsoIdentityEntity>,
  EntitySchema<TenantAuthApiKeyEntity>,
  EntitySchema<TenantAuthSsoUsedOnceEntity>,
  EntitySchema<TenantAuthWebhookEndpointEntity>,
  EntitySchema<TenantAuthWebhookDeliveryEntity>,
  EntitySchema<TenantAuthScimTokenEntity>,
  EntitySchema<TenantAuthScimGroupRoleEntity>,
  EntitySchema<TenantAuthScimProfileEntity>,
  EntitySchema<TenantAuthScimGroupEntity>,
  EntitySchema<TenantAuthScimGroupMemberEntity>,
] = [
  TenantAuthTenant,
  TenantAuthUser,
  TenantAuthSession,
  TenantAuthOneTimeToken,
  TenantAuthOutboxMessage,
  TenantAuthAuditEvent,
  TenantAuthTotpFactor,
  TenantAuthRecoveryCode,
  TenantAuthMfaChallenge,
  TenantAuthPasskey,
  TenantAuthWebAuthnChallenge,
  TenantAuthDomain,
  TenantAuthSsoConnection,
  TenantAuthSsoIdentity,
  TenantAuthApiKey,
  TenantAuthSsoUsedOnce,
  TenantAuthWebhookEndpoint,
  TenantAuthWebhookDelivery,
  TenantAuthScimToken,
  TenantAuthScimGroupRole,
  TenantAuthScimProfile,
  TenantAuthScimGroup,
  TenantAuthScimGroupMember,
];
