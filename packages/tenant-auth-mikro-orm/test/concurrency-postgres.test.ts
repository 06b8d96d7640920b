import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { isTenantAuthError } from 'tenant-auth-core';
import type {
  TenantAuthStores,
  TenantRecord,
  TransactionStores,
  UserRecord,
} from 'tenant-auth-core/store-kit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMikroOrmStores } from '../src/create-mikro-orm-stores.js';
import { runTenantAuthMigrations } from '../src/run-tenant-auth-migrations.js';
import {
  countRows,
  createTenantWithOwner,
  createTestPostgres,
  openPostgres,
  sessionOf,
  TEST_DATABASE_URL,
  type TestPostgres,
  truncateTenantAuth,
} from './support/databases.js';

const T0 = new Date('2026-01-01T00:00:00.000Z');
const hex64 = (c: string) => c.repeat(64).slice(0, 64);

function registration(email: string, slug: string): { tenant: TenantRecord; user: UserRecord } {
  const tenantId = randomUUID();
  return {
    tenant: { id: tenantId, slug, name: slug, createdAt: T0, requireMfa: false },
    user: {
      id: randomUUID(),
      tenantId,
      email,
      passwordHash: '$2b$12$hash',
      role: 'owner',
      emailVerified: false,
      createdAt: T0,
    },
  };
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'ok';
  } catch (err) {
    return isTenantAuthError(err) ? err.code : `other: ${String(err)}`;
  }
}

describe.skipIf(!TEST_DATABASE_URL)('concurrency on PostgreSQL', () => {
  let db: TestPostgres;
  let stores: TenantAuthStores;

  beforeAll(async () => {
    db = await createTestPostgres(); // pool of 25 connections: the requests really run in parallel
    await runTenantAuthMigrations(db.orm);
  });
  afterAll(async () => {
    await db?.drop();
  });
  beforeEach(async () => {
    await truncateTenantAuth(db.orm);
    stores = createMikroOrmStores(db.orm);
  });

  it('lets exactly one of 50 concurrent rotations of one session win', async () => {
    const { user } = await createTenantWithOwner(stores, registration('ada@example.com', 'lovelace'));
    const session = sessionOf(user);
    await stores.sessions.create(session);
    const attempts = Array.from({ length: 50 }, (_, i) => {
      const next = new Date(T0.getTime() + 1000 + i);
      return stores.sessions.rotate(session.tenantId, session.id, session.refreshHash, {
        refreshHash: `${i.toString(16).padStart(2, '0')}${'b'.repeat(62)}`,
        refreshJti: `jti-${i}`,
        refreshIssuedAt: next,
        refreshExpiresAt: new Date(next.getTime() + 86_400_000),
        expiresAt: new Date(next.getTime() + 86_400_000),
        lastUsedAt: next,
        rotatedAt: next,
      });
    });
    const results = await Promise.all(attempts);
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = results.indexOf(true);
    const row = await stores.sessions.findById(session.tenantId, session.id);
    expect(row?.refreshJti).toBe(`jti-${winner}`);
    expect(row?.previousRefreshHash).toBe(session.refreshHash);
  });

  it('lets exactly one of 20 concurrent registrations of one email win, with no orphan tenant', async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        codeOf(createTenantWithOwner(stores, registration('grace@example.com', `hopper-${i}`))),
      ),
    );
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'email_taken')).toHaveLength(19);
    expect(await countRows(db.orm, 'tenant_auth_user')).toBe(1);
    expect(await countRows(db.orm, 'tenant_auth_tenant')).toBe(1);
    const orphans = await countRows(
      db.orm,
      'tenant_auth_tenant t where not exists (select 1 from tenant_auth_user u where u.tenant_id = t.id)',
    );
    expect(orphans).toBe(0);
  });

  it('leaves no tenant when the user insert fails (email taken, fresh slug)', async () => {
    await createTenantWithOwner(stores, registration('ada@example.com', 'lovelace'));
    const attempt = registration('ada@example.com', 'fresh-slug');
    expect(await codeOf(createTenantWithOwner(stores, attempt))).toBe('email_taken');
    expect(await stores.tenants.findById(attempt.tenant.id)).toBeNull();
    expect(await countRows(db.orm, 'tenant_auth_tenant')).toBe(1);
    expect(await countRows(db.orm, 'tenant_auth_user')).toBe(1);
  });

  it('leaves no user when the tenant insert fails (slug taken, fresh email), nor when both are taken', async () => {
    await createTenantWithOwner(stores, registration('ada@example.com', 'lovelace'));
    const attempt = registration('fresh@example.com', 'lovelace');
    expect(await codeOf(createTenantWithOwner(stores, attempt))).toBe('slug_taken');
    expect(await stores.users.findByEmail('fresh@example.com')).toBeNull();
    expect(await codeOf(createTenantWithOwner(stores, registration('ada@example.com', 'lovelace')))).toMatch(
      /^(slug|email)_taken$/,
    );
    expect(await countRows(db.orm, 'tenant_auth_tenant')).toBe(1);
    expect(await countRows(db.orm, 'tenant_auth_user')).toBe(1);
  });
});

