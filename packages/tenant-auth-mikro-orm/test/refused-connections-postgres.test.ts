import { MikroORM as PostgresMikroORM } from '@mikro-orm/postgresql';
import { isTenantAuthError } from 'tenant-auth-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMikroOrmStores } from '../src/create-mikro-orm-stores.js';
import { runTenantAuthMigrations } from '../src/run-tenant-auth-migrations.js';
import { createTestPostgres, TEST_DATABASE_URL, type TestPostgres } from './support/databases.js';

describe.skipIf(!TEST_DATABASE_URL)('a PostgreSQL database that refuses connections (PostgreSQL)', () => {
  let db: TestPostgres;
  let admin: PostgresMikroORM;
  const dbName = () => new URL(db.url).pathname.slice(1);
  const allowConnections = (allow: boolean) =>
    admin.em.getConnection().execute(`alter database "${dbName()}" allow_connections ${allow}`, [], 'run');

  beforeAll(async () => {
    db = await createTestPostgres();
    await runTenantAuthMigrations(db.orm);
    admin = await PostgresMikroORM.init({
      entities: [],
      discovery: { warnWhenNoEntities: false },
      clientUrl: TEST_DATABASE_URL,
    });
  });
  afterAll(async () => {
    await allowConnections(true);
    await admin?.close(true);
    await db?.drop();
  });

  it('answers unavailable (503), not internal_error, and recovers when connections are allowed again', async () => {
    const { users } = createMikroOrmStores(db.orm);
    expect(await users.findByEmail('ada@example.com')).toBeNull();
    await allowConnections(false);
    // Existing pooled connections survive ALTER DATABASE; end them so the pool must reconnect.
    await admin.em
      .getConnection()
      .execute(
        'select pg_terminate_backend(pid) from pg_stat_activity where datname = ? and pid <> pg_backend_pid()',
        [dbName()],
      );
    // The first queries meet terminated pooled connections (57P01, ECONNRESET); once those are gone a
    // query must connect anew and the database refuses it (55000, "not currently accepting connections").
    // Every one of them is unavailable, and the refusal itself must be among them.
    const causes: (string | undefined)[] = [];
    for (let i = 0; i < 40 && !causes.includes('55000'); i++) {
      const err = await users.findByEmail('ada@example.com').catch((e: unknown) => e);
      expect(isTenantAuthError(err, 'unavailable')).toBe(true);
      expect((err as Error).message).not.toMatch(/accepting|database "/);
      causes.push((err as { cause?: { code?: string } }).cause?.code);
    }
    expect(causes).toContain('55000');
    await allowConnections(true);
    expect(await users.findByEmail('ada@example.com')).toBeNull();
  });
});
