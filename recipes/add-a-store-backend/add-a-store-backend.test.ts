import pg from 'pg';
import { createTenantAuth } from 'tenant-auth-core';
import { runStoreConformance } from 'tenant-auth-core/testing';
import { runTenantAuthMigrations } from 'tenant-auth-mikro-orm';
import { createSqlStores, type SqlDriver } from 'tenant-auth-mikro-orm/sql';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
// The schema is MikroORM's (the tenant-auth migrations), so the test makes its databases with the
// MikroORM package's test helpers; the stores under test then run on pg and PGlite alone.
import {
  createTestPostgres,
  openPglite,
  TEST_DATABASE_URL,
  type TestPostgres,
} from '../../packages/tenant-auth-mikro-orm/test/support/databases.js';
import { createPgStores, type PgliteDatabase, pgDriver, pgliteDriver } from './add-a-store-backend.js';

/** Empties the tenant-auth tables (the conformance suite starts every test on empty storage). */
async function truncate(driver: SqlDriver): Promise<void> {
  await driver.execute(
    `truncate table tenant_auth_audit_event, tenant_auth_outbox_message, tenant_auth_one_time_token,
       tenant_auth_webauthn_challenge, tenant_auth_session, tenant_auth_user, tenant_auth_tenant cascade`,
    [],
  );
}

const test = { describe, it, expect, beforeEach, afterEach };

describe('a store backend on PGlite, without MikroORM', () => {
  let orm: Awaited<ReturnType<typeof openPglite>>;
  let db: PgliteDatabase;

  beforeAll(async () => {
    // MikroORM makes the schema and holds the PGlite instance; every statement below is the driver's.
    orm = await openPglite();
    await runTenantAuthMigrations(orm);
    db = await orm.em.getConnection().getNativeClient();
  });

  afterAll(async () => {
    await orm?.close(true);
  });

  runStoreConformance({
    test,
    name: 'the recipe’s PGlite driver',
    createStores: async () => {
      await truncate(pgliteDriver(db));
      return createSqlStores(pgliteDriver(db));
    },
  });

  it('serves tenant-auth: a registration, then a refresh in one statement', async () => {
    await truncate(pgliteDriver(db));
    const sent: string[] = [];
    const counted: PgliteDatabase = {
      query: (text, values) => {
        sent.push(text);
        return db.query(text, values);
      },
      transaction: (fn) => db.transaction(fn),
    };
    const auth = createTenantAuth({
      stores: createSqlStores(pgliteDriver(counted)),
      accessToken: { secret: 'recipe-access-secret-0123456789abcdef' },
      refreshSecret: 'recipe-refresh-secret-0123456789abcdef',
      passwordHashing: { cost: 4 },
      rateLimit: false,
      logger: { error() {}, warn() {}, info() {} },
    });
    const registered = await auth.register({ email: 'ada@example.com', password: 'Tr1cky-Harbour-Lantern' });
    sent.length = 0;
    const refreshed = await auth.refresh(registered.refreshToken);
    expect(refreshed.user).toEqual(registered.user);
    // The statement the MikroORM stores send, with pg's placeholders: the SQL is stated once.
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(/^with rotated as \(\s*update "tenant_auth_session"/);
    expect(sent[0]).toMatch(/refresh_hash = \$1/);
  });
});

describe.skipIf(!TEST_DATABASE_URL)('a store backend on PostgreSQL through pg', () => {
  // A database of its own for this file, dropped after it.
  let database: TestPostgres;
  let pool: pg.Pool;

  beforeAll(async () => {
    database = await createTestPostgres();
    await runTenantAuthMigrations(database.orm);
    pool = new pg.Pool({ connectionString: database.url, max: 10 });
  });

  afterAll(async () => {
    await pool?.end();
    await database?.drop();
  });

  runStoreConformance({
    test,
    name: 'the recipe’s pg driver',
    createStores: async () => {
      await truncate(pgDriver(pool));
      return createPgStores(pool);
    },
  });
});
