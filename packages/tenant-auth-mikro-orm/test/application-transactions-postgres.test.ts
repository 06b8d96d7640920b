import { RequestContext } from '@mikro-orm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMikroOrmStores } from '../src/create-mikro-orm-stores.js';
import { runTenantAuthMigrations } from '../src/run-tenant-auth-migrations.js';
import { authOn, createTestPostgres, TEST_DATABASE_URL, type TestPostgres } from './support/databases.js';

// The stores never take part in a transaction of the application's (only in their own `transaction()`):
// a statement they send outside one runs on its own pooled connection, whatever the application has open.
// PostgreSQL only: PGlite has one connection, which every statement shares.
describe.skipIf(!TEST_DATABASE_URL)('the stores and an application transaction (PostgreSQL)', () => {
  let db: TestPostgres;

  beforeAll(async () => {
    db = await createTestPostgres();
    await runTenantAuthMigrations(db.orm);
  });

  afterAll(async () => {
    await db?.drop();
  });

  async function registered(email: string) {
    const stores = createMikroOrmStores(db.orm);
    const auth = authOn(stores);
    const result = await auth.register({ email, password: 'Tr1cky-Harbour-Lantern' });
    return { stores, tenantId: result.user.tenantId, sessionId: result.session.id };
  }

  it('commits a rotation made inside a transaction of the application that then rolls back', async () => {
    const { stores, tenantId, sessionId } = await registered('rotate@example.com');
    const before = await stores.sessions.findById(tenantId, sessionId);
    const at = new Date();
    const next = {
      refreshHash: 'b'.repeat(64),
      refreshJti: 'jti-inside',
      refreshIssuedAt: at,
      refreshExpiresAt: new Date(at.getTime() + 60_000),
      expiresAt: new Date(at.getTime() + 60_000),
      lastUsedAt: at,
      rotatedAt: at,
    };
    await expect(
      db.orm.em.transactional(async () => {
        expect(await stores.sessions.rotate(tenantId, sessionId, before?.refreshHash ?? '', next)).toBe(true);
        throw new Error('the application rolls back');
      }),
    ).rejects.toThrow('the application rolls back');
    expect((await stores.sessions.findById(tenantId, sessionId))?.refreshHash).toBe('b'.repeat(64));
  });

  it('does not see what a transaction of the application has not committed, in a request context too', async () => {
    const { stores, tenantId, sessionId } = await registered('read@example.com');
    const onEm = createMikroOrmStores(db.orm.em);
    await db.orm.em.transactional(async (em) => {
      await em
        .getConnection()
        .execute(
          'update tenant_auth_session set revoked_at = now() where id = ?',
          [sessionId],
          'run',
          em.getTransactionContext(),
        );
      expect((await stores.sessions.findById(tenantId, sessionId))?.revokedAt).toBeNull();
      await RequestContext.create(db.orm.em, async () => {
        expect((await onEm.sessions.findById(tenantId, sessionId))?.revokedAt).toBeNull();
      });
    });
    expect((await stores.sessions.findById(tenantId, sessionId))?.revokedAt).toBeInstanceOf(Date);
  });
});
