import { randomUUID } from 'node:crypto';
import type { MikroORM as PgliteMikroORM } from '@mikro-orm/pglite';
import { MikroORM as PostgresMikroORM } from '@mikro-orm/postgresql';
import { isTenantAuthError } from 'tenant-auth-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMikroOrmStores } from '../src/create-mikro-orm-stores.js';
import { runTenantAuthMigrations } from '../src/run-tenant-auth-migrations.js';
import { tenantAuthEntities } from '../src/tenant-auth-entities.js';
import {
  createTenantWithOwner,
  createTestPostgres,
  openPglite,
  TEST_DATABASE_URL,
} from './support/databases.js';

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
      const stores = createMikroOrmStores(orm);
      for (const attempt of [
        () => stores.users.findByEmail('ada@example.com'),
        () => stores.transaction((tx) => tx.tenants.findById(randomUUID())),
        () => stores.sessions.listActiveForUser(randomUUID(), randomUUID(), new Date()),
        () =>
          stores.sessions.deleteExpired({
            expiredBefore: new Date(),
            revokedBefore: new Date(),
            batchSize: 10,
          }),
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
    const stores = createMikroOrmStores(pglite);
    const register = (slug: string) => {
      const tenantId = randomUUID();
      return createTenantWithOwner(stores, {
        tenant: { id: tenantId, slug, name: slug, createdAt: new Date(), requireMfa: false },
        user: {
          id: randomUUID(),
          tenantId,
          email: 'ada@example.com',
          passwordHash: 'x',
          role: 'owner' as const,
          emailVerified: false,
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
    const stores = createMikroOrmStores(pglite);
    const tenantId = randomUUID();
    // Breaks the lower-case email check: PostgreSQL's detail would say "Failing row contains (..., hash, ...)".
    const err = await caught(
      createTenantWithOwner(stores, {
        tenant: { id: tenantId, slug: 'leaky', name: 'leaky', createdAt: new Date(), requireMfa: false },
        user: {
          id: randomUUID(),
          tenantId,
          email: 'UPPER@x.io',
          passwordHash: '$2b$12$SECRETHASHVALUE',
          role: 'owner' as const,
          emailVerified: false,
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
    const { tenants, users, sessions } = createMikroOrmStores(pglite);
    expect(await tenants.findById('not-a-uuid')).toBeNull();
    expect(await users.findById('x', 'y')).toBeNull();
    expect(await sessions.findById('x', 'y')).toBeNull();
    expect(await sessions.findByRefreshHash('x', 'a'.repeat(64))).toBeNull();
    expect(await sessions.revoke('x', 'y', new Date())).toBe(false);
    expect(await sessions.revokeAllForUser('x', 'y', new Date())).toBe(0);
    expect(await sessions.listActiveForUser('x', 'y', new Date())).toEqual([]);
  });

  it('answers ids that are not UUIDs without asking the database (which here does not answer)', async () => {
    const orm = new PostgresMikroORM({
      entities: [...tenantAuthEntities],
      clientUrl: 'postgres://postgres@127.0.0.1:1/nowhere',
      pool: { max: 1 },
    });
    try {
      const stores = createMikroOrmStores(orm);
      const { tenants, users, oneTimeTokens, outbox, auditEvents } = stores;
      const uuid = randomUUID();
      const now = new Date();
      expect(await tenants.delete('x')).toBe(false);
      expect(await users.listByTenant('x')).toEqual([]);
      expect(await users.countByRole('x', 'owner')).toBe(0);
      expect(await users.setRole(uuid, 'y', 'admin')).toBe(false);
      expect(await users.markEmailVerified('x', uuid)).toBe(false);
      expect(await users.changeEmail('x', uuid, 'ada@example.com')).toBe(false);
      expect(await users.delete(uuid, 'y')).toBe(false);
      expect(await oneTimeTokens.listPending('x', 'invitation', now)).toEqual([]);
      expect(await oneTimeTokens.revoke(uuid, 'invitation', 'y')).toBe(false);
      expect(await oneTimeTokens.revokeForUser(uuid, 'y', 'password_reset')).toBe(0);
      expect(await outbox.complete('x')).toBe(false);
      expect(await outbox.retry('x', { nextAttemptAt: now, error: 'e' })).toBe(false);
      expect(await outbox.bury('x', { at: now, error: 'e' })).toBe(false);
      expect(await auditEvents.list('x', { limit: 10 })).toEqual([]);
      expect(await auditEvents.list(uuid, { limit: 10, before: 'y' })).toEqual([]);
      expect(await auditEvents.list(uuid, { limit: 10, userId: 'y' })).toEqual([]);
      // Inside a transaction, only opening it needs the database.
      expect(await errorCodeOf(stores.transaction((tx) => tx.tenants.lock('x')))).toBe('unavailable');
      // and a real id does ask it
      expect(await errorCodeOf(tenants.delete(uuid))).toBe('unavailable');
    } finally {
      await orm.close(true);
    }
  });
});

async function errorCodeOf(promise: Promise<unknown>): Promise<string> {
  const err = await caught(promise);
  return isTenantAuthError(err) ? err.code : String(err);
}

describe('a value the database refuses as data', () => {
  const backends = [
    { name: 'PGlite', open: () => openPglite() },
    ...(TEST_DATABASE_URL
      ? [
          {
            name: 'PostgreSQL',
            open: async () => {
              const db = await createTestPostgres();
              dropLater.push(db.drop);
              return db.orm;
            },
          },
        ]
      : []),
  ];
  const dropLater: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const drop of dropLater) await drop();
  });

  it.each(backends)(
    'a NUL byte is validation_failed, not unavailable nor internal_error, on $name',
    async ({ open }) => {
      const orm = await open();
      try {
        await runTenantAuthMigrations(orm);
        const stores = createMikroOrmStores(orm);
        const tenantId = randomUUID();
        const err = await caught(
          createTenantWithOwner(stores, {
            tenant: {
              id: tenantId,
              slug: 'nul-byte',
              name: 'Acme\u0000Corp',
              createdAt: new Date(),
              requireMfa: false,
            },
            user: {
              id: randomUUID(),
              tenantId,
              email: 'nul@example.com',
              passwordHash: 'x',
              role: 'owner' as const,
              emailVerified: false,
              createdAt: new Date(),
            },
          }),
        );
        expect(isTenantAuthError(err, 'validation_failed')).toBe(true);
        expect(err).toMatchObject({ errors: [{ field: 'body', code: 'invalid_value' }] });
        expect((err as { cause?: { code?: string } }).cause?.code).toMatch(/^(22021|08P01)$/);
        // Nothing was written, and the store still answers.
        expect(await stores.tenants.findById(tenantId)).toBeNull();
        expect(await stores.users.findByEmail('nul@example.com')).toBeNull();
      } finally {
        if (!dropLater.length) await orm.close(true);
      }
    },
  );
});
