import { createCipheriv, hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import type { MikroORM as CoreMikroORM } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { MikroORM as PgliteMikroORM } from '@mikro-orm/pglite';
import { MikroORM as PostgresMikroORM } from '@mikro-orm/postgresql';
import { createMemoryStores, createTenantAuth, type MailMessage } from 'tenant-auth-core';
import { describe, expect, it } from 'vitest';
import { createMikroOrmStores } from '../src/create-mikro-orm-stores.js';
import { runTenantAuthMigrations } from '../src/run-tenant-auth-migrations.js';
import { tenantAuthEntities } from '../src/tenant-auth-entities.js';
import { tenantAuthMigrations } from '../src/tenant-auth-migrations.js';
import { authOn, createTestPostgres, TEST_DATABASE_URL } from './support/databases.js';

const ROLES_TOKENS_OUTBOX_AUDIT = 'tenant-auth-20261122153000-roles-tokens-outbox-audit';
const SECOND_FACTOR = 'tenant-auth-20261127120000-second-factor';
const PASSKEYS = 'tenant-auth-20261127140000-passkeys';
const API_KEYS = 'tenant-auth-20261127160000-api-keys';
const PASSWORD = 'Tr1cky-Harbour-Lantern';
const REFRESH_SECRET = 'mikro-orm-test-refresh-secret-0123456789';
const T0 = new Date('2026-01-01T00:00:00.000Z');

const withMigrator = {
  entities: [...tenantAuthEntities],
  extensions: [Migrator],
  schemaGenerator: { skipTables: ['tenant_auth_migrations'] },
  migrations: {
    migrationsList: [...tenantAuthMigrations],
    tableName: 'tenant_auth_migrations',
    snapshot: false,
    silent: true,
  },
};

/** An outbox payload as 1.1 sealed it: `v1.<iv>.<body>` under HKDF(refresh secret), bound to `id|to|template`. */
function sealedAs11(content: object, row: { id: string; to: string; template: string }): string {
  const key = Buffer.from(
    hkdfSync('sha256', Buffer.from(REFRESH_SECRET), Buffer.alloc(0), 'tenant-auth/outbox/v1', 32),
  );
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: 16 });
  cipher.setAAD(Buffer.from(`${row.id}|${row.to}|${row.template}`));
  const body = Buffer.concat([cipher.update(JSON.stringify(content)), cipher.final(), cipher.getAuthTag()]);
  return `v1.${iv.toString('base64url')}.${body.toString('base64url')}`;
}

/**
 * A database at 1.1 with data (a tenant, its owner, a session, a mail waiting in the outbox), upgraded in
 * place by the second-factor migration: the session is a password one authenticated when it was created,
 * the tenant requires nothing, the mail is still delivered, and the new tables work.
 */
