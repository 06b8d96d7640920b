import { randomBytes, randomUUID } from 'node:crypto';
import type { MikroORM as CoreMikroORM } from '@mikro-orm/core';
import { MikroORM as PgliteMikroORM } from '@mikro-orm/pglite';
import { MikroORM as PostgresMikroORM } from '@mikro-orm/postgresql';
import { createTenantAuth } from 'tenant-auth-core';
import type { SessionRecord, TenantAuthStores, TenantRecord, UserRecord } from 'tenant-auth-core/store-kit';
import { tenantAuthEntities } from '../../src/tenant-auth-entities.js';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;

/** What the README tells applications to add: the tracking table is not one of their entities. */
const schemaGenerator = { skipTables: ['tenant_auth_migrations'] };

/** Empties the tenant-auth tables (stores must start over empty storage). */
export async function truncateTenantAuth(orm: CoreMikroORM): Promise<void> {
  await orm.em.getConnection().execute(
    `truncate table tenant_auth_audit_event, tenant_auth_outbox_message, tenant_auth_one_time_token,
         tenant_auth_session, tenant_auth_user, tenant_auth_tenant cascade`,
    [],
    'run',
  );
}

/** Counts the rows of a table (test bookkeeping). */
export async function countRows(orm: CoreMikroORM, table: string): Promise<number> {
  const rows = (await orm.em
    .getConnection()
    .execute(`select count(*)::int as n from ${table}`, [], 'all')) as {
    n: number;
  }[];
  return Number(rows[0]?.n);
}

/** An ORM over an in-memory PGlite, or one persisted in `dataDir`. */
export async function openPglite(dataDir?: string): Promise<PgliteMikroORM> {
  return PgliteMikroORM.init({
    entities: [...tenantAuthEntities],
    schemaGenerator,
    ...(dataDir === undefined ? {} : { dbName: dataDir }),
  });
}

/** A fresh PostgreSQL database with a random name on the TEST_DATABASE_URL server, dropped by `drop()`. */
export interface TestPostgres {
  orm: PostgresMikroORM;
  url: string;
  drop(): Promise<void>;
}

/** Opens another ORM on an existing database (e.g. a second application instance). */
export async function openPostgres(
  url: string,
  poolMax = 25,
  options: { onQuery?: (sql: string, params: readonly unknown[]) => string; schema?: string } = {},
): Promise<PostgresMikroORM> {
  return PostgresMikroORM.init({
    entities: [...tenantAuthEntities],
    schemaGenerator,
    clientUrl: url,
    pool: { max: poolMax },
    ...(options.onQuery === undefined ? {} : { onQuery: options.onQuery }),
    ...(options.schema === undefined ? {} : { schema: options.schema }),
  });
}

export async function createTestPostgres(): Promise<TestPostgres> {
  if (!TEST_DATABASE_URL) throw new Error('TEST_DATABASE_URL is not set');
  const dbName = `tenant_auth_test_${randomBytes(6).toString('hex')}`;
  const admin = await PostgresMikroORM.init({
    entities: [...tenantAuthEntities],
    clientUrl: TEST_DATABASE_URL,
  });
  await admin.em.getConnection().execute(`create database "${dbName}"`, [], 'run');
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${dbName}`;
  const orm = await openPostgres(url.toString());
  return {
    orm,
    url: url.toString(),
    async drop() {
      await orm.close(true);
      await admin.em.getConnection().execute(`drop database if exists "${dbName}" with (force)`, [], 'run');
      await admin.close(true);
    },
  };
}

/** A tenant and its owner in one transaction, as registration writes them. */
export async function createTenantWithOwner(
  stores: TenantAuthStores,
  input: { tenant: TenantRecord; user: UserRecord },
): Promise<{ tenant: TenantRecord; user: UserRecord }> {
  await stores.transaction(async (tx) => {
    await tx.tenants.create(input.tenant);
    await tx.users.create(input.user);
  });
  return input;
}

/** What tenant-auth 1.1 is configured with in these tests: no rate limits, cheap hashing, silent. */
export function authOn(stores: TenantAuthStores) {
  return createTenantAuth({
    stores,
    accessToken: { secret: 'mikro-orm-test-access-secret-0123456789' },
    refreshSecret: 'mikro-orm-test-refresh-secret-0123456789',
    passwordHashing: { cost: 4 },
    rateLimit: false,
    logger: { error() {}, warn() {}, info() {} },
  });
}

const T0 = new Date('2026-01-01T00:00:00.000Z');

/** An active session of `user` as core writes one (from 2026-01-01, a day long; refresh hash `a` x 64). */
export function sessionOf(user: UserRecord): SessionRecord {
  return {
    id: randomUUID(),
    tenantId: user.tenantId,
    userId: user.id,
    deviceInfo: 'Firefox on Linux',
    ipAddress: null,
    userAgent: null,
    createdAt: T0,
    lastUsedAt: T0,
    expiresAt: new Date(T0.getTime() + 86_400_000),
    absoluteExpiresAt: new Date(T0.getTime() + 30 * 86_400_000),
    revokedAt: null,
    refreshHash: 'a'.repeat(64),
    refreshJti: 'jti-0',
    refreshIssuedAt: T0,
    refreshExpiresAt: new Date(T0.getTime() + 86_400_000),
    previousRefreshHash: null,
    rotatedAt: null,
    amr: ['pwd'],
    authTime: T0,
  };
}
