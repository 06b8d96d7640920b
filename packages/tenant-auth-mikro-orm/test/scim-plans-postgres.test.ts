import type { MikroORM } from '@mikro-orm/postgresql';
import type { ScimStore } from 'tenant-auth-core/store-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMikroOrmStores } from '../src/create-mikro-orm-stores.js';
import { runTenantAuthMigrations } from '../src/run-tenant-auth-migrations.js';
import {
  createTestPostgres,
  openPostgres,
  TEST_DATABASE_URL,
  type TestPostgres,
} from './support/databases.js';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}

const nodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];

// The SCIM lookups a directory repeats on every sync (`displayName eq`, `externalId eq`, a user's groups)
// go through the indexes the migration creates for them, the statements as the store sends them.
describe.skipIf(!TEST_DATABASE_URL)('SCIM query plans on PostgreSQL (200 tenants, analysed)', () => {
  let db: TestPostgres;
  let traced: MikroORM;
  const captured: { sql: string; params: readonly unknown[] }[] = [];
  let tenantId: string;
  let userId: string;

  beforeAll(async () => {
    db = await createTestPostgres();
    await runTenantAuthMigrations(db.orm);
    const run = (sql: string) => db.orm.em.getConnection().execute(sql, [], 'run');
    // 200 tenants with 10 users, 20 groups, every user in 5 groups and with a profile.
    await run(`insert into tenant_auth_tenant (id, slug, name, created_at)
      select gen_random_uuid(), 'tenant-' || t, 'Tenant ' || t, now() from generate_series(1, 200) t`);
    await run(`insert into tenant_auth_user (id, tenant_id, email, password_hash, role, created_at)
      select gen_random_uuid(), t.id, 'user-' || u || '@' || t.slug || '.example', 'x', 'member', now()
      from tenant_auth_tenant t cross join generate_series(1, 10) u`);
    await run(`insert into tenant_auth_scim_profile (user_id, tenant_id, external_id, managed, updated_at)
      select id, tenant_id, 'ext-' || id, true, now() from tenant_auth_user`);
    await run(`insert into tenant_auth_scim_group (id, tenant_id, display_name, created_at, updated_at)
      select gen_random_uuid(), t.id, 'Group ' || g, now(), now()
      from tenant_auth_tenant t cross join generate_series(1, 20) g`);
    await run(`insert into tenant_auth_scim_group_member (group_id, user_id, tenant_id)
      select g.id, u.id, u.tenant_id from tenant_auth_user u
      join tenant_auth_scim_group g on g.tenant_id = u.tenant_id and random() < 0.25`);
    await run('analyze');
    const [user] = (await db.orm.em
      .getConnection()
      .execute('select id, tenant_id from tenant_auth_user limit 1', [], 'all')) as {
      id: string;
      tenant_id: string;
    }[];
    userId = user?.id ?? '';
    tenantId = user?.tenant_id ?? '';
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

  /** Runs a store method, then EXPLAINs (without executing) the statement it sent that matches `pattern`. */
  async function indexesOf(run: (scim: ScimStore) => Promise<unknown>, pattern: RegExp): Promise<PlanNode[]> {
    captured.length = 0;
    const scim = createMikroOrmStores(traced).scim;
    await run(scim);
    const statement = captured.find((q) => pattern.test(q.sql));
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

  const indexNames = (plan: PlanNode[]) =>
    plan.map((n) => n['Index Name']).filter((name) => name !== undefined);

  it('filters groups by displayName through the (tenant_id, lower(display_name collate "C")) index', async () => {
    const plan = await indexesOf(
      (scim) => scim.pageGroups(tenantId, { displayName: 'GROUP 7', offset: 0, limit: 10 }),
      /^select g\.id/,
    );
    expect(plan.map((n) => n['Node Type'])).not.toContain('Seq Scan');
    // The name is looked up in the index, not filtered after it.
    const scan = plan.find((n) => n['Index Name'] === 'tenant_auth_scim_group_display_name_idx');
    expect(scan?.['Index Cond']).toMatch(/lower\(\(display_name\)/);
  });

  it('finds users by externalId through the (tenant_id, external_id) index', async () => {
    const plan = await indexesOf(
      (scim) => scim.findUserIdsByExternalId(tenantId, `ext-${userId}`),
      /tenant_auth_scim_profile/,
    );
    expect(plan.filter((n) => n['Relation Name'] === 'tenant_auth_scim_profile')).toEqual([
      expect.objectContaining({ 'Index Name': 'tenant_auth_scim_profile_external_id_idx' }),
    ]);
  });

  it("reads a user's groups through the memberships' user index and the groups' primary key", async () => {
    const plan = await indexesOf(
      (scim) => scim.groupsOfUsers(tenantId, [userId]),
      /tenant_auth_scim_group_member/,
    );
    expect(plan.map((n) => n['Node Type'])).not.toContain('Seq Scan');
    expect(indexNames(plan)).toContain('tenant_auth_scim_group_member_user_idx');
  });
});
