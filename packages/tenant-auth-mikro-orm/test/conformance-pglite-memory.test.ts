import type { MikroORM } from '@mikro-orm/pglite';
import { runStoreConformance } from 'tenant-auth-core/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMikroOrmStores } from '../src/create-mikro-orm-stores.js';
import { runTenantAuthMigrations } from '../src/run-tenant-auth-migrations.js';
import { openPglite, truncateTenantAuth } from './support/databases.js';

// One PGlite per file (start-up is the slow part), emptied before every test.
let orm: MikroORM;

beforeAll(async () => {
  orm = await openPglite();
  await runTenantAuthMigrations(orm);
});

afterAll(async () => {
  await orm?.close(true);
});

runStoreConformance({
  test: { describe, it, expect, beforeEach, afterEach },
  name: 'mikro-orm (PGlite in memory)',
  createStores: async () => {
    await truncateTenantAuth(orm);
    return createMikroOrmStores(orm);
  },
});
