import { runStoreConformance } from 'tenant-auth-core/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMikroOrmStores } from '../src/create-mikro-orm-stores.js';
import { runTenantAuthMigrations } from '../src/run-tenant-auth-migrations.js';
import {
  createTestPostgres,
  TEST_DATABASE_URL,
  type TestPostgres,
  truncateTenantAuth,
} from './support/databases.js';

describe.skipIf(!TEST_DATABASE_URL)('PostgreSQL', () => {
  // A database of its own for this file, so reruns and parallel files do not collide.
  let db: TestPostgres;

  beforeAll(async () => {
    db = await createTestPostgres();
    await runTenantAuthMigrations(db.orm);
  });

  afterAll(async () => {
    await db?.drop();
  });

  runStoreConformance({
    test: { describe, it, expect, beforeEach, afterEach },
    name: 'mikro-orm (PostgreSQL)',
    createStores: async () => {
      await truncateTenantAuth(db.orm);
      return createMikroOrmStores(db.orm);
    },
  });
});
