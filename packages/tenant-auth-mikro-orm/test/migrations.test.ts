import { randomUUID } from 'node:crypto';
import type { MikroORM as CoreMikroORM } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { MikroORM as PgliteMikroORM } from '@mikro-orm/pglite';
import { MikroORM as PostgresMikroORM } from '@mikro-orm/postgresql';
import { createMemoryStores } from 'tenant-auth-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMikroOrmStores } from '../src/create-mikro-orm-stores.js';
import { runTenantAuthMigrations } from '../src/run-tenant-auth-migrations.js';
import { tenantAuthEntities } from '../src/tenant-auth-entities.js';
import { tenantAuthMigrations } from '../src/tenant-auth-migrations.js';
import {
  authOn,
  countRows,
  createTenantWithOwner,
  createTestPostgres,
  openPglite,
  openPostgres,
  sessionOf,
  TEST_DATABASE_URL,
  type TestPostgres,
} from './support/databases.js';

const INITIAL = 'tenant-auth-20261121132551-initial';
const ROLES_TOKENS_OUTBOX_AUDIT = 'tenant-auth-20261122153000-roles-tokens-outbox-audit';
const SECOND_FACTOR = 'tenant-auth-20261127120000-second-factor';
const PASSKEYS = 'tenant-auth-20261127140000-passkeys';
const SINGLE_SIGN_ON = 'tenant-auth-20261127150000-single-sign-on';
const API_KEYS = 'tenant-auth-20261127160000-api-keys';
const SSO_PROTOCOLS = 'tenant-auth-20261128120000-sso-protocols';
const SSO_USED_ONCE = 'tenant-auth-20261201100000-sso-used-once';
const SECOND_FACTOR_LOCK = 'tenant-auth-20261202100000-second-factor-lock';
const USER_ACTIVE = 'tenant-auth-20261205100000-user-active';
const WEBHOOKS = 'tenant-auth-20261206100000-webhooks';
const SCIM = 'tenant-auth-20261207100000-scim';
const ALL = [
  INITIAL,
  ROLES_TOKENS_OUTBOX_AUDIT,
  SECOND_FACTOR,
  PASSKEYS,
  SINGLE_SIGN_ON,
  API_KEYS,
  SSO_PROTOCOLS,
  SSO_USED_ONCE,
  SECOND_FACTOR_LOCK,
  USER_ACTIVE,
  WEBHOOKS,
  SCIM,
];

/**
 * Timestamp columns of every table (1.1: 17; 1.2: sessions' auth_time and the second factor's five, the
 * passkeys' four, single sign-on's five, and the API key's four; 1.3: SSO's single-use marks' one and
 * users' mfa_locked_until; webhook endpoints' two and deliveries' four; SCIM tokens' two, profiles' one and
 * groups' two).
 */
const TIMESTAMP_COLUMNS = 49;

