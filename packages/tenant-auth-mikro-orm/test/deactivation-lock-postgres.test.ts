import type { MikroORM } from '@mikro-orm/postgresql';
import { createTenantAuth, isTenantAuthError, type TenantAuth } from 'tenant-auth-core';
import type { TenantAuthStores } from 'tenant-auth-core/store-kit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMikroOrmStores } from '../src/create-mikro-orm-stores.js';
import { runTenantAuthMigrations } from '../src/run-tenant-auth-migrations.js';
import {
  countRows,
  createTestPostgres,
  openPostgres,
  TEST_DATABASE_URL,
  type TestPostgres,
  truncateTenantAuth,
} from './support/databases.js';

/*
 * Issue 40: a deactivation takes the tenant lock and revokes the user's sessions in its transaction; a
 * password login whose credential was checked before it commits writes its session under the same lock
 * and reads the user again there, so it is refused (`account_disabled`) instead of leaving a live session
 * behind the revocation. Two instances on one database: one holds a deactivation open, the other logs in.
 */

const PASSWORD = 'Tr1cky-Harbour-Lantern';
const quiet = { error: () => {}, warn: () => {}, info: () => {} };

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'ok';
  } catch (err) {
    return isTenantAuthError(err) ? err.code : `other: ${String(err)}`;
  }
}

describe.skipIf(!TEST_DATABASE_URL)('a password login racing a deactivation, on PostgreSQL', () => {
  let db: TestPostgres;
  let first: MikroORM;
  let second: MikroORM;
  let release: (() => void) | undefined;
  let held: Promise<unknown> | undefined;

  beforeAll(async () => {
    db = await createTestPostgres();
    await runTenantAuthMigrations(db.orm);
    first = await openPostgres(db.url, 4);
    second = await openPostgres(db.url, 4);
    await truncateTenantAuth(db.orm);
  });
  afterEach(async () => {
    release?.();
    await held?.catch(() => {});
  });
  afterAll(async () => {
    await first?.close(true);
    await second?.close(true);
    await db?.drop();
  });

  async function someoneWaitsOnALock(): Promise<void> {
    for (let i = 0; i < 300; i++) {
      const waiting = await countRows(
        db.orm,
        `pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
      );
      if (waiting >= 1) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error('the login never waited for a lock');
  }

  it('waits for the deactivation, then refuses with account_disabled and leaves no session', async () => {
    const stores: TenantAuthStores = createMikroOrmStores(second);
    const auth: TenantAuth = createTenantAuth({
      stores,
      accessToken: { secret: 'unit-access-secret-0123456789abcdef' },
      refreshSecret: 'unit-refresh-secret-0123456789abcdef',
      passwordHashing: { cost: 4 },
      rateLimit: false,
      logger: quiet,
    });
    const ada = await auth.register({ email: 'ada@example.com', password: PASSWORD });

    // Another instance deactivates ada and holds its transaction open.
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let deactivated!: () => void;
    const inside = new Promise<void>((resolve) => {
      deactivated = resolve;
    });
    const other = createMikroOrmStores(first);
    held = other.transaction(async (tx) => {
      expect(await tx.tenants.lock(ada.tenant.id)).toBe(true);
      expect(await tx.users.setActive?.(ada.tenant.id, ada.user.id, false)).toBe(true);
      await tx.sessions.revokeAllForUser(ada.tenant.id, ada.user.id, new Date());
      deactivated();
      await gate;
    });
    await inside;

    // The user is still active outside that transaction: the login's first checks pass.
    const logging = codeOf(auth.login({ email: 'ada@example.com', password: PASSWORD }));
    await someoneWaitsOnALock();
    release?.();
    await held;
    expect(await logging).toBe('account_disabled');
    expect(await stores.sessions.listActiveForUser(ada.tenant.id, ada.user.id, new Date())).toEqual([]);
  });
});
