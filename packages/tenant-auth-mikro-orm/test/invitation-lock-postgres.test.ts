import type { MikroORM } from '@mikro-orm/postgresql';
import { createTenantAuth, isTenantAuthError, type MailMessage, type TenantAuth } from 'tenant-auth-core';
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
 * Issue 28, item 7: accepting an invitation reads the inviter's role under the tenant lock that role
 * changes take, so an acceptance racing the inviter's demotion sees it. Two instances on one database: one
 * holds a demotion open, the other accepts through core.
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

describe.skipIf(!TEST_DATABASE_URL)(
  'accepting an invitation while its inviter is demoted, on PostgreSQL',
  () => {
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

    /** Waits until a backend of the test database waits for a lock. */
    async function someoneWaitsOnALock(): Promise<void> {
      for (let i = 0; i < 300; i++) {
        const waiting = await countRows(
          db.orm,
          `pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
        );
        if (waiting >= 1) return;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error('the acceptance never waited for a lock');
    }

    it('waits for the demotion, then grants nothing', async () => {
      const sent: MailMessage[] = [];
      const stores: TenantAuthStores = createMikroOrmStores(second);
      const auth: TenantAuth = createTenantAuth({
        stores,
        accessToken: { secret: 'unit-access-secret-0123456789abcdef' },
        refreshSecret: 'unit-refresh-secret-0123456789abcdef',
        passwordHashing: { cost: 4 },
        rateLimit: false,
        logger: quiet,
        mail: {
          mailer: { send: async (m) => void sent.push(m) },
          from: 'a@b.test',
          appUrl: 'https://app.test',
        },
      });
      const tokenIn = (to: string, path: string) => {
        const text = sent.filter((m) => m.to === to).at(-1)?.text ?? '';
        const url = new URL(text.match(/https?:\/\/\S+/)?.[0] ?? 'https://none.test/');
        expect(url.pathname).toBe(path);
        return url.searchParams.get('token') ?? '';
      };
      const ada = await auth.register({ email: 'ada@example.com', password: PASSWORD });
      await auth.deliverMail();
      await auth.verifyEmail({ token: tokenIn('ada@example.com', '/verify-email') });
      const adaClaims = await auth.verifyAccessToken(ada.accessToken);
      await auth.createInvitation(adaClaims, { email: 'grace@example.com', role: 'owner' });
      await auth.deliverMail();
      const invitation = tokenIn('grace@example.com', '/accept-invitation');

      // Another instance demotes ada (the inviter) and holds its transaction open.
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      let demoted!: () => void;
      const inside = new Promise<void>((resolve) => {
        demoted = resolve;
      });
      held = createMikroOrmStores(first).transaction(async (tx) => {
        expect(await tx.tenants.lock(ada.tenant.id)).toBe(true);
        await tx.users.setRole(ada.tenant.id, ada.user.id, 'member');
        demoted();
        await gate;
      });
      await inside;

      const accepting = codeOf(auth.acceptInvitation({ token: invitation, password: PASSWORD }));
      await someoneWaitsOnALock();
      release?.();
      await held;
      // A member may not hand out owner: the invitation grants nothing.
      expect(await accepting).toBe('validation_failed');
      expect(await stores.users.findByEmail('grace@example.com')).toBeNull();
    });
  },
);