/**
 * A transaction that does `fn`, then stays open until released, and then commits, or rolls back by
 * throwing `rollbackWith`: a request in flight on another instance.
 */
function heldTransaction<T>(
  stores: TenantAuthStores,
  fn: (tx: TransactionStores) => Promise<T>,
  options: { rollbackWith?: Error } = {},
) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let reportInside!: (value: T) => void;
  const inside = new Promise<T>((resolve) => {
    reportInside = resolve;
  });
  const done = stores.transaction(async (tx) => {
    const value = await fn(tx);
    reportInside(value);
    await gate;
    if (options.rollbackWith) throw options.rollbackWith;
    return value;
  });
  done.catch(() => {});
  stillHeld.push({ release, done });
  return { inside, release, done };
}

/** Transactions held by a test, released after it even when it fails, so one failure does not hang the next. */
const stillHeld: { release: () => void; done: Promise<unknown> }[] = [];

async function releaseHeldTransactions(): Promise<void> {
  const held = stillHeld.splice(0);
  for (const h of held) h.release();
  await Promise.allSettled(held.map((h) => h.done));
}

/** Fails a promise that does not settle in time (a claim that waits for a lock it should skip). */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function message(i: number) {
  return {
    id: randomUUID(),
    tenantId: null,
    template: 'password_reset',
    to: `reader-${i}@example.com`,
    payload: `sealed-${i}`,
    createdAt: T0,
    attempts: 0,
    nextAttemptAt: new Date(T0.getTime() + i),
    lockedUntil: null,
    lastError: null,
    deadAt: null,
  };
}

