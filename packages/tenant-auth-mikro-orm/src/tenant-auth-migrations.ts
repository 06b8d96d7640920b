import type { MigrationObject } from '@mikro-orm/core';
import { TenantAuthInitialMigration } from './migrations/migration-20261121132551-initial.js';
import { TenantAuthRolesTokensOutboxAuditMigration } from './migrations/migration-20261122153000-roles-tokens-outbox-audit.js';
import { TenantAuthSecondFactorMigration } from './migrations/migration-20261127120000-second-factor.js';
import { TenantAuthPasskeysMigration } from './migrations/migration-20261127140000-passkeys.js';
import { TenantAuthSingleSignOnMigration } from './migrations/migration-20261127150000-single-sign-on.js';
import { TenantAuthApiKeysMigration } from './migrations/migration-20261127160000-api-keys.js';

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
];
