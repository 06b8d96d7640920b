import type { MigrationObject } from '@mikro-orm/core';
import { TenantAuthInitialMigration } from './migrations/migration-20261121132551-initial.js';
import { TenantAuthRolesTokensOutboxAuditMigration } from './migrations/migration-20261122153000-roles-tokens-outbox-audit.js';
import { TenantAuthSecondFactorMigration } from './migrations/migration-20261127120000-second-factor.js';
import { TenantAuthPasskeysMigration } from './migrations/migration-20261127140000-passkeys.js';
import { TenantAuthSingleSignOnMigration } from './migrations/migration-20261127150000-single-sign-on.js';
import { TenantAuthApiKeysMigration } from './migrations/migration-20261127160000-api-keys.js';
import { TenantAuthSsoProtocolsMigration } from './migrations/migration-20261128120000-sso-protocols.js';
import { TenantAuthSsoUsedOnceMigration } from './migrations/migration-20261201100000-sso-used-once.js';
import { TenantAuthSecondFactorLockMigration } from './migrations/migration-20261202100000-second-factor-lock.js';
import { TenantAuthUserActiveMigration } from './migrations/migration-20261205100000-user-active.js';
import { TenantAuthWebhooksMigration } from './migrations/migration-20261206100000-webhooks.js';
import { TenantAuthScimMigration } from './migrations/migration-20261207100000-scim.js';

/**
 * The migrations of tenant-auth, oldest first, as MikroORM `migrationsList` entries with stable names.
 * `runTenantAuthMigrations` applies them; an application that prefers one migration list can append
 * them to its own `migrations.migrationsList` instead.
 *
 * - `tenant-auth-20261121132551-initial` (1.0): tenants, users, sessions.
 * - `tenant-auth-20261122153000-roles-tokens-outbox-audit` (1.1): users' `role` and `email_verified`
 *   (the users of a 1.0 database become the owners of their tenants), one-time tokens, the mail outbox
 *   and the audit log.
 * - `tenant-auth-20261127120000-second-factor` (1.2): sessions' `amr` and `auth_time` (a 1.1 session
 *   was a password one, authenticated when it was created), tenants' `require_mfa` (off), and the
 *   tables of the second factor.
 * - `tenant-auth-20261127140000-passkeys` (1.2): the passkey and WebAuthn challenge tables.
 * - `tenant-auth-20261127160000-api-keys` (1.2): the API key table, and audit events' `actor_type`
 *   (`user` for every earlier event).
 * - `tenant-auth-20261128120000-sso-protocols` (1.2): SSO connections of any protocol (`protocol`,
 *   `settings`, `sealed_secret`); the connections of before become OpenID Connect ones.
 * - `tenant-auth-20261201100000-sso-used-once` (1.3): the single-use marks of SSO (finished sign-ins'
 *   states, SAML assertion IDs), `tenant_auth_sso_used_once`.
 * - `tenant-auth-20261202100000-second-factor-lock` (1.3): users' `mfa_failures`, `mfa_locks` and
 *   `mfa_locked_until` (the second-factor lock; every user of before starts unlocked).
 * - `tenant-auth-20261205100000-user-active` (1.3): users' `active` (deactivation; every user of before
 *   stays active).
 * - `tenant-auth-20261206100000-webhooks` (1.3): webhook endpoints and their deliveries,
 *   `tenant_auth_webhook_endpoint` and `tenant_auth_webhook_delivery`.
 * - `tenant-auth-20261207100000-scim` (1.3): SCIM provisioning: tenants' tokens and group-to-role
 *   mappings, users' directory profiles, groups and their members (`tenant_auth_scim_*`).
 *
 * @example
 * const orm = await MikroORM.init({
 *   entities: [...tenantAuthEntities, ...myEntities],
 *   extensions: [Migrator],
 *   migrations: { migrationsList: [...tenantAuthMigrations, ...myMigrations] },
 * });
 */
export const tenantAuthMigrations: readonly MigrationObject[] = [
  { name: 'tenant-auth-20261121132551-initial', class: TenantAuthInitialMigration },
  {
    name: 'tenant-auth-20261122153000-roles-tokens-outbox-audit',
    class: TenantAuthRolesTokensOutboxAuditMigration,
  },
  { name: 'tenant-auth-20261127120000-second-factor', class: TenantAuthSecondFactorMigration },
  { name: 'tenant-auth-20261127140000-passkeys', class: TenantAuthPasskeysMigration },
  { name: 'tenant-auth-20261127150000-single-sign-on', class: TenantAuthSingleSignOnMigration },
  { name: 'tenant-auth-20261127160000-api-keys', class: TenantAuthApiKeysMigration },
  { name: 'tenant-auth-20261128120000-sso-protocols', class: TenantAuthSsoProtocolsMigration },
  { name: 'tenant-auth-20261201100000-sso-used-once', class: TenantAuthSsoUsedOnceMigration },
  { name: 'tenant-auth-20261202100000-second-factor-lock', class: TenantAuthSecondFactorLockMigration },
  { name: 'tenant-auth-20261205100000-user-active', class: TenantAuthUserActiveMigration },
  { name: 'tenant-auth-20261206100000-webhooks', class: TenantAuthWebhooksMigration },
  { name: 'tenant-auth-20261207100000-scim', class: TenantAuthScimMigration },
];