/** Every foreign key with its delete rule (c: cascade, n: set null). */
const FOREIGN_KEYS = [
  { conname: 'tenant_auth_api_key_created_by_foreign', confdeltype: 'n' },
  { conname: 'tenant_auth_api_key_tenant_id_foreign', confdeltype: 'c' },
  { conname: 'tenant_auth_audit_event_tenant_id_foreign', confdeltype: 'c' },
  { conname: 'tenant_auth_domain_tenant_id_foreign', confdeltype: 'c' },
  { conname: 'tenant_auth_mfa_challenge_tenant_id_foreign', confdeltype: 'c' },
  { conname: 'tenant_auth_mfa_challenge_user_id_foreign', confdeltype: 'c' },
  { conname: 'tenant_auth_one_time_token_created_by_foreign', confdeltype: 'n' },
  { conname: 'tenant_auth_one_time_token_tenant_id_foreign', confdeltype: 'c' },
  { conname: 'tenant_auth_one_time_token_user_id_foreign', confdeltype: 'c' },
  { conname: 'tenant_auth_passkey_tenant_id_foreign', confdeltype: 'c' },
  { conname: 'tenant_auth_passkey_user_id_foreign', confdeltype: 'c' },
  { conname: 'tenant_auth_recovery_code_tenant_id_foreign', confdeltype: 'c' },
  { conname: 'tenant_auth_recovery_code_user_id_foreign', confdeltype: 'c' },
  { conname: 'tenant_auth_scim_group_member_group_id_foreign', confdeltype: 'c' },
  { conname: 'tenant_auth_scim_group_member_tenant_id_foreign', confdeltype: 'c' },
  { conname: 'tenant_auth_scim_group_member_user_id_foreign', confdeltype: 'c' },
  { conname: 'tenant_auth_scim_group_role_tenant_id_foreign', confdeltype: 'c' },
  { conname: 'tenant_auth_scim_group_tenant_id_foreign', confdeltype: 'c' },
  { conname: 'tenant_auth_scim_profile_tenant_id_foreign', confdeltype: 'c' },
  { conname: 'tenant_auth_scim_profile_user_id_foreign', confdeltype: 'c' },
  { conname: 'tenant_auth_scim_token_tenant_id_foreign', confdeltype: 'c' },
  { conname: 'tenant_auth_session_tenant_id_foreign', confdeltype: 'c' },
  { conname: 'tenant_auth_session_user_id_foreign', confdeltype: 'c' },
  { conname: 'tenant_auth_sso_connection_tenant_id_foreign', confdeltype: 'c' },
  { conname: 'tenant_auth_sso_identity_tenant_id_foreign', confdeltype: 'c' },
  { conname: 'tenant_auth_sso_identity_user_id_foreign', confdeltype: 'c' },
  { conname: 'tenant_auth_sso_used_once_tenant_id_foreign', confdeltype: 'c' },
  { conname: 'tenant_auth_totp_factor_tenant_id_foreign', confdeltype: 'c' },
  { conname: 'tenant_auth_totp_factor_user_id_foreign', confdeltype: 'c' },
  { conname: 'tenant_auth_user_tenant_id_foreign', confdeltype: 'c' },
  { conname: 'tenant_auth_webauthn_challenge_tenant_id_foreign', confdeltype: 'c' },
  { conname: 'tenant_auth_webauthn_challenge_user_id_foreign', confdeltype: 'c' },
  { conname: 'tenant_auth_webhook_delivery_endpoint_id_foreign', confdeltype: 'c' },
  { conname: 'tenant_auth_webhook_delivery_tenant_id_foreign', confdeltype: 'c' },
  { conname: 'tenant_auth_webhook_endpoint_tenant_id_foreign', confdeltype: 'c' },
];

async function foreignKeys(orm: CoreMikroORM): Promise<{ conname: string; confdeltype: string }[]> {
  return (await orm.em.getConnection().execute(
    `select conname, confdeltype::text as confdeltype from pg_constraint
     where contype = 'f' and conname like 'tenant_auth_%' order by conname`,
    [],
    'all',
  )) as { conname: string; confdeltype: string }[];
}

/** The SQL MikroORM would run to bring the database to the entities' schema; empty when they agree. */
async function pendingSchemaDiff(orm: CoreMikroORM): Promise<string> {
  const sql = await orm.schema.getUpdateSchemaSQL({ wrap: false });
  return sql
    .split('\n')
    .filter((line) => line.trim() !== '' && !/^set names/i.test(line))
    .join('\n');
}

