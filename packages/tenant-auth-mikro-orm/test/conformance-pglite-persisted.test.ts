import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MikroORM } from '@mikro-orm/pglite';
import { runStoreConformance } from 'tenant-auth-core/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMikroOrmStores } from '../src/create-mikro-orm-stores.js';
import { runTenantAuthMigrations } from '../src/run-tenant-auth-migrations.js';
import { createTenantWithOwner, openPglite, truncateTenantAuth } from './support/databases.js';

let dir: string;
let orm: MikroORM;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tenant-auth-pglite-'));
  orm = await openPglite(dir);
  await runTenantAuthMigrations(orm);
});

afterAll(async () => {
  await orm?.close(true);
  if (dir) await rm(dir, { recursive: true, force: true });
});

runStoreConformance({
  test: { describe, it, expect, beforeEach, afterEach },
  name: 'mikro-orm (PGlite persisted to a folder)',
  createStores: async () => {
    await truncateTenantAuth(orm);
    return createMikroOrmStores(orm);
  },
});

describe('PGlite persisted to a folder', () => {
  it('keeps tenants, users and sessions across close and reopen, and does not migrate twice', async () => {
    await truncateTenantAuth(orm);
    const t0 = new Date('2026-01-01T00:00:00.000Z');
    const tenant = {
      id: '01943b7e-0000-7000-8000-000000000001',
      slug: 'lovelace',
      name: 'Lovelace',
      createdAt: t0,
      requireMfa: false,
    };
    const user = {
      id: '01943b7e-0000-7000-8000-000000000002',
      tenantId: tenant.id,
      email: 'ada@example.com',
      passwordHash: '$2b$12$abcdefghijklmnopqrstuv',
      role: 'owner' as const,
      emailVerified: false,
      createdAt: t0,
    };
    const session = {
      id: '01943b7e-0000-7000-8000-000000000003',
      tenantId: tenant.id,
      userId: user.id,
      deviceInfo: 'Firefox on Linux',
      ipAddress: '192.0.2.1',
      userAgent: 'Mozilla/5.0',
      createdAt: t0,
      lastUsedAt: t0,
      expiresAt: new Date(t0.getTime() + 7 * 86_400_000),
      absoluteExpiresAt: new Date(t0.getTime() + 30 * 86_400_000),
      revokedAt: null,
      refreshHash: 'a'.repeat(64),
      refreshJti: 'jti-1',
      refreshIssuedAt: t0,
      refreshExpiresAt: new Date(t0.getTime() + 7 * 86_400_000),
      previousRefreshHash: null,
      rotatedAt: null,
      amr: ['pwd' as const],
      authTime: t0,
    };
    const before = createMikroOrmStores(orm);
    await createTenantWithOwner(before, { tenant, user });
    await before.sessions.create(session);

    await orm.close(true);
    orm = await openPglite(dir);

    expect(await runTenantAuthMigrations(orm)).toEqual([]);
    const after = createMikroOrmStores(orm);
    expect(await after.tenants.findById(tenant.id)).toEqual(tenant);
    expect(await after.users.findByEmail('ada@example.com')).toEqual(user);
    expect(await after.sessions.findById(tenant.id, session.id)).toEqual(session);
  });
});
