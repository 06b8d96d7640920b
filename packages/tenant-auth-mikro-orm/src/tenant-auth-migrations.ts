import type { MigrationObject } from '@mikro-orm/core';
import { TenantAuthInitialMigration } from './migrations/migration-20261121132551-initial.js';
import { TenantAuthRolesTokensOutboxAuditMigration } from './migrations/migration-20261122153000-roles-tokens-outbox-audit.js';

/**
 * The migrations of tenant-auth, oldest first, as MikroORM `migrationsList` entries with stable names.
 * `runTenantAuthMigrations` applies them; an application that prefers one migration list can append
 * them to its own `migrations.migrationsList` instead.
 *
 * - `tenant-auth-20261121132551-initial` (1.0): tenants, users, sessions.
 * - `tenant-auth-20261122153000-roles-tokens-outbox-audit` (1.1): users' `role` and `email_verified`
 *   (the users of a 1.0 database become the owners of their tenants), one-time tokens, the mail outbox
 *   and the audit log.
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
];