function migrationContract(open: () => Promise<{ orm: CoreMikroORM; close: () => Promise<void> }>) {
  let orm: CoreMikroORM;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ orm, close } = await open());
  });
  afterAll(async () => {
    await close?.();
  });

  it('applies the shipped migrations once and records them in their own table', async () => {
    expect(await runTenantAuthMigrations(orm)).toEqual(ALL);
    expect(await runTenantAuthMigrations(orm)).toEqual([]);
    expect(await countRows(orm, 'tenant_auth_migrations')).toBe(ALL.length);
  });

  it('leaves no difference between the migrated schema and the entity metadata', async () => {
    expect(await pendingSchemaDiff(orm)).toBe('');
  });

  it('would notice a difference (the check above is not vacuous)', async () => {
    await orm.em
      .getConnection()
      .execute('drop index tenant_auth_session_previous_refresh_hash_idx', [], 'run');
    expect(await pendingSchemaDiff(orm)).toContain('tenant_auth_session_previous_refresh_hash_idx');
    await orm.em
      .getConnection()
      .execute(
        'create index "tenant_auth_session_previous_refresh_hash_idx" on "tenant_auth_session" ("previous_refresh_hash")',
        [],
        'run',
      );
    expect(await pendingSchemaDiff(orm)).toBe('');
  });

  it('creates timestamptz columns only, uuid keys and the foreign keys', async () => {
    const columns = (await orm.em.getConnection().execute(
      `select table_name, column_name, data_type from information_schema.columns
       where table_name like 'tenant_auth_%' and table_name <> 'tenant_auth_migrations'`,
      [],
      'all',
    )) as { table_name: string; column_name: string; data_type: string }[];
    const times = columns.filter(
      (c) =>
        c.column_name.endsWith('_at') ||
        ['at', 'locked_until', 'mfa_locked_until', 'auth_time', 'failing_since'].includes(c.column_name),
    );
    expect(times.length).toBe(TIMESTAMP_COLUMNS);
    for (const c of times) expect(c.data_type).toBe('timestamp with time zone');
    expect(columns.filter((c) => c.data_type.startsWith('timestamp')).length).toBe(TIMESTAMP_COLUMNS);
    // request_id is the client's correlation id, credential_id the authenticator's, external_id the
    // directory's: free text.
    const ids = columns.filter(
      (c) =>
        (c.column_name === 'id' || c.column_name.endsWith('_id') || c.column_name === 'created_by') &&
        !['request_id', 'credential_id', 'external_id'].includes(c.column_name),
    );
    // 1.2: user and tenant of each second-factor table; the passkey's id, user and tenant, the
    // challenge's; single sign-on's six; the API key's id, tenant and creator; 1.3: the tenant of
    // SSO's single-use marks; the webhook endpoint's id and tenant, the delivery's id, tenant, endpoint
    // and event; SCIM: the token's tenant, the mapping's tenant, the profile's user and tenant, the
    // group's id and tenant, the membership's group, user and tenant.
    expect(ids.length).toBe(18 + 6 + 5 + 6 + 3 + 1 + 6 + 9);
    for (const c of ids) expect(c.data_type).toBe('uuid');
    expect(await foreignKeys(orm)).toEqual(FOREIGN_KEYS);
  });
}

const PASSWORD = 'Tr1cky-Harbour-Lantern';
const T0 = new Date('2026-01-01T00:00:00.000Z');

/**
 * A database at 1.0 with data (a tenant, its only user, a session), upgraded in place: the user becomes
 * the owner, unverified, and still logs in; the new tables work; the upgrade can be reverted and reapplied.
 * `open` gives an ORM with MikroORM's migrator over the shipped migrations and tenant-auth's tracking table.
 */
