import type { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTenantAuthMigrations } from '../src/run-tenant-auth-migrations.js';
import { MikroOrmSessionStore } from '../src/stores/mikro-orm-session-store.js';
import {
  createTestPostgres,
  openPostgres,
  TEST_DATABASE_URL,
  type TestPostgres,
} from './support/databases.js';

const NOW = new Date('2026-03-01T00:00:00.000Z');

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

describe.skipIf(!TEST_DATABASE_URL)('query plans on PostgreSQL (5,000 sessions, analysed)', () => {
  let db: TestPostgres;
  let traced: MikroORM;
  const captured: { sql: string; params: readonly unknown[] }[] = [];
  let tenantId: string;
  let userId: string;

  beforeAll(async () => {
    db = await createTestPostgres();
    await runTenantAuthMigrations(db.orm);
    const conn = db.orm.em.getConnection();
    // 100 tenants with 5 users each, 10 sessions per user: 5,000 sessions. One in ten expired, one in
    // twenty revoked, the rest active; realistic enough for the planner's statistics.
    await conn.execute(
      `insert into tenant_auth_tenant (id, slug, name, created_at)
       select gen_random_uuid(), 'tenant-' || t, 'Tenant ' || t, now() from generate_series(1, 100) t`,
      [],
      'run',
    );
    await conn.execute(
      `insert into tenant_auth_user (id, tenant_id, email, password_hash, created_at)
       select gen_random_uuid(), t.id, 'user-' || u || '@' || t.slug || '.example', 'x', now()
       from tenant_auth_tenant t cross join generate_series(1, 5) u`,
      [],
      'run',
    );
    await conn.execute(
      `insert into tenant_auth_session (id, tenant_id, user_id, device_info, created_at, last_used_at,
         expires_at, absolute_expires_at, revoked_at, refresh_hash, refresh_jti, refresh_issued_at, refresh_expires_at)
       select gen_random_uuid(), u.tenant_id, u.id, 'device', ?::timestamptz - s * interval '1 hour', ?::timestamptz,
         case when s = 1 then ?::timestamptz - interval '1 day' else ?::timestamptz + interval '5 days' end,
         ?::timestamptz + interval '20 days',
         case when s = 2 and random() < 0.5 then ?::timestamptz - interval '2 days' end,
         md5(random()::text) || md5(random()::text), 'jti', ?::timestamptz, ?::timestamptz + interval '7 days'
       from tenant_auth_user u cross join generate_series(1, 10) s`,
      Array.from({ length: 8 }, () => NOW.toISOString()),
      'run',
    );
    await conn.execute('analyze', [], 'run');
    const user = (await conn.execute('select id, tenant_id from tenant_auth_user limit 1', [], 'all')) as {
      id: string;
      tenant_id: string;
    }[];
    userId = user[0]?.id ?? '';
    tenantId = user[0]?.tenant_id ?? '';
    traced = await openPostgres(db.url, 2, {
      onQuery: (sql, params) => {
        captured.push({ sql, params });
        return sql;
      },
    });
  });

  afterAll(async () => {
    await traced?.close(true);
    await db?.drop();
  });

  /** Runs a store method, then EXPLAINs (without executing) the statement it sent. */
  async function planOf(run: (store: MikroOrmSessionStore) => Promise<unknown>): Promise<PlanNode[]> {
    captured.length = 0;
    const store = new MikroOrmSessionStore(traced);
    await run(store);
    const statement = captured.find((q) => /tenant_auth_session/.test(q.sql));
    if (!statement) throw new Error('no statement captured');
    const rows = (await db.orm.em
      .getConnection()
      .execute(`explain (format json) ${statement.sql}`, [...statement.params], 'all')) as {
      'QUERY PLAN': { Plan: PlanNode }[];
    }[];
    const plan = rows[0]?.['QUERY PLAN'][0]?.Plan;
    if (!plan) throw new Error('no plan');
    return nodes(plan);
  }

  const sessionScans = (plan: PlanNode[]) => plan.filter((n) => n['Relation Name'] === 'tenant_auth_session');

  it("lists a user's active sessions through the (user_id, tenant_id, expires_at) index", async () => {
    const plan = await planOf((store) => store.listActiveForUser(tenantId, userId, NOW));
    const scans = sessionScans(plan);
    expect(scans.length).toBeGreaterThan(0);
    for (const scan of scans) {
      expect(scan['Node Type']).not.toBe('Seq Scan');
      expect(scan['Index Name']).toBe('tenant_auth_session_user_active_idx');
    }
  });

  it('finds the rows to clean up through the expires_at and revoked_at indexes', async () => {
    // EXPLAIN does not execute the DELETE; the store call before it does delete one batch of 100.
    const plan = await planOf((store) =>
      store.deleteExpired({ expiredBefore: NOW, revokedBefore: NOW, batchSize: 100 }),
    );
    const scans = sessionScans(plan);
    expect(scans.map((s) => s['Node Type'])).not.toContain('Seq Scan');
    // Bitmap index scans carry the index name but no relation name.
    const indexes = new Set(plan.map((n) => n['Index Name']).filter((name) => name !== undefined));
    expect(indexes).toContain('tenant_auth_session_expires_at_idx');
    expect(indexes).toContain('tenant_auth_session_revoked_at_idx');
    // and the DELETE reaches the chosen rows by primary key, not by scanning the table
    expect(indexes).toContain('tenant_auth_session_pkey');
  });
});