describe.skipIf(!TEST_DATABASE_URL)('two instances on PostgreSQL, with transactions held open', () => {
  let db: TestPostgres;
  // Two ORMs with pools of their own: two application instances on one database.
  let first: MikroORM;
  let second: MikroORM;
  let a: TenantAuthStores;
  let b: TenantAuthStores;

  beforeAll(async () => {
    db = await createTestPostgres();
    await runTenantAuthMigrations(db.orm);
    first = await openPostgres(db.url, 4);
    second = await openPostgres(db.url, 4);
  });
  afterAll(async () => {
    await first?.close(true);
    await second?.close(true);
    await db?.drop();
  });
  beforeEach(async () => {
    await truncateTenantAuth(db.orm);
    a = createMikroOrmStores(first);
    b = createMikroOrmStores(second);
  });
  afterEach(releaseHeldTransactions);

  /** Waits until `n` backends of the test database wait for a lock (polls pg_stat_activity). */
  async function waitersOnLocks(n: number): Promise<void> {
    for (let i = 0; i < 500; i++) {
      const waiting = await countRows(
        db.orm,
        `pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
      );
      if (waiting >= n) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`fewer than ${n} backends ever waited for a lock`);
  }

  it('two claims never get the same message: the second skips the rows the first holds, without waiting', async () => {
    const messages = Array.from({ length: 10 }, (_, i) => message(i));
    for (const m of messages) await a.outbox.enqueue(m);
    const now = new Date(T0.getTime() + 1000);
    const held = heldTransaction(a, (tx) => tx.outbox.claim({ now, limit: 4, leaseSeconds: 60 }));
    const firstClaim = await held.inside;
    expect(firstClaim.map((m) => m.id)).toEqual(messages.slice(0, 4).map((m) => m.id));
    // The first claim is not committed: its rows still look unclaimed, but they are locked.
    const secondClaim = await within(
      b.outbox.claim({ now, limit: 10, leaseSeconds: 60 }),
      5_000,
      'the second claim',
    );
    expect(secondClaim.map((m) => m.id)).toEqual(messages.slice(4).map((m) => m.id));
    held.release();
    await held.done;
    expect(await b.outbox.claim({ now, limit: 10, leaseSeconds: 60 })).toEqual([]);
  });

  it('a claim rolled back gives its messages to the next claim', async () => {
    const messages = Array.from({ length: 3 }, (_, i) => message(i));
    for (const m of messages) await a.outbox.enqueue(m);
    const now = new Date(T0.getTime() + 1000);
    await expect(
      a.transaction(async (tx) => {
        expect(await tx.outbox.claim({ now, limit: 10, leaseSeconds: 60 })).toHaveLength(3);
        expect(
          await within(b.outbox.claim({ now, limit: 10, leaseSeconds: 60 }), 5_000, 'the second claim'),
        ).toEqual([]);
        throw new Error('crashed before commit');
      }),
    ).rejects.toThrow('crashed before commit');
    const again = await b.outbox.claim({ now, limit: 10, leaseSeconds: 60 });
    expect(again.map((m) => [m.id, m.attempts])).toEqual(messages.map((m) => [m.id, 1]));
  });

  it('many workers on two instances claim every message exactly once', async () => {
    const messages = Array.from({ length: 300 }, (_, i) => message(i));
    await Promise.all(messages.map((m) => a.outbox.enqueue(m)));
    const now = new Date(T0.getTime() + 1000);
    const worker = async (stores: TenantAuthStores): Promise<string[]> => {
      const mine: string[] = [];
      for (;;) {
        // Each batch is claimed and held for a moment in a transaction, as a worker sending mail would.
        const batch = await stores.transaction(async (tx) => {
          const claimed = await tx.outbox.claim({ now, limit: 7, leaseSeconds: 60 });
          await new Promise((resolve) => setTimeout(resolve, 2));
          return claimed;
        });
        if (batch.length === 0) return mine;
        mine.push(...batch.map((m) => m.id));
      }
    };
    const claimed = (await Promise.all([a, a, a, b, b, b].map(worker))).flat();
    expect(claimed).toHaveLength(300);
    expect(new Set(claimed).size).toBe(300);
  });

  it('the tenant lock makes the second of two owners demoting each other wait, then see one owner left', async () => {
    const { tenant, user: ada } = await createTenantWithOwner(a, registration('ada@example.com', 'lovelace'));
    const grace: UserRecord = { ...registration('grace@example.com', 'x').user, tenantId: tenant.id };
    await a.users.create(grace);
    const demote = (tx: TransactionStores, targetId: string) =>
      (async () => {
        expect(await tx.tenants.lock(tenant.id)).toBe(true);
        if ((await tx.users.countByRole(tenant.id, 'owner')) < 2) return 'last_owner';
        await tx.users.setRole(tenant.id, targetId, 'admin');
        return 'demoted';
      })();
    const held = heldTransaction(a, (tx) => demote(tx, grace.id));
    expect(await held.inside).toBe('demoted');
    const other = b.transaction((tx) => demote(tx, ada.id));
    await waitersOnLocks(1); // the second instance waits on the tenant row
    held.release();
    await held.done;
    expect(await other).toBe('last_owner');
    expect(await a.users.countByRole(tenant.id, 'owner')).toBe(1);
    expect((await a.users.findById(tenant.id, ada.id))?.role).toBe('owner');
  });

  it('a token consumed in an open transaction is not handed to another; if that transaction rolls back, it is', async () => {
    const { tenant } = await createTenantWithOwner(a, registration('ada@example.com', 'lovelace'));
    const token = {
      id: randomUUID(),
      kind: 'invitation' as const,
      tenantId: tenant.id,
      userId: null,
      email: 'bob@example.com',
      role: 'member' as const,
      createdBy: null,
      sessionId: null,
      tokenHash: hex64('c'),
      createdAt: T0,
      expiresAt: new Date(T0.getTime() + 3_600_000),
    };
    await a.oneTimeTokens.issue(token);
    const consume = (stores: TenantAuthStores | TransactionStores, tokenHash: string) =>
      stores.oneTimeTokens.consume('invitation', tokenHash, T0);

    // Committed: the consumer that waited for the row finds nothing.
    const committed = heldTransaction(a, (tx) => consume(tx, token.tokenHash));
    expect(await committed.inside).toEqual(token);
    const late = b.transaction((tx) => consume(tx, token.tokenHash));
    await waitersOnLocks(1);
    committed.release();
    await committed.done;
    expect(await late).toBeNull();

    // Rolled back: the consumer that waited gets the token.
    const again = { ...token, id: randomUUID(), tokenHash: hex64('d') };
    await a.oneTimeTokens.issue(again);
    const failure = new Error('email taken, say');
    const rolledBack = heldTransaction(a, (tx) => consume(tx, again.tokenHash), { rollbackWith: failure });
    expect(await rolledBack.inside).toEqual(again);
    const next = b.transaction((tx) => consume(tx, again.tokenHash));
    await waitersOnLocks(1);
    rolledBack.release();
    await expect(rolledBack.done).rejects.toBe(failure);
    expect(await next).toEqual(again);
  });
});