function upgradeContract(open: () => Promise<{ orm: CoreMikroORM; close: () => Promise<void> }>) {
  it('upgrades a 1.0 database with data in place: its users become owners, unverified, and still log in', async () => {
    const { orm, close } = await open();
    try {
      // 1.0: only the initial migration, and rows as 1.0 wrote them (no role, no email_verified).
      expect((await orm.migrator.up({ to: INITIAL })).map((m) => m.name)).toEqual([INITIAL]);
      // A password hash as core makes it, taken from a registration on the memory stores.
      const memory = createMemoryStores();
      await authOn(memory).register({ email: 'ada@example.com', password: PASSWORD });
      const passwordHash = (await memory.users.findByEmail('ada@example.com'))?.passwordHash;
      const tenant = { id: randomUUID(), slug: 'lovelace', name: 'Lovelace', createdAt: T0 };
      const user = {
        id: randomUUID(),
        tenantId: tenant.id,
        email: 'ada@example.com',
        passwordHash,
        createdAt: T0,
      };
      const session = {
        id: randomUUID(),
        tenantId: tenant.id,
        userId: user.id,
        deviceInfo: 'Firefox on Linux',
        ipAddress: '192.0.2.1',
        userAgent: 'Mozilla/5.0',
        createdAt: T0,
        lastUsedAt: T0,
        expiresAt: new Date(T0.getTime() + 7 * 86_400_000),
        absoluteExpiresAt: new Date(T0.getTime() + 30 * 86_400_000),
        revokedAt: null,
        refreshHash: 'a'.repeat(64),
        refreshJti: 'jti-1',
        refreshIssuedAt: T0,
        refreshExpiresAt: new Date(T0.getTime() + 7 * 86_400_000),
        previousRefreshHash: null,
        rotatedAt: null,
      };
      const conn = orm.em.getConnection();
      await conn.execute(
        'insert into tenant_auth_tenant (id, slug, name, created_at) values (?, ?, ?, ?::timestamptz)',
        [tenant.id, tenant.slug, tenant.name, T0.toISOString()],
        'run',
      );
      await conn.execute(
        `insert into tenant_auth_user (id, tenant_id, email, password_hash, created_at)
         values (?, ?, ?, ?, ?::timestamptz)`,
        [user.id, tenant.id, user.email, passwordHash, T0.toISOString()],
        'run',
      );
      const iso = (d: Date) => d.toISOString();
      await conn.execute(
        `insert into tenant_auth_session (id, tenant_id, user_id, device_info, ip_address, user_agent, created_at,
           last_used_at, expires_at, absolute_expires_at, refresh_hash, refresh_jti, refresh_issued_at, refresh_expires_at)
         values (?, ?, ?, ?, ?, ?, ?::timestamptz, ?::timestamptz, ?::timestamptz, ?::timestamptz, ?, ?, ?::timestamptz, ?::timestamptz)`,
        [
          session.id,
          tenant.id,
          user.id,
          session.deviceInfo,
          session.ipAddress,
          session.userAgent,
          iso(session.createdAt),
          iso(session.lastUsedAt),
          iso(session.expiresAt),
          iso(session.absoluteExpiresAt),
          session.refreshHash,
          session.refreshJti,
          iso(session.refreshIssuedAt),
          iso(session.refreshExpiresAt),
        ],
        'run',
      );

      expect(await runTenantAuthMigrations(orm)).toEqual([
        ROLES_TOKENS_OUTBOX_AUDIT,
        SECOND_FACTOR,
        PASSKEYS,
        SINGLE_SIGN_ON,
        API_KEYS,
        SSO_PROTOCOLS,
        SSO_USED_ONCE,
        SECOND_FACTOR_LOCK,
        USER_ACTIVE,
        WEBHOOKS,
        SCIM,
      ]);
      expect(await pendingSchemaDiff(orm)).toBe('');

      const stores = createMikroOrmStores(orm);
      const upgraded = { ...user, role: 'owner', emailVerified: false };
      expect(await stores.users.findByEmail('ada@example.com')).toEqual(upgraded);
      expect(await stores.users.findById(tenant.id, user.id)).toEqual(upgraded);
      expect(await stores.users.countByRole(tenant.id, 'owner')).toBe(1);
      // 1.2 (the second-factor migration): no tenant requires a factor, a 1.1 session was a password one.
      expect(await stores.tenants.findById(tenant.id)).toEqual({ ...tenant, requireMfa: false });
      expect(await stores.sessions.findById(tenant.id, session.id)).toEqual({
        ...session,
        amr: ['pwd'],
        authTime: session.createdAt,
      });
      const login = await authOn(stores).login({ email: 'ada@example.com', password: PASSWORD });
      expect(login.user).toEqual({
        id: user.id,
        email: 'ada@example.com',
        tenantId: tenant.id,
        role: 'owner',
        emailVerified: false,
      });

      // The new tables take rows, and a deleted tenant takes everything of its own with it.
      const token = {
        id: randomUUID(),
        kind: 'email_verification' as const,
        tenantId: tenant.id,
        userId: user.id,
        email: user.email,
        role: null,
        createdBy: null,
        sessionId: session.id,
        tokenHash: 'b'.repeat(64),
        createdAt: T0,
        expiresAt: new Date(T0.getTime() + 3_600_000),
      };
      await stores.oneTimeTokens.issue(token);
      expect(await stores.oneTimeTokens.find('email_verification', token.tokenHash, T0)).toEqual(token);
      const event = {
        id: '01943b7e-0000-7000-8000-0000000000e1',
        tenantId: tenant.id,
        type: 'email_verified' as const,
        at: T0,
        actorId: user.id,
        actorType: 'user' as const,
        subjectId: user.id,
        sessionId: session.id,
        ipAddress: null,
        userAgent: null,
        requestId: null,
      };
      await stores.auditEvents.append(event);
      expect(await stores.auditEvents.list(tenant.id, { limit: 10, type: 'email_verified' })).toEqual([
        event,
      ]);
      await stores.outbox.enqueue({
        id: randomUUID(),
        tenantId: tenant.id,
        template: 'email_verification',
        to: user.email,
        payload: 'sealed',
        createdAt: T0,
        attempts: 0,
        nextAttemptAt: T0,
        lockedUntil: null,
        lastError: null,
        deadAt: null,
      });
      expect(await stores.outbox.claim({ now: T0, limit: 5, leaseSeconds: 60 })).toHaveLength(1);
      expect(await stores.tenants.delete(tenant.id)).toBe(true);
      expect(await stores.users.findByEmail('ada@example.com')).toBeNull();
      expect(await stores.oneTimeTokens.find('email_verification', token.tokenHash, T0)).toBeNull();
      expect(await stores.auditEvents.list(tenant.id, { limit: 10 })).toEqual([]);
      expect(await countRows(orm, 'tenant_auth_session')).toBe(0);
      // The message outlives its tenant: it is still to be delivered.
      expect((await stores.outbox.counts()).pending).toBe(1);
    } finally {
      await close();
    }
  });

  it('reverts the 1.1 migration to the 1.0 schema, keeping the users, and applies it again', async () => {
    const { orm, close } = await open();
    try {
      expect((await orm.migrator.up()).map((m) => m.name)).toEqual(ALL);
      const stores = createMikroOrmStores(orm);
      const tenantId = randomUUID();
      const userId = randomUUID();
      await createTenantWithOwner(stores, {
        tenant: { id: tenantId, slug: 'down-up', name: 'Down and up', createdAt: T0, requireMfa: false },
        user: {
          id: userId,
          tenantId,
          email: 'grace@example.com',
          passwordHash: 'x',
          role: 'owner',
          emailVerified: true,
          createdAt: T0,
        },
      });
      expect((await orm.migrator.down()).map((m) => m.name)).toEqual([SCIM]);
      expect((await orm.migrator.down()).map((m) => m.name)).toEqual([WEBHOOKS]);
      expect((await orm.migrator.down()).map((m) => m.name)).toEqual([USER_ACTIVE]);
      expect((await orm.migrator.down()).map((m) => m.name)).toEqual([SECOND_FACTOR_LOCK]);
      expect((await orm.migrator.down()).map((m) => m.name)).toEqual([SSO_USED_ONCE]);
      expect((await orm.migrator.down()).map((m) => m.name)).toEqual([SSO_PROTOCOLS]);
      expect((await orm.migrator.down()).map((m) => m.name)).toEqual([API_KEYS]);
      expect((await orm.migrator.down()).map((m) => m.name)).toEqual([SINGLE_SIGN_ON]);
      expect((await orm.migrator.down()).map((m) => m.name)).toEqual([PASSKEYS]);
      expect((await orm.migrator.down()).map((m) => m.name)).toEqual([SECOND_FACTOR]);
      expect((await orm.migrator.down()).map((m) => m.name)).toEqual([ROLES_TOKENS_OUTBOX_AUDIT]);
      const tables = (await orm.em
        .getConnection()
        .execute(
          `select table_name from information_schema.tables where table_name like 'tenant_auth_%' order by 1`,
          [],
          'all',
        )) as { table_name: string }[];
      expect(tables.map((t) => t.table_name)).toEqual([
        'tenant_auth_migrations',
        'tenant_auth_session',
        'tenant_auth_tenant',
        'tenant_auth_user',
      ]);
      expect(await countRows(orm, `tenant_auth_user where id = '${userId}'`)).toBe(1);
      expect((await orm.migrator.up()).map((m) => m.name)).toEqual([
        ROLES_TOKENS_OUTBOX_AUDIT,
        SECOND_FACTOR,
        PASSKEYS,
        SINGLE_SIGN_ON,
        API_KEYS,
        SSO_PROTOCOLS,
        SSO_USED_ONCE,
        SECOND_FACTOR_LOCK,
        USER_ACTIVE,
        WEBHOOKS,
        SCIM,
      ]);
      expect(await pendingSchemaDiff(orm)).toBe('');
      // Applied again, the upgrade knows only that every user was an owner; the verification is lost.
      expect(await stores.users.findById(tenantId, userId)).toMatchObject({
        role: 'owner',
        emailVerified: false,
      });
    } finally {
      await close();
    }
  });
}

