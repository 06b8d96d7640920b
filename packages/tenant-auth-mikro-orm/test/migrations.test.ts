import { randomUUID } from 'node:crypto';
import type { MikroORM as CoreMikroORM } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { MikroORM as PgliteMikroORM } from '@mikro-orm/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMikroOrmStores } from '../src/create-mikro-orm-stores.js';
import { runTenantAuthMigrations } from '../src/run-tenant-auth-migrations.js';
import { tenantAuthEntities } from '../src/tenant-auth-entities.js';
import { tenantAuthMigrations } from '../src/tenant-auth-migrations.js';
import {
  countRows,
  createTestPostgres,
  openPglite,
  openPostgres,
  TEST_DATABASE_URL,
  type TestPostgres,
} from './support/databases.js';

const INITIAL = 'tenant-auth-20261121132551-initial';

/** The SQL MikroORM would run to bring the database to the entities' schema; empty when they agree. */
async function pendingSchemaDiff(orm: CoreMikroORM): Promise<string> {
  const sql = await orm.schema.getUpdateSchemaSQL({ wrap: false });
  return sql
    .split('\n')
    .filter((line) => line.trim() !== '' && !/^set names/i.test(line))
    .join('\n');
}

function migrationContract(open: () => Promise<{ orm: CoreMikroORM; close: () => Promise<void> }>) {
  let orm: CoreMikroORM;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ orm, close } = await open());
  });
  afterAll(async () => {
    await close?.();
  });

  it('applies the shipped migrations once and records them in their own table', async () => {
    expect(await runTenantAuthMigrations(orm)).toEqual([INITIAL]);
    expect(await runTenantAuthMigrations(orm)).toEqual([]);
    expect(await countRows(orm, 'tenant_auth_migrations')).toBe(1);
  });

  it('leaves no difference between the migrated schema and the entity metadata', async () => {
    expect(await pendingSchemaDiff(orm)).toBe('');
  });

  it('would notice a difference (the check above is not vacuous)', async () => {
    await orm.em
      .getConnection()
      .execute('drop index tenant_auth_session_previous_refresh_hash_idx', [], 'run');
    expect(await pendingSchemaDiff(orm)).toContain('tenant_auth_session_previous_refresh_hash_idx');
    await orm.em
      .getConnection()
      .execute(
        'create index "tenant_auth_session_previous_refresh_hash_idx" on "tenant_auth_session" ("previous_refresh_hash")',
        [],
        'run',
      );
    expect(await pendingSchemaDiff(orm)).toBe('');
  });

  it('creates timestamptz columns only, uuid keys and the foreign keys', async () => {
    const columns = (await orm.em.getConnection().execute(
      `select table_name, column_name, data_type from information_schema.columns
       where table_name like 'tenant_auth_%' and table_name <> 'tenant_auth_migrations'`,
      [],
      'all',
    )) as { table_name: string; column_name: string; data_type: string }[];
    const times = columns.filter((c) => c.column_name.endsWith('_at'));
    expect(times.length).toBe(10);
    for (const c of times) expect(c.data_type).toBe('timestamp with time zone');
    for (const c of columns.filter((c) => c.column_name === 'id' || c.column_name.endsWith('_id'))) {
      expect(c.data_type).toBe('uuid');
    }
    const fks = (await orm.em
      .getConnection()
      .execute(
        `select conname from pg_constraint where contype = 'f' and conrelid::regclass::text like 'tenant_auth_%' order by conname`,
        [],
        'all',
      )) as { conname: string }[];
    expect(fks.map((f) => f.conname)).toEqual([
      'tenant_auth_session_tenant_id_foreign',
      'tenant_auth_session_user_id_foreign',
      'tenant_auth_user_tenant_id_foreign',
    ]);
  });
}

describe('migrations on PGlite', () => {
  migrationContract(async () => {
    const orm = await openPglite();
    return { orm, close: () => orm.close(true) };
  });

  it('also work from an application migration list (migrationsList)', async () => {
    const orm = await PgliteMikroORM.init({
      entities: [...tenantAuthEntities],
      extensions: [Migrator],
      migrations: { migrationsList: [...tenantAuthMigrations], snapshot: false, silent: true },
    });
    try {
      const applied = await orm.migrator.up();
      expect(applied.map((m) => m.name)).toEqual([INITIAL]);
      expect(await pendingSchemaDiff(orm)).toBe('');
    } finally {
      await orm.close(true);
    }
  });
});

describe.skipIf(!TEST_DATABASE_URL)('migrations on PostgreSQL', () => {
  let db: TestPostgres;
  migrationContract(async () => {
    db = await createTestPostgres();
    return { orm: db.orm, close: () => db.drop() };
  });

  it("creates the tables in the ORM's configured schema, where the stores then find them", async () => {
    const fresh = await createTestPostgres();
    const orm = await openPostgres(fresh.url, 2, { schema: 'auth' });
    try {
      expect(await runTenantAuthMigrations(orm)).toEqual([INITIAL]);
      const tables = (await orm.em.getConnection().execute(
        `select table_schema || '.' || table_name as name from information_schema.tables
         where table_name like 'tenant_auth_%' order by 1`,
        [],
        'all',
      )) as { name: string }[];
      expect(tables.map((t) => t.name)).toEqual([
        'auth.tenant_auth_migrations',
        'auth.tenant_auth_session',
        'auth.tenant_auth_tenant',
        'auth.tenant_auth_user',
      ]);
      expect(await pendingSchemaDiff(orm)).toBe('');
      const { tenantAuthStore, sessionStore } = createMikroOrmStores(orm);
      const tenantId = randomUUID();
      await tenantAuthStore.createTenantWithOwner({
        tenant: { id: tenantId, slug: 'schema-test', name: 'Schema', createdAt: new Date() },
        user: {
          id: randomUUID(),
          tenantId,
          email: 'ada@example.com',
          passwordHash: 'x',
          createdAt: new Date(),
        },
      });
      expect((await tenantAuthStore.findUserByEmail('ada@example.com'))?.tenantId).toBe(tenantId);
      expect(
        await sessionStore.deleteExpired({
          expiredBefore: new Date(),
          revokedBefore: new Date(),
          batchSize: 10,
        }),
      ).toBe(0);
    } finally {
      await orm.close(true);
      await fresh.drop();
    }
  });

  it('applies each migration once when several instances start at the same time', async () => {
    const fresh = await createTestPostgres();
    const instances = await Promise.all([1, 2, 3].map(() => openPostgres(fresh.url, 2)));
    try {
      const results = await Promise.all(instances.map((orm) => runTenantAuthMigrations(orm)));
      expect(results.flat()).toEqual([INITIAL]);
      expect(await countRows(fresh.orm, 'tenant_auth_migrations')).toBe(1);
    } finally {
      await Promise.all(instances.map((orm) => orm.close(true)));
      await fresh.drop();
    }
  });
});
