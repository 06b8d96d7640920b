import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/core';
import { MikroORM as PgliteMikroORM } from '@mikro-orm/pglite';
import type { TenantAuthStores, TenantRecord, UserRecord } from 'tenant-auth-core/store-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMikroOrmStores } from '../src/create-mikro-orm-stores.js';
import { runTenantAuthMigrations } from '../src/run-tenant-auth-migrations.js';
import { tenantAuthEntities } from '../src/tenant-auth-entities.js';
import {
  createTestPostgres,
  openPostgres,
  TEST_DATABASE_URL,
  type TestPostgres,
} from './support/databases.js';

// Reads of a tenant by id outside a transaction share a statement while one is out (sql/batched-reads.ts):
// a busy server makes one round trip for the reads that arrived during the last one. Each read still
// gets its own tenant, and sees what was committed before it was asked for.
const backends: {
  name: string;
  enabled: boolean;
  open: (onQuery: (sql: string) => string) => Promise<MikroORM>;
}[] = [
  {
    name: 'PGlite',
    enabled: true,
    open: async (onQuery) => {
      const orm = await PgliteMikroORM.init({ entities: [...tenantAuthEntities], onQuery });
      await runTenantAuthMigrations(orm);
      return orm;
    },
  },
  {
    name: 'PostgreSQL',
    enabled: Boolean(TEST_DATABASE_URL),
    open: async (onQuery) => {
      postgres = await createTestPostgres();
      await runTenantAuthMigrations(postgres.orm);
      return openPostgres(postgres.url, 10, { onQuery });
    },
  },
];
let postgres: TestPostgres | undefined;

const tenantOf = (name: string): TenantRecord => ({
  id: randomUUID(),
  slug: `${name}-${randomUUID().slice(0, 8)}`,
  name,
  createdAt: new Date('2026-11-30T00:00:00.000Z'),
  requireMfa: false,
});

const userOf = (tenant: TenantRecord, i: number): UserRecord => ({
  id: randomUUID(),
  tenantId: tenant.id,
  email: `user-${i}-${randomUUID().slice(0, 8)}@example.com`,
  passwordHash: '$2b$04$abcdefghijklmnopqrstuu0123456789012345678901234567890',
  role: 'owner',
  emailVerified: true,
  createdAt: new Date('2026-11-30T00:00:00.000Z'),
  active: true,
});

for (const backend of backends) {
  describe.skipIf(!backend.enabled)(`reads of a tenant by id on ${backend.name}`, () => {
    let orm: MikroORM;
    let stores: TenantAuthStores;
    let sent: string[] | null = null;
    let holdNextRead = false;
    const tenants = ['a', 'b', 'c', 'd'].map(tenantOf);
    const users = tenants.slice(0, 3).map((tenant, i) => userOf(tenant, i));

    beforeAll(async () => {
      orm = await backend.open((sql) => {
        if (!/from "?tenant_auth_(tenant|user)"?\s+where (id|\(tenant_id, id\))/.test(sql)) return sql;
        sent?.push(sql);
        if (!holdNextRead) return sql;
        // Held in the database for 300 ms: a statement that is still out when the next read is asked for.
        holdNextRead = false;
        return `${sql} and (select pg_sleep(0.3)) is not null`;
      });
      stores = createMikroOrmStores(orm);
      for (const tenant of tenants) await stores.tenants.create(tenant);
      for (const user of users) await stores.users.create(user);
    });

    afterAll(async () => {
      await orm?.close(true);
      await postgres?.drop();
      postgres = undefined;
    });

    it('answers reads asked for together with two statements, each read its own tenant', async () => {
      const [a, b, c, d] = tenants as [TenantRecord, TenantRecord, TenantRecord, TenantRecord];
      sent = [];
      const found = await Promise.all([
        stores.tenants.findById(a.id),
        stores.tenants.findById(b.id),
        stores.tenants.findById(c.id),
        stores.tenants.findById(d.id.toUpperCase()),
        stores.tenants.findById(randomUUID()),
        stores.tenants.findById(a.id),
        stores.tenants.findById('not-a-uuid'),
      ]);
      const statements = sent;
      sent = null;
      expect(found).toEqual([a, b, c, d, null, a, null]);
      // The first read went alone at once; the five asked for while it was out went as one.
      expect(statements).toHaveLength(2);
      expect(statements[0]).toMatch(/where id = (\$1|\?)$/);
      expect(statements[1]).toMatch(/where id = any\(/);
    });

    it('answers reads of users asked for together with two statements, each its own user, none across tenants', async () => {
      const [u0, u1, u2] = users as [UserRecord, UserRecord, UserRecord];
      sent = [];
      const found = await Promise.all([
        stores.users.findById(u0.tenantId, u0.id),
        stores.users.findById(u1.tenantId, u1.id),
        // A user asked for in another tenant: none, even when read beside the same user in its own.
        stores.users.findById(u0.tenantId, u2.id),
        stores.users.findById(u2.tenantId, u2.id),
        stores.users.findById(u1.tenantId.toUpperCase(), u1.id.toUpperCase()),
        stores.users.findById(u0.tenantId, randomUUID()),
      ]);
      const statements = sent;
      sent = null;
      expect(found.map((user) => user?.id ?? null)).toEqual([u0.id, u1.id, null, u2.id, u1.id, null]);
      expect(found[1]).toMatchObject({ email: u1.email, tenantId: u1.tenantId, role: 'owner' });
      expect(statements).toHaveLength(2);
      expect(statements[1]).toMatch(/where \(tenant_id, id\) in \(select \* from unnest\(/);
    });

    it.skipIf(backend.name !== 'PostgreSQL')(
      'answers a read asked for while an earlier one is out with a statement of its own, which sees what was committed meanwhile',
      async () => {
        const tenant = tenants[2] as TenantRecord;
        holdNextRead = true;
        const earlier = stores.tenants.findById(tenant.id);
        // Committed on another connection while the earlier read is held in the database.
        expect(await stores.tenants.setRequireMfa?.(tenant.id, true)).toBe(true);
        sent = [];
        const later = await stores.tenants.findById(tenant.id);
        const statements = sent;
        sent = null;
        expect(later?.requireMfa).toBe(true);
        expect(statements).toHaveLength(1);
        // The earlier read's statement took its snapshot before the change.
        expect((await earlier)?.requireMfa).toBe(false);
      },
    );
  });
}
