import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MikroORM } from '@mikro-orm/core';
import { tenantAuthMigrations } from 'tenant-auth-mikro-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrm, migrate } from '../src/database.js';
import { backends, createTestDatabase } from './postgres.js';

// Every migration tenant-auth ships, in its order: the list grows with each release, the test with it.
const TENANT_AUTH = tenantAuthMigrations.map((migration) => migration.name);
const APP = 'app-20261122145222-create-project';

describe.each(backends)('migrations on $name', ({ name }) => {
  // A PGlite folder rather than memory, so that a second start finds what the first one did.
  let databaseUrl: string;
  let cleanUp: () => Promise<void>;
  let orm: MikroORM;

  beforeAll(async () => {
    if (name === 'postgres') {
      const db = await createTestDatabase();
      databaseUrl = db.url;
      cleanUp = db.drop;
    } else {
      databaseUrl = await mkdtemp(join(tmpdir(), 'custom-app-pglite-'));
      cleanUp = () => rm(databaseUrl, { recursive: true, force: true });
    }
  });
  afterAll(async () => {
    await orm?.close(true);
    await cleanUp?.();
  });

  const rows = async (sql: string, params: unknown[] = []) =>
    orm.em.getConnection().execute<Record<string, unknown>[]>(sql, params);

  it('applies tenant-auth’s migrations, then the app’s, on a fresh database', async () => {
    orm = createOrm(databaseUrl);
    expect(await migrate(orm)).toEqual([...TENANT_AUTH, APP]);
    // Each history in its own table.
    expect(await rows('select name from tenant_auth_migrations order by id')).toEqual(
      TENANT_AUTH.map((name) => ({ name })),
    );
    expect(await rows('select name from mikro_orm_migrations')).toEqual([{ name: APP }]);
  });

  it('applies nothing on a second start', async () => {
    await orm.close(true);
    orm = createOrm(databaseUrl);
    expect(await migrate(orm)).toEqual([]);
  });

  it('leaves the database as the entities describe it (the app’s migration matches Project)', async () => {
    expect(await orm.schema.getUpdateSchemaSQL()).toBe('');
  });

  it('deletes a tenant’s projects with the tenant (on delete cascade)', async () => {
    const tenantId = randomUUID();
    await rows(
      `insert into tenant_auth_tenant (id, slug, name, created_at) values (?, 'acme', 'Acme', now())`,
      [tenantId],
    );
    await rows(`insert into project (id, tenant_id, name, created_at) values (?, ?, 'Apollo', now())`, [
      randomUUID(),
      tenantId,
    ]);
    await rows('delete from tenant_auth_tenant where id = ?', [tenantId]);
    expect(await rows('select id from project where tenant_id = ?', [tenantId])).toEqual([]);
  });
});

it('cannot run the app’s migration before tenant-auth’s: project references tenant_auth_tenant', async () => {
  const orm = createOrm(undefined);
  try {
    await expect(orm.migrator.up()).rejects.toThrow(/tenant_auth_tenant/);
  } finally {
    await orm.close(true);
  }
});