/** The ORM options that put MikroORM's migrator over the shipped migrations and tenant-auth's own table. */
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

describe('migrations on PGlite', () => {
  migrationContract(async () => {
    const orm = await openPglite();
    return { orm, close: () => orm.close(true) };
  });

  it('also work from an application migration list (migrationsList)', async () => {
    const orm = await PgliteMikroORM.init({
      entities: [...tenantAuthEntities],
      extensions: [Migrator],
      migrations: { migrationsList: [...tenantAuthMigrations], snapshot: false, silent: true },
    });
    try {
      const applied = await orm.migrator.up();
      expect(applied.map((m) => m.name)).toEqual(ALL);
      expect(await pendingSchemaDiff(orm)).toBe('');
    } finally {
      await orm.close(true);
    }
  });

  describe('upgrading from 1.0', () => {
    upgradeContract(async () => {
      const orm = await PgliteMikroORM.init(withMigrator);
      return { orm, close: () => orm.close(true) };
    });
  });
});

describe.skipIf(!TEST_DATABASE_URL)('migrations on PostgreSQL', () => {
  describe('upgrading from 1.0', () => {
    upgradeContract(async () => {
      const db = await createTestPostgres();
      const orm = await PostgresMikroORM.init({ ...withMigrator, clientUrl: db.url, pool: { max: 4 } });
      return {
        orm,
        close: async () => {
          await orm.close(true);
          await db.drop();
        },
      };
    });
  });

  let db: TestPostgres;
  migrationContract(async () => {
    db = await createTestPostgres();
    return { orm: db.orm, close: () => db.drop() };
  });

  it("creates the tables in the ORM's configured schema, where the stores then find them", async () => {
    const fresh = await createTestPostgres();
    const orm = await openPostgres(fresh.url, 2, { schema: 'auth' });
    try {
      expect(await runTenantAuthMigrations(orm)).toEqual(ALL);
      const tables = (await orm.em.getConnection().execute(
        `select table_schema || '.' || table_name as name from information_schema.tables
         where table_name like 'tenant_auth_%' order by 1`,
        [],
        'all',
      )) as { name: string }[];
      expect(tables.map((t) => t.name)).toEqual([
        'auth.tenant_auth_api_key',
        'auth.tenant_auth_audit_event',
        'auth.tenant_auth_domain',
        'auth.tenant_auth_mfa_challenge',
        'auth.tenant_auth_migrations',
        'auth.tenant_auth_one_time_token',
        'auth.tenant_auth_outbox_message',
        'auth.tenant_auth_passkey',
        'auth.tenant_auth_recovery_code',
        'auth.tenant_auth_scim_group',
        'auth.tenant_auth_scim_group_member',
        'auth.tenant_auth_scim_group_role',
        'auth.tenant_auth_scim_profile',
        'auth.tenant_auth_scim_token',
        'auth.tenant_auth_session',
        'auth.tenant_auth_sso_connection',
        'auth.tenant_auth_sso_identity',
        'auth.tenant_auth_sso_used_once',
        'auth.tenant_auth_tenant',
        'auth.tenant_auth_totp_factor',
        'auth.tenant_auth_user',
        'auth.tenant_auth_webauthn_challenge',
        'auth.tenant_auth_webhook_delivery',
        'auth.tenant_auth_webhook_endpoint',
      ]);
      expect(await pendingSchemaDiff(orm)).toBe('');
      const stores = createMikroOrmStores(orm);
      const tenantId = randomUUID();
      await createTenantWithOwner(stores, {
        tenant: {
          id: tenantId,
          slug: 'schema-test',
          name: 'Schema',
          createdAt: new Date(),
          requireMfa: false,
        },
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
      expect((await stores.users.findByEmail('ada@example.com'))?.tenantId).toBe(tenantId);
      expect(
        await stores.sessions.deleteExpired({
          expiredBefore: new Date(),
          revokedBefore: new Date(),
          batchSize: 10,
        }),
      ).toBe(0);
      // The refresh lookup names two tables in one statement: both in the schema.
      const owner = await stores.users.findByEmail('ada@example.com');
      const session = sessionOf(owner!);
      await stores.sessions.create(session);
      expect((await stores.sessions.findByRefreshHash(tenantId, session.refreshHash))?.user?.id).toBe(
        owner?.id,
      );
    } finally {
      await orm.close(true);
      await fresh.drop();
    }
  });

  it('applies each migration once when several instances start at the same time', async () => {
    const fresh = await createTestPostgres();
    const instances = await Promise.all([1, 2, 3].map(() => openPostgres(fresh.url, 2)));
    try {
      const results = await Promise.all(instances.map((orm) => runTenantAuthMigrations(orm)));
      expect(results.flat()).toEqual(ALL);
      expect(await countRows(fresh.orm, 'tenant_auth_migrations')).toBe(ALL.length);
    } finally {
      await Promise.all(instances.map((orm) => orm.close(true)));
      await fresh.drop();
    }
  });
});

describe("the application's migration settings", () => {
  it('do not change what the tenant-auth migrations do (no safe mode, foreign keys kept, one transaction)', async () => {
    const { MikroORM } = await import('@mikro-orm/pglite');
    const { tenantAuthEntities } = await import('../src/tenant-auth-entities.js');
    const orm = await MikroORM.init({
      entities: [...tenantAuthEntities],
      schemaGenerator: { skipTables: ['tenant_auth_migrations'] },
      migrations: {
        transactional: false,
        allOrNothing: false,
        disableForeignKeys: true,
        safe: true,
        dropTables: false,
      },
    });
    try {
      expect(await runTenantAuthMigrations(orm)).toEqual(ALL);
      expect(await foreignKeys(orm)).toEqual(FOREIGN_KEYS);
      expect(await pendingSchemaDiff(orm)).toBe('');
    } finally {
      await orm.close(true);
    }
  });
});
