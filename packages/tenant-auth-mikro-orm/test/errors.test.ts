import { randomUUID } from 'node:crypto';
import type { MikroORM as PgliteMikroORM } from '@mikro-orm/pglite';
import { MikroORM as PostgresMikroORM } from '@mikro-orm/postgresql';
import { isTenantAuthError } from 'tenant-auth-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMikroOrmStores } from '../src/create-mikro-orm-stores.js';
import { runTenantAuthMigrations } from '../src/run-tenant-auth-migrations.js';
import { tenantAuthEntities } from '../src/tenant-auth-entities.js';
import { openPglite } from './support/databases.js';

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

describe('errors at the boundary', () => {
  let pglite: PgliteMikroORM;
  beforeAll(async () => {
    pglite = await openPglite();
    await runTenantAuthMigrations(pglite);
  });
  afterAll(async () => {
    await pglite?.close(true);
  });

  it('answers unavailable, with no driver text, when the database does not answer', async () => {
    // Nothing listens on port 1; the ORM connects lazily, so the first query is what fails.
    const orm = new PostgresMikroORM({
      entities: [...tenantAuthEntities],
      clientUrl: 'postgres://postgres@127.0.0.1:1/nowhere',
      pool: { max: 1 },
    });
    try {
      const { tenantAuthStore, sessionStore } = createMikroOrmStores(orm);
      for (const attempt of [
        () => tenantAuthStore.findUserByEmail('ada@example.com'),
        () => sessionStore.listActiveForUser(randomUUID(), randomUUID(), new Date()),
        () =>
          sessionStore.deleteExpired({ expiredBefore: new Date(), revokedBefore: new Date(), batchSize: 10 }),
      ]) {
        const err = await caught(attempt());
        expect(isTenantAuthError(err, 'unavailable')).toBe(true);
        expect((err as Error).message).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|connect/i);
        expect((err as Error).cause).toBeDefined();
      }
    } finally {
      await orm.close(true);
    }
  });

  it('reports a taken email with a fixed message and the driver error as cause (PGlite)', async () => {
    const { tenantAuthStore } = createMikroOrmStores(pglite);
    const register = (slug: string) => {
      const tenantId = randomUUID();
      return tenantAuthStore.createTenantWithOwner({
        tenant: { id: tenantId, slug, name: slug, createdAt: new Date() },
        user: {
          id: randomUUID(),
          tenantId,
          email: 'ada@example.com',
          passwordHash: 'x',
          createdAt: new Date(),
        },
      });
    };
    await register('first');
    const err = await caught(register('second'));
    expect(isTenantAuthError(err, 'email_taken')).toBe(true);
    expect((err as Error).message).not.toMatch(/tenant_auth|insert|duplicate|ada@example\.com/i);
    expect((err as Error).cause).toMatchObject({
      name: 'StoreDriverError',
      driverErrorName: 'UniqueConstraintViolationException',
      constraint: 'tenant_auth_user_email_unique',
    });
  });

  it('keeps row values, password hash included, out of the whole error chain (PGlite)', async () => {
    const { tenantAuthStore } = createMikroOrmStores(pglite);
    const tenantId = randomUUID();
    // Breaks the lower-case email check: PostgreSQL's detail would say "Failing row contains (..., hash, ...)".
    const err = await caught(
      tenantAuthStore.createTenantWithOwner({
        tenant: { id: tenantId, slug: 'leaky', name: 'leaky', createdAt: new Date() },
        user: {
          id: randomUUID(),
          tenantId,
          email: 'UPPER@x.io',
          passwordHash: '$2b$12$SECRETHASHVALUE',
          createdAt: new Date(),
        },
      }),
    );
    expect(isTenantAuthError(err, 'internal_error')).toBe(true);
    const chain: string[] = [];
    for (let e: unknown = err; e instanceof Error; e = e.cause) {
      chain.push(e.message, e.stack ?? '', JSON.stringify(e));
    }
    expect(chain.join('\n')).not.toMatch(/SECRETHASHVALUE|UPPER@x\.io/);
  });

  it('finds nothing, instead of failing, for ids that are not UUIDs', async () => {
    const { tenantAuthStore, sessionStore } = createMikroOrmStores(pglite);
    expect(await tenantAuthStore.findTenantById('not-a-uuid')).toBeNull();
    expect(await tenantAuthStore.findUserById('x', 'y')).toBeNull();
    expect(await sessionStore.findById('x', 'y')).toBeNull();
    expect(await sessionStore.findByRefreshHash('x', 'a'.repeat(64))).toBeNull();
    expect(await sessionStore.revoke('x', 'y', new Date())).toBe(false);
    expect(await sessionStore.revokeAllForUser('x', 'y', new Date())).toBe(0);
    expect(await sessionStore.listActiveForUser('x', 'y', new Date())).toEqual([]);
  });
});
