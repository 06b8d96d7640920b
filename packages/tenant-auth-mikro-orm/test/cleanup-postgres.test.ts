import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMikroOrmStores } from '../src/create-mikro-orm-stores.js';
import { runTenantAuthMigrations } from '../src/run-tenant-auth-migrations.js';
import { countRows, createTestPostgres, TEST_DATABASE_URL, type TestPostgres } from './support/databases.js';

const NOW = new Date('2026-03-01T00:00:00.000Z');
const EXPIRED = 100_000;
const ACTIVE = 1_000;
const BATCH = 5_000;

describe.skipIf(!TEST_DATABASE_URL)('cleanup of 100,000 expired sessions on PostgreSQL', () => {
  let db: TestPostgres;

  beforeAll(async () => {
    db = await createTestPostgres();
    await runTenantAuthMigrations(db.orm);
    const conn = db.orm.em.getConnection();
    await conn.execute(
      `insert into tenant_auth_tenant (id, slug, name, created_at) values ('01943b7e-0000-7000-8000-000000000001', 'bulk', 'Bulk', now())`,
      [],
      'run',
    );
    await conn.execute(
      `insert into tenant_auth_user (id, tenant_id, email, password_hash, role, created_at)
       values ('01943b7e-0000-7000-8000-000000000002', '01943b7e-0000-7000-8000-000000000001', 'bulk@example.com', 'x', 'owner', now())`,
      [],
      'run',
    );
    // One INSERT ... SELECT: 100,000 sessions that expired in the last ~100,000 minutes, and 1,000 active ones.
    await conn.execute(
      `insert into tenant_auth_session (id, tenant_id, user_id, device_info, created_at, last_used_at, expires_at,
         absolute_expires_at, refresh_hash, refresh_jti, refresh_issued_at, refresh_expires_at)
       select gen_random_uuid(), '01943b7e-0000-7000-8000-000000000001', '01943b7e-0000-7000-8000-000000000002', 'bulk',
         ?::timestamptz - interval '60 days', ?::timestamptz - interval '30 days',
         case when n <= ? then ?::timestamptz - n * interval '1 minute' else ?::timestamptz + interval '1 day' end,
         ?::timestamptz + interval '10 days', md5(n::text) || md5(n::text), 'jti', ?::timestamptz, ?::timestamptz
       from generate_series(1, ?) n`,
      [
        NOW.toISOString(),
        NOW.toISOString(),
        EXPIRED,
        NOW.toISOString(),
        NOW.toISOString(),
        NOW.toISOString(),
        NOW.toISOString(),
        NOW.toISOString(),
        EXPIRED + ACTIVE,
      ],
      'run',
    );
    await conn.execute('analyze tenant_auth_session', [], 'run');
  }, 120_000);

  afterAll(async () => {
    await db?.drop();
  });

  it('deletes them all in batches of at most the batch size, keeping the active ones', async () => {
    expect(await countRows(db.orm, 'tenant_auth_session')).toBe(EXPIRED + ACTIVE);
    const store = createMikroOrmStores(db.orm).sessions;
    const batches: number[] = [];
    const started = performance.now();
    for (;;) {
      const deleted = await store.deleteExpired({ expiredBefore: NOW, revokedBefore: NOW, batchSize: BATCH });
      batches.push(deleted);
      if (deleted < BATCH) break;
    }
    const elapsed = performance.now() - started;
    console.log(
      `deleteExpired: ${EXPIRED} expired sessions in ${batches.length} batches of <= ${BATCH} took ${elapsed.toFixed(0)} ms`,
    );
    expect(Math.max(...batches)).toBeLessThanOrEqual(BATCH);
    expect(batches.reduce((a, b) => a + b, 0)).toBe(EXPIRED);
    expect(batches.length).toBe(EXPIRED / BATCH + 1);
    expect(await countRows(db.orm, 'tenant_auth_session')).toBe(ACTIVE);
    expect(await countRows(db.orm, `tenant_auth_session where expires_at < '${NOW.toISOString()}'`)).toBe(0);
  }, 120_000);

  it('lets several cleaners run at once without waiting for or double-counting each other', async () => {
    const conn = db.orm.em.getConnection();
    await conn.execute(
      `insert into tenant_auth_session (id, tenant_id, user_id, device_info, created_at, last_used_at, expires_at,
         absolute_expires_at, refresh_hash, refresh_jti, refresh_issued_at, refresh_expires_at)
       select gen_random_uuid(), '01943b7e-0000-7000-8000-000000000001', '01943b7e-0000-7000-8000-000000000002', 'bulk',
         now(), now(), ?::timestamptz - n * interval '1 second', now(), md5(n::text), 'jti', now(), now()
       from generate_series(1, 20000) n`,
      [NOW.toISOString()],
      'run',
    );
    const store = createMikroOrmStores(db.orm).sessions;
    const cleaner = async (): Promise<number> => {
      let total = 0;
      for (;;) {
        const deleted = await store.deleteExpired({ expiredBefore: NOW, revokedBefore: NOW, batchSize: 500 });
        expect(deleted).toBeLessThanOrEqual(500);
        total += deleted;
        if (deleted === 0) return total;
      }
    };
    const totals = await Promise.all([cleaner(), cleaner(), cleaner(), cleaner()]);
    expect(totals.reduce((a, b) => a + b, 0)).toBe(20_000);
    expect(await countRows(db.orm, `tenant_auth_session where expires_at < '${NOW.toISOString()}'`)).toBe(0);
    expect(await countRows(db.orm, 'tenant_auth_session')).toBe(ACTIVE);
  }, 120_000);
});
