import type { MigrationObject } from '@mikro-orm/core';
import { TenantAuthInitialMigration } from './migrations/migration-20261121132551-initial.js';

/**
 * The migrations of tenant-auth, oldest first, as MikroORM `migrationsList` entries with stable names.
 * `runTenantAuthMigrations` applies them; an application that prefers one migration list can append
 * them to its own `migrations.migrationsList` instead.
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
];