async function upgradesFrom11(orm: CoreMikroORM): Promise<void> {
  expect((await orm.migrator.up({ to: ROLES_TOKENS_OUTBOX_AUDIT })).length).toBe(2);
  const memory = createMemoryStores();
  await authOn(memory).register({ email: 'ada@example.com', password: PASSWORD });
  const passwordHash = (await memory.users.findByEmail('ada@example.com'))?.passwordHash;
  const tenantId = randomUUID();
  const userId = randomUUID();
  const sessionId = randomUUID();
  const messageId = randomUUID();
  const conn = orm.em.getConnection();
  const run = (sql: string, params: unknown[]) => conn.execute(sql, params, 'run');
  await run('insert into tenant_auth_tenant (id, slug, name, created_at) values (?, ?, ?, ?::timestamptz)', [
    tenantId,
    'lovelace',
    'Lovelace',
    T0.toISOString(),
  ]);
  await run(
    `insert into tenant_auth_user (id, tenant_id, email, password_hash, role, email_verified, created_at)
     values (?, ?, ?, ?, 'owner', true, ?::timestamptz)`,
    [userId, tenantId, 'ada@example.com', passwordHash, T0.toISOString()],
  );
  const later = new Date(T0.getTime() + 86_400_000).toISOString();
  await run(
    `insert into tenant_auth_session (id, tenant_id, user_id, device_info, created_at, last_used_at, expires_at,
       absolute_expires_at, refresh_hash, refresh_jti, refresh_issued_at, refresh_expires_at)
     values (?, ?, ?, 'Firefox', ?::timestamptz, ?::timestamptz, '2099-01-01', '2099-01-01', ?, 'j', ?::timestamptz, '2099-01-01')`,
    [sessionId, tenantId, userId, later, later, 'a'.repeat(64), later],
  );
  const row = { id: messageId, to: 'ada@example.com', template: 'email_verification' };
  const content = { subject: 'Verify', text: 'https://app.test/verify-email?token=t', html: '<p>t</p>' };
  await run(
    `insert into tenant_auth_outbox_message (id, tenant_id, template, recipient, payload, created_at, attempts, next_attempt_at)
     values (?, ?, ?, ?, ?, ?::timestamptz, 0, ?::timestamptz)`,
    [messageId, tenantId, row.template, row.to, sealedAs11(content, row), T0.toISOString(), T0.toISOString()],
  );
  const eventId = randomUUID();
  await run(
    `insert into tenant_auth_audit_event (tenant_id, id, type, at, actor_id) values (?, ?, 'login_succeeded', ?::timestamptz, ?)`,
    [tenantId, eventId, later, userId],
  );

  expect(await runTenantAuthMigrations(orm)).toEqual([
    SECOND_FACTOR,
    PASSKEYS,
    'tenant-auth-20261127150000-single-sign-on',
    API_KEYS,
    'tenant-auth-20261128120000-sso-protocols',
    'tenant-auth-20261201100000-sso-used-once',
    'tenant-auth-20261202100000-second-factor-lock',
    'tenant-auth-20261205100000-user-active',
    'tenant-auth-20261206100000-webhooks',
    'tenant-auth-20261207100000-scim',
  ]);
  expect(await orm.schema.getUpdateSchemaSQL({ wrap: false })).toMatch(/^(\s|set names[^\n]*)*$/i);

  const stores = createMikroOrmStores(orm);
  expect(await stores.sessions.findById(tenantId, sessionId)).toMatchObject({
    amr: ['pwd'],
    authTime: new Date(later),
  });
  expect((await stores.tenants.findById(tenantId))?.requireMfa).toBe(false);
  // Issue 32: every 1.1 event was a user's (or nobody's).
  expect(await stores.auditEvents.list(tenantId, { limit: 10 })).toMatchObject([
    { id: eventId, actorId: userId, actorType: 'user' },
  ]);

  // The mail 1.1 sealed is delivered by 1.2, with the refresh secret's key (even beside data keys of its own).
  const sent: MailMessage[] = [];
  const auth = createTenantAuth({
    stores,
    accessToken: { secret: 'mikro-orm-test-access-secret-0123456789' },
    refreshSecret: REFRESH_SECRET,
    dataKeys: { current: { id: 'k1', key: randomBytes(32) } },
    passwordHashing: { cost: 4 },
    rateLimit: false,
    logger: { error() {}, warn() {}, info() {} },
    mail: { mailer: { send: async (m) => void sent.push(m) }, from: 'a@b.test', appUrl: 'https://app.test' },
  });
  expect(await auth.deliverMail()).toMatchObject({ delivered: 1, dead: 0 });
  expect(sent.map((m) => m.subject)).toEqual(['Verify']);

  // The upgraded account logs in with a password session, and enrols a second factor in the new tables.
  const login = await auth.login({ email: 'ada@example.com', password: PASSWORD });
  expect(login.session.amr).toEqual(['pwd']);
  const claims = await auth.verifyAccessToken(login.accessToken);
  await auth.setupTotp({ claims });
  expect(await stores.factors.findTotp(tenantId, userId)).toMatchObject({ confirmedAt: null });
}

describe('upgrading a 1.1 database to 1.2 (issue 29)', () => {
  it('on PGlite', async () => {
    const orm = await PgliteMikroORM.init(withMigrator);
    try {
      await upgradesFrom11(orm);
    } finally {
      await orm.close(true);
    }
  });

  it.skipIf(!TEST_DATABASE_URL)('on PostgreSQL', async () => {
    const db = await createTestPostgres();
    const orm = await PostgresMikroORM.init({ ...withMigrator, clientUrl: db.url, pool: { max: 4 } });
    try {
      await upgradesFrom11(orm);
    } finally {
      await orm.close(true);
      await db.drop();
    }
  });
});
