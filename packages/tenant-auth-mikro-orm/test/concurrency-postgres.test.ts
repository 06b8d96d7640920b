import { randomUUID } from 'node:crypto';
import { isTenantAuthError, type Session, type Tenant, type User } from 'tenant-auth-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMikroOrmStores, type MikroOrmStores } from '../src/create-mikro-orm-stores.js';
import { runTenantAuthMigrations } from '../src/run-tenant-auth-migrations.js';
import {
  countRows,
  createTestPostgres,
  TEST_DATABASE_URL,
  type TestPostgres,
  truncateTenantAuth,
} from './support/databases.js';

const T0 = new Date('2026-01-01T00:00:00.000Z');
const hex64 = (c: string) => c.repeat(64).slice(0, 64);

function registration(email: string, slug: string): { tenant: Tenant; user: User } {
  const tenantId = randomUUID();
  return {
    tenant: { id: tenantId, slug, name: slug, createdAt: T0 },
    user: { id: randomUUID(), tenantId, email, passwordHash: '$2b$12$hash', createdAt: T0 },
  };
}

function sessionOf(user: User): Session {
  return {
    id: randomUUID(),
    tenantId: user.tenantId,
    userId: user.id,
    deviceInfo: 'Firefox on Linux',
    ipAddress: null,
    userAgent: null,
    createdAt: T0,
    lastUsedAt: T0,
    expiresAt: new Date(T0.getTime() + 86_400_000),
    absoluteExpiresAt: new Date(T0.getTime() + 30 * 86_400_000),
    revokedAt: null,
    refreshHash: hex64('a'),
    refreshJti: 'jti-0',
    refreshIssuedAt: T0,
    refreshExpiresAt: new Date(T0.getTime() + 86_400_000),
    previousRefreshHash: null,
    rotatedAt: null,
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
  let stores: MikroOrmStores;

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
    const { user } = await stores.tenantAuthStore.createTenantWithOwner(
      registration('ada@example.com', 'lovelace'),
    );
    const session = await stores.sessionStore.create(sessionOf(user));
    const attempts = Array.from({ length: 50 }, (_, i) => {
      const next = new Date(T0.getTime() + 1000 + i);
      return stores.sessionStore.rotate(session.tenantId, session.id, session.refreshHash, {
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
    const row = await stores.sessionStore.findById(session.tenantId, session.id);
    expect(row?.refreshJti).toBe(`jti-${winner}`);
    expect(row?.previousRefreshHash).toBe(session.refreshHash);
  });

  it('lets exactly one of 20 concurrent registrations of one email win, with no orphan tenant', async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        codeOf(
          stores.tenantAuthStore.createTenantWithOwner(registration('grace@example.com', `hopper-${i}`)),
        ),
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
    await stores.tenantAuthStore.createTenantWithOwner(registration('ada@example.com', 'lovelace'));
    const attempt = registration('ada@example.com', 'fresh-slug');
    expect(await codeOf(stores.tenantAuthStore.createTenantWithOwner(attempt))).toBe('email_taken');
    expect(await stores.tenantAuthStore.findTenantById(attempt.tenant.id)).toBeNull();
    expect(await countRows(db.orm, 'tenant_auth_tenant')).toBe(1);
    expect(await countRows(db.orm, 'tenant_auth_user')).toBe(1);
  });

  it('leaves no user when the tenant insert fails (slug taken, fresh email), and prefers email_taken when both are', async () => {
    await stores.tenantAuthStore.createTenantWithOwner(registration('ada@example.com', 'lovelace'));
    const attempt = registration('fresh@example.com', 'lovelace');
    expect(await codeOf(stores.tenantAuthStore.createTenantWithOwner(attempt))).toBe('slug_taken');
    expect(await stores.tenantAuthStore.findUserByEmail('fresh@example.com')).toBeNull();
    expect(
      await codeOf(stores.tenantAuthStore.createTenantWithOwner(registration('ada@example.com', 'lovelace'))),
    ).toBe('email_taken');
    expect(await countRows(db.orm, 'tenant_auth_tenant')).toBe(1);
    expect(await countRows(db.orm, 'tenant_auth_user')).toBe(1);
  });
});
