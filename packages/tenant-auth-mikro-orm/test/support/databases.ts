import { randomBytes } from 'node:crypto';
import type { MikroORM as CoreMikroORM } from '@mikro-orm/core';
import { MikroORM as PgliteMikroORM } from '@mikro-orm/pglite';
import { MikroORM as PostgresMikroORM } from '@mikro-orm/postgresql';
import { tenantAuthEntities } from '../../src/tenant-auth-entities.js';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;

/** Empties the tenant-auth tables (stores must start over empty storage). */
export async function truncateTenantAuth(orm: CoreMikroORM): Promise<void> {
  await orm.em
    .getConnection()
    .execute('truncate table tenant_auth_session, tenant_auth_user, tenant_auth_tenant cascade', [], 'run');
}

/** An ORM over an in-memory PGlite, or one persisted in `dataDir`. */
export async function openPglite(dataDir?: string): Promise<PgliteMikroORM> {
  return PgliteMikroORM.init({
    entities: [...tenantAuthEntities],
    ...(dataDir === undefined ? {} : { dbName: dataDir }),
  });
}

/** A fresh PostgreSQL database with a random name on the TEST_DATABASE_URL server, dropped by `drop()`. */
export interface TestPostgres {
  orm: PostgresMikroORM;
  dbName: string;
  drop(): Promise<void>;
}

export async function createTestPostgres(options: { poolMax?: number } = {}): Promise<TestPostgres> {
  if (!TEST_DATABASE_URL) throw new Error('TEST_DATABASE_URL is not set');
  const dbName = `tenant_auth_test_${randomBytes(6).toString('hex')}`;
  const admin = await PostgresMikroORM.init({
    entities: [...tenantAuthEntities],
    clientUrl: TEST_DATABASE_URL,
  });
  await admin.em.getConnection().execute(`create database "${dbName}"`, [], 'run');
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${dbName}`;
  const orm = await PostgresMikroORM.init({
    entities: [...tenantAuthEntities],
    clientUrl: url.toString(),
    pool: { max: options.poolMax ?? 25 },
  });
  return {
    orm,
    dbName,
    async drop() {
      await orm.close(true);
      await admin.em.getConnection().execute(`drop database if exists "${dbName}" with (force)`, [], 'run');
      await admin.close(true);
    },
  };
}
