import { randomUUID } from 'node:crypto';
import { MikroORM as PostgresMikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMikroOrmStores } from '../src/create-mikro-orm-stores.js';
import { runTenantAuthMigrations } from '../src/run-tenant-auth-migrations.js';
import { tenantAuthEntities } from '../src/tenant-auth-entities.js';
import { authOn, createTestPostgres, TEST_DATABASE_URL, type TestPostgres } from './support/databases.js';

// On PostgreSQL the stores send their statements as named prepared statements on the ORM's pg pool
// (pg-pool-driver.ts): parsed and planned once per connection. What an application configures on the ORM
// to watch its queries keeps working, and `preparedStatements: false` sends them through the ORM as before.
describe.skipIf(!TEST_DATABASE_URL)('prepared statements on PostgreSQL', () => {
  let db: TestPostgres;
  const opened: PostgresMikroORM[] = [];

  /** An ORM with one connection, so that what the stores prepared is visible to the next statement. */
  async function oneConnection(
    options: { debug?: string[]; logged?: string[]; onQuery?: (sql: string) => string } = {},
  ) {
    const orm = await PostgresMikroORM.init({
      entities: [...tenantAuthEntities],
      clientUrl: db.url,
      pool: { min: 1, max: 1 },
      ...(options.onQuery ? { onQuery: options.onQuery } : {}),
      ...(options.debug ? { debug: options.debug as ['query'] } : {}),
      ...(options.logged ? { logger: (message: string) => options.logged?.push(message) } : {}),
    });
    opened.push(orm);
    return orm;
  }

  async function prepared(orm: PostgresMikroORM): Promise<string[]> {
    const rows = (await orm.em
      .getConnection()
      .execute(`select name from pg_prepared_statements where name like 'tenant_auth_%'`)) as {
      name: string;
    }[];
    return rows.map((r) => r.name);
  }

  beforeAll(async () => {
    db = await createTestPostgres();
    await runTenantAuthMigrations(db.orm);
  });

  afterAll(async () => {
    for (const orm of opened) await orm.close(true);
    await db?.drop();
  });

  it('prepares each statement once per connection and reuses it', async () => {
    const orm = await oneConnection();
    const auth = authOn(createMikroOrmStores(orm));
    const { user, accessToken } = await auth.register({
      email: 'prepared@example.com',
      password: 'Tr1cky-Harbour-Lantern',
    });
    const claims = await auth.verifyAccessToken(accessToken);
    await auth.getMyTenant(claims);
    const after = await prepared(orm);
    expect(after.length).toBeGreaterThan(0);
    // The second read of the tenant prepares nothing new: its statement is the one the first one prepared.
    expect((await auth.getMyTenant(claims)).id).toBe(user.tenantId);
    expect(await prepared(orm)).toEqual(after);
  });

  it('prepares nothing with preparedStatements: false', async () => {
    const orm = await oneConnection();
    const auth = authOn(createMikroOrmStores(orm, { preparedStatements: false }));
    const { accessToken } = await auth.register({
      email: 'unprepared@example.com',
      password: 'Tr1cky-Harbour-Lantern',
    });
    await auth.getMyTenant(await auth.verifyAccessToken(accessToken));
    expect(await prepared(orm)).toEqual([]);
  });

  it("leaves the statements to the ORM while it logs queries, so the application's log sees them", async () => {
    const logged: string[] = [];
    const orm = await oneConnection({ debug: ['query'], logged });
    const auth = authOn(createMikroOrmStores(orm));
    await auth.register({ email: 'logged@example.com', password: 'Tr1cky-Harbour-Lantern' });
    expect(logged.some((line) => line.includes('insert into "tenant_auth_tenant"'))).toBe(true);
    expect(await prepared(orm)).toEqual([]);
  });

  it('still answers after a migration changed the result of a prepared statement', async () => {
    const orm = await oneConnection();
    const auth = authOn(createMikroOrmStores(orm));
    const { user, accessToken } = await auth.register({
      email: 'migrated@example.com',
      password: 'Tr1cky-Harbour-Lantern',
    });
    const claims = await auth.verifyAccessToken(accessToken);
    await auth.getMyTenant(claims);
    // A column of its result changes type while the connection holds the statement: PostgreSQL refuses the
    // old one ("cached plan must not change result type"); the store sends it again, unnamed.
    const ddl = db.orm.em.getConnection();
    await ddl.execute('alter table tenant_auth_tenant alter column name type varchar(200)');
    try {
      expect((await auth.getMyTenant(claims)).id).toBe(user.tenantId);
      expect((await auth.getMyTenant(claims)).id).toBe(user.tenantId);
    } finally {
      await ddl.execute('alter table tenant_auth_tenant alter column name type text');
    }
  });

  it('rolls a failed transaction back and keeps its connection usable', async () => {
    const orm = await oneConnection();
    const stores = createMikroOrmStores(orm);
    const auth = authOn(stores);
    const { user } = await auth.register({
      email: 'rollback@example.com',
      password: 'Tr1cky-Harbour-Lantern',
    });
    await expect(
      stores.transaction(async (tx) => {
        await tx.tenants.setRequireMfa(user.tenantId, true);
        throw new Error('the caller gives up');
      }),
    ).rejects.toThrow('the caller gives up');
    expect((await stores.tenants.findById(user.tenantId))?.requireMfa).toBe(false);
    // A statement that fails inside: the transaction rolls back, the one connection serves the next one.
    const tenant = await stores.tenants.findById(user.tenantId);
    if (tenant === null) throw new Error('the tenant is missing');
    await expect(
      stores.transaction(async (tx) => {
        await tx.tenants.setRequireMfa(user.tenantId, true);
        // Another tenant with this one's slug.
        await tx.tenants.create({ ...tenant, id: randomUUID() });
      }),
    ).rejects.toMatchObject({ code: 'slug_taken' });
    expect((await stores.tenants.findById(user.tenantId))?.requireMfa).toBe(false);
  });

  it('keeps the connection after an error PostgreSQL answered outside a transaction', async () => {
    const orm = await oneConnection();
    const stores = createMikroOrmStores(orm);
    const { user } = await authOn(stores).register({
      email: 'kept@example.com',
      password: 'Tr1cky-Harbour-Lantern',
    });
    const backend = async () =>
      ((await orm.em.getConnection().execute('select pg_backend_pid() as pid')) as { pid: number }[])[0]?.pid;
    const before = await backend();
    const tenant = await stores.tenants.findById(user.tenantId);
    if (tenant === null) throw new Error('the tenant is missing');
    await expect(stores.tenants.create({ ...tenant, id: randomUUID() })).rejects.toMatchObject({
      code: 'slug_taken',
    });
    expect(await backend()).toBe(before);
  });

  it("refuses a statement of a transaction that has ended (it would run in the client's next one)", async () => {
    const orm = await oneConnection();
    const stores = createMikroOrmStores(orm);
    const { user } = await authOn(stores).register({
      email: 'ended@example.com',
      password: 'Tr1cky-Harbour-Lantern',
    });
    let leaked: Parameters<Parameters<typeof stores.transaction>[0]>[0] | undefined;
    await stores.transaction(async (tx) => {
      leaked = tx;
    });
    await expect(leaked?.tenants.setRequireMfa(user.tenantId, true)).rejects.toMatchObject({
      code: 'internal_error',
    });
    expect((await stores.tenants.findById(user.tenantId))?.requireMfa).toBe(false);
  });

  it('sends a statement that onQuery rewrote unnamed (a comment per request would prepare each anew)', async () => {
    let request = 0;
    const orm = await oneConnection({ onQuery: (sql) => `/* request ${++request} */ ${sql}` });
    const auth = authOn(createMikroOrmStores(orm));
    const { accessToken } = await auth.register({
      email: 'hinted@example.com',
      password: 'Tr1cky-Harbour-Lantern',
    });
    await auth.getMyTenant(await auth.verifyAccessToken(accessToken));
    expect(request).toBeGreaterThan(0);
    expect(await prepared(orm)).toEqual([]);
  });

  // Last: what it learns (the connection does not hold what pg prepared) holds for the rest of the file.
  it('goes on unnamed when the connection no longer holds its statements (a pooler, DISCARD ALL)', async () => {
    const orm = await oneConnection();
    const auth = authOn(createMikroOrmStores(orm));
    const { user, accessToken } = await auth.register({
      email: 'pooled@example.com',
      password: 'Tr1cky-Harbour-Lantern',
    });
    const claims = await auth.verifyAccessToken(accessToken);
    await auth.getMyTenant(claims);
    expect((await prepared(orm)).length).toBeGreaterThan(0);
    // What a pooler in transaction mode does to pg's idea of the connection: the statements are gone.
    await orm.em.getConnection().execute('deallocate all');
    expect((await auth.getMyTenant(claims)).id).toBe(user.tenantId);
    await auth.register({ email: 'pooled-2@example.com', password: 'Tr1cky-Harbour-Lantern' });
    expect(await prepared(orm)).toEqual([]);
  });
});
