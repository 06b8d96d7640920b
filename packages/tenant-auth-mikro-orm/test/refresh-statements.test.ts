import { MikroORM as PgliteMikroORM } from '@mikro-orm/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMikroOrmStores } from '../src/create-mikro-orm-stores.js';
import { runTenantAuthMigrations } from '../src/run-tenant-auth-migrations.js';
import { tenantAuthEntities } from '../src/tenant-auth-entities.js';
import { authOn, createTestPostgres, TEST_DATABASE_URL } from './support/databases.js';

// Refresh is the busiest write of all (ARCHITECTURE.md, "Refresh rotation"): on the MikroORM stores the
// refresh of a current token is one statement (rotateCurrent), whatever else changes around it.
describe('a refresh on the MikroORM stores (PGlite)', () => {
  let orm: PgliteMikroORM;
  let statements: string[] | null = null;

  beforeAll(async () => {
    orm = await PgliteMikroORM.init({
      entities: [...tenantAuthEntities],
      onQuery: (sql) => {
        statements?.push(sql);
        return sql;
      },
    });
    await runTenantAuthMigrations(orm);
  });

  afterAll(async () => {
    await orm?.close(true);
  });

  it('sends one statement for a refresh of the current token: the rotation, its audit record and the user', async () => {
    const auth = authOn(createMikroOrmStores(orm));
    const registered = await auth.register({ email: 'ada@example.com', password: 'Tr1cky-Harbour-Lantern' });
    statements = [];
    const refreshed = await auth.refresh(registered.refreshToken);
    const sent = statements;
    statements = null;
    expect(refreshed.user).toEqual(registered.user);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(/^with rotated as \(\s*update "tenant_auth_session"/);
    expect(sent[0]).toMatch(/insert into "tenant_auth_audit_event"/);
    expect(sent[0]).toMatch(/from "tenant_auth_user"/);
  });

  it('sends five for the token a rotation replaced, within the grace period: the miss, two reads, the re-issue record and its webhook queueing', async () => {
    const auth = authOn(createMikroOrmStores(orm));
    const registered = await auth.register({ email: 'bob@example.com', password: 'Tr1cky-Harbour-Lantern' });
    const refreshed = await auth.refresh(registered.refreshToken);
    statements = [];
    const again = await auth.refresh(registered.refreshToken);
    const sent = statements;
    statements = null;
    expect(again.refreshToken).toBe(refreshed.refreshToken);
    // The one-step rotation finds nothing current (one statement more than before it existed), then the
    // session is read with its user, read again, and the re-issue recorded with its webhook deliveries (1.3:
    // the tenant's subscribed endpoints are looked up in the event's transaction; none here, so no insert).
    expect(sent).toHaveLength(5);
    expect(sent[0]).toMatch(/^with rotated as \(\s*update "tenant_auth_session"/);
    expect(sent[1]).toMatch(/from "tenant_auth_session"/);
    expect(sent[1]).toMatch(/from "tenant_auth_user"/);
    expect(sent[2]).toMatch(/from "tenant_auth_session" where id = /);
    expect(sent[3]).toMatch(/insert into "tenant_auth_audit_event"/);
    expect(sent[4]).toMatch(/from "tenant_auth_webhook_endpoint"/);
  });
});

describe.skipIf(!TEST_DATABASE_URL)('the refresh read on PostgreSQL', () => {
  it('reads the user with the session when the application has pg hand json over as text', async () => {
    const db = await createTestPostgres();
    try {
      await runTenantAuthMigrations(db.orm);
      // An application may replace pg's parsers; the user then arrives as the JSON text itself.
      const pool = await db.orm.em.getConnection().getNativeClient();
      const types = (
        pool as unknown as {
          options: { types: { setTypeParser(oid: number, parse: (v: string) => unknown): void } };
        }
      ).options.types;
      types.setTypeParser(114, (text) => text);
      const auth = authOn(createMikroOrmStores(db.orm));
      const registered = await auth.register({
        email: 'ada@example.com',
        password: 'Tr1cky-Harbour-Lantern',
      });
      expect((await db.orm.em.getConnection().execute(`select '{"a":1}'::json as j`))[0]).toEqual({
        j: '{"a":1}',
      });
      const refreshed = await auth.refresh(registered.refreshToken);
      expect(refreshed.user).toEqual(registered.user);
      // The same token again, within the grace period: the two-step read parses the user too.
      const again = await auth.refresh(registered.refreshToken);
      expect(again.user).toEqual(registered.user);
      expect(again.refreshToken).toBe(refreshed.refreshToken);
    } finally {
      await db.drop();
    }
  });
});
