import { performance } from 'node:perf_hooks';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { SessionStore, TransactionStores } from 'tenant-auth-core/store-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMikroOrmStores } from '../src/create-mikro-orm-stores.js';
import { runTenantAuthMigrations } from '../src/run-tenant-auth-migrations.js';
import {
  createTestPostgres,
  openPostgres,
  TEST_DATABASE_URL,
  type TestPostgres,
} from './support/databases.js';

const NOW = new Date('2026-03-01T00:00:00.000Z');
/** Within the fixtures' absolute expiry (20 days on): a rotation the later plans do not notice. */
const SEVEN_DAYS_ON = new Date(NOW.getTime() + 7 * 86_400_000);

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  'Scan Direction'?: string;
  'Actual Rows'?: number;
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
      `insert into tenant_auth_user (id, tenant_id, email, password_hash, role, created_at)
       select gen_random_uuid(), t.id, 'user-' || u || '@' || t.slug || '.example', 'x',
         case when u = 1 then 'owner' else 'member' end, now()
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
  async function planOf(run: (store: SessionStore) => Promise<unknown>): Promise<PlanNode[]> {
    captured.length = 0;
    const store = createMikroOrmStores(traced).sessions;
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

  it('reads a session and its user by refresh hash through the two hash indexes and the user primary key', async () => {
    const [row] = (await db.orm.em
      .getConnection()
      .execute(
        'select refresh_hash from tenant_auth_session where tenant_id = ? limit 1',
        [tenantId],
        'all',
      )) as {
      refresh_hash: string;
    }[];
    const found = await createMikroOrmStores(traced).sessions.findByRefreshHash(
      tenantId,
      row?.refresh_hash ?? '',
    );
    expect(found?.user?.tenantId).toBe(tenantId);
    const plan = await planOf((store) => store.findByRefreshHash(tenantId, row?.refresh_hash ?? ''));
    expect(plan.map((n) => n['Node Type'])).not.toContain('Seq Scan');
    const indexes = new Set(plan.map((n) => n['Index Name']).filter((name) => name !== undefined));
    expect(indexes).toContain('tenant_auth_session_refresh_hash_idx');
    expect(indexes).toContain('tenant_auth_session_previous_refresh_hash_idx');
    expect(indexes).toContain('tenant_auth_user_pkey');
  });

  it('rotates a current token in one statement through session and user indexes, no table scan', async () => {
    const [row] = (await db.orm.em.getConnection().execute(
      `select id, user_id, refresh_hash from tenant_auth_session
         where tenant_id = ? and revoked_at is null and expires_at > ?::timestamptz limit 1`,
      [tenantId, NOW.toISOString()],
      'all',
    )) as { id: string; user_id: string; refresh_hash: string }[];
    const expected = {
      sessionId: row?.id ?? '',
      userId: row?.user_id ?? '',
      refreshHash: row?.refresh_hash ?? '',
      activeAt: NOW,
    };
    const next = {
      refreshHash: 'f'.repeat(64),
      refreshJti: 'jti-next',
      refreshIssuedAt: NOW,
      refreshExpiresAt: SEVEN_DAYS_ON,
      expiresAt: SEVEN_DAYS_ON,
      lastUsedAt: NOW,
      rotatedAt: NOW,
    };
    const plan = await planOf(async (store) => {
      // It rotates (the store call before EXPLAIN runs it), so the plan is the one a refresh gets.
      expect((await store.rotateCurrent?.(tenantId, expected, next))?.session.id).toBe(expected.sessionId);
    });
    expect(plan.map((n) => n['Node Type'])).not.toContain('Seq Scan');
    const indexes = new Set(plan.map((n) => n['Index Name']).filter((name) => name !== undefined));
    // The session through an index the statement's conditions match (the planner picks among the primary
    // key, the hash index and the user's sessions: a handful of rows each), the user by its primary key.
    expect(
      [...indexes].some((name) => name.startsWith('tenant_auth_session_')),
      [...indexes].join(', '),
    ).toBe(true);
    expect(indexes).toContain('tenant_auth_user_pkey');
  });

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

const AUDIT_EVENTS = 1_000_000;
const AUDIT_USERS = 50;

describe.skipIf(!TEST_DATABASE_URL)(
  `query plans of the audit log on PostgreSQL (one tenant with ${AUDIT_EVENTS.toLocaleString('en')} events, analysed)`,
  () => {
    let db: TestPostgres;
    let traced: MikroORM;
    const captured: { sql: string; params: readonly unknown[] }[] = [];
    const tenantId = '01943b7e-0000-7000-8000-0000000000a1';
    const otherTenantId = '01943b7e-0000-7000-8000-0000000000a2';
    /** The n-th user of the tenant (1..AUDIT_USERS), as the generated events name them. */
    const userId = (n: number) => `01943b7e-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
    let middleId: string;

    beforeAll(async () => {
      db = await createTestPostgres();
      await runTenantAuthMigrations(db.orm);
      const conn = db.orm.em.getConnection();
      await conn.execute(
        `insert into tenant_auth_tenant (id, slug, name, created_at) values (?, 'busy', 'Busy', now()), (?, 'quiet', 'Quiet', now())`,
        [tenantId, otherTenantId],
        'run',
      );
      // One INSERT ... SELECT: a million events of one tenant and 50,000 of another, one a second, with
      // time-ordered ids as core makes them (UUIDv7: 48 bits of milliseconds, version 7, variant, then
      // what would be random). Types are skewed as in life (mostly refreshes and logins); actors and
      // subjects are 50 users; a few events have no actor.
      const started = performance.now();
      await conn.execute(
        `insert into tenant_auth_audit_event (id, tenant_id, type, at, actor_id, subject_id, session_id, ip_address,
           user_agent, request_id)
         select
           (lpad(to_hex(1767225600000 + n * 1000), 12, '0') || '70008' || lpad(to_hex(n), 15, '0'))::uuid,
           case when n % 21 = 0 then ?::uuid else ?::uuid end,
           (array['refreshed', 'refreshed', 'refreshed', 'login_succeeded', 'login_succeeded', 'login_failed',
             'logout', 'session_revoked', 'password_changed', 'member_role_changed'])[1 + n % 10],
           timestamptz '2026-01-01 00:00:00Z' + n * interval '1 second',
           case when n % 50 = 0 then null else ('01943b7e-0000-7000-8000-' || lpad(to_hex(1 + n % ?), 12, '0'))::uuid end,
           ('01943b7e-0000-7000-8000-' || lpad(to_hex(1 + (n / 7) % ?), 12, '0'))::uuid,
           null, '203.0.113.7', 'Mozilla/5.0', 'req-' || n
         from generate_series(1, ?) n`,
        [otherTenantId, tenantId, AUDIT_USERS, AUDIT_USERS, AUDIT_EVENTS + AUDIT_EVENTS / 20],
        'run',
      );
      const generated = performance.now() - started;
      await conn.execute('analyze tenant_auth_audit_event', [], 'run');
      console.log(
        `audit log: ${(AUDIT_EVENTS + AUDIT_EVENTS / 20).toLocaleString('en')} events generated in ${(generated / 1000).toFixed(1)} s, analysed in ${((performance.now() - started - generated) / 1000).toFixed(1)} s`,
      );
      const middle = (await conn.execute(
        `select id from tenant_auth_audit_event where tenant_id = ? order by id desc offset ? limit 1`,
        [tenantId, AUDIT_EVENTS / 2],
        'all',
      )) as { id: string }[];
      middleId = middle[0]?.id ?? '';
      traced = await openPostgres(db.url, 2, {
        onQuery: (sql, params) => {
          captured.push({ sql, params });
          return sql;
        },
      });
    }, 300_000);

    afterAll(async () => {
      await traced?.close(true);
      await db?.drop();
    });

    /**
     * Runs a store method, then EXPLAINs the statement it sent: with ANALYZE for a SELECT (which changes
     * nothing), without for anything else.
     */
    async function planOf(run: (stores: TransactionStores) => Promise<unknown>) {
      captured.length = 0;
      const result = await run(createMikroOrmStores(traced));
      const statement = captured.find((q) => /tenant_auth_audit_event/.test(q.sql));
      if (!statement) throw new Error('no statement captured');
      const analyze = /^\s*select/i.test(statement.sql);
      const rows = (await db.orm.em
        .getConnection()
        .execute(
          `explain (${analyze ? 'analyze, ' : ''}format json) ${statement.sql}`,
          [...statement.params],
          'all',
        )) as {
        'QUERY PLAN': { Plan: PlanNode; 'Execution Time'?: number }[];
      }[];
      const explained = rows[0]?.['QUERY PLAN'][0];
      if (!explained) throw new Error('no plan');
      return { result, plan: nodes(explained.Plan), ms: explained['Execution Time'] ?? Number.NaN };
    }

    const eventScans = (plan: PlanNode[]) =>
      plan.filter((n) => n['Relation Name'] === 'tenant_auth_audit_event' || n['Index Name'] !== undefined);

    /** Every scan of the table goes through one of `indexes`, each led by tenant_id; none is sequential. */
    function expectIndexScansOnly(plan: PlanNode[], indexes: string[], label: string, ms: number) {
      const scans = eventScans(plan);
      console.log(
        `${label}: ${scans.map((n) => `${n['Node Type']}${n['Scan Direction'] ? ` ${n['Scan Direction']}` : ''} using ${n['Index Name']} (${n['Actual Rows']} rows)`).join(' + ')}; ${ms.toFixed(2)} ms`,
      );
      expect(scans.length).toBeGreaterThan(0);
      expect(plan.map((n) => n['Node Type'])).not.toContain('Seq Scan');
      for (const scan of scans) {
        expect(scan['Node Type']).toMatch(/^Index (Only )?Scan$/);
        expect(indexes).toContain(scan['Index Name']);
        expect(scan['Index Cond']).toMatch(/tenant_id = /);
        // A page reads about a page of index entries per scan, not the tenant's million.
        expect(scan['Actual Rows']).toBeLessThanOrEqual(50);
      }
    }

    it('reads the first page backwards from the (tenant_id, id) primary key', async () => {
      const { result, plan, ms } = await planOf((s) => s.auditEvents.list(tenantId, { limit: 50 }));
      expect(result).toHaveLength(50);
      expectIndexScansOnly(plan, ['tenant_auth_audit_event_pkey'], 'first page', ms);
    });

    it('starts a page after a given id from the same index', async () => {
      const { result, plan, ms } = await planOf((s) =>
        s.auditEvents.list(tenantId, { limit: 50, before: middleId }),
      );
      expect(result).toHaveLength(50);
      expect((result as { id: string }[]).every((e) => e.id < middleId)).toBe(true);
      expectIndexScansOnly(plan, ['tenant_auth_audit_event_pkey'], 'page before an id', ms);
    });

    it('filters by type through the (tenant_id, type, id) index', async () => {
      const { result, plan, ms } = await planOf((s) =>
        s.auditEvents.list(tenantId, { limit: 50, type: 'login_failed', before: middleId }),
      );
      expect(result).toHaveLength(50);
      expectIndexScansOnly(plan, ['tenant_auth_audit_event_type_idx'], 'type-filtered page', ms);
    });

    it('filters by user through the actor and subject indexes, one page from each', async () => {
      const { result, plan, ms } = await planOf((s) =>
        s.auditEvents.list(tenantId, { limit: 50, userId: userId(7), before: middleId }),
      );
      expect(result).toHaveLength(50);
      expectIndexScansOnly(
        plan,
        ['tenant_auth_audit_event_actor_idx', 'tenant_auth_audit_event_subject_idx'],
        'user-filtered page',
        ms,
      );
      const used = new Set(eventScans(plan).map((n) => n['Index Name']));
      expect(used).toEqual(
        new Set(['tenant_auth_audit_event_actor_idx', 'tenant_auth_audit_event_subject_idx']),
      );
    });

    it('finds the events past retention through the at index and deletes them by primary key', async () => {
      // EXPLAIN does not execute the DELETE; the store call before it deletes the oldest 100 events.
      const { result, plan } = await planOf((s) =>
        s.auditEvents.deleteOlderThan({ before: new Date('2026-01-02T00:00:00Z'), batchSize: 100 }),
      );
      expect(result).toBe(100);
      expect(plan.map((n) => n['Node Type'])).not.toContain('Seq Scan');
      const indexes = new Set(plan.map((n) => n['Index Name']).filter((name) => name !== undefined));
      console.log(
        `retention batch: ${plan.map((n) => `${n['Node Type']}${n['Index Name'] ? ` using ${n['Index Name']}` : ''}`).join(' > ')}`,
      );
      expect(indexes).toEqual(new Set(['tenant_auth_audit_event_at_idx', 'tenant_auth_audit_event_pkey']));
    });
  },
);
