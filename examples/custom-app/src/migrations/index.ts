import type { MigrationObject } from '@mikro-orm/core';
import { CreateProjectMigration } from './migration-20261122145222-create-project.js';

/**
 * The application's migrations, oldest first, with stable names (recorded in `mikro_orm_migrations`).
 * Add each new one at the end.
 */
export const appMigrations: MigrationObject[] = [
  { name: 'app-20261122145222-create-project', class: CreateProjectMigration },
];
