import { randomBytes, randomUUID } from 'node:crypto';
import type { MikroORM as CoreMikroORM } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { MikroORM as PgliteMikroORM } from '@mikro-orm/pglite';
import { MikroORM as PostgresMikroORM } from '@mikro-orm/postgresql';
import {
  createTenantAuth,
  type FieldError,
  type IdentityProvider,
  type IdentityProviderConnection,
} from 'tenant-auth-core';
import { describe, expect, it } from 'vitest';
import { createMikroOrmStores } from '../src/create-mikro-orm-stores.js';
import { runTenantAuthMigrations } from '../src/run-tenant-auth-migrations.js';
import { tenantAuthEntities } from '../src/tenant-auth-entities.js';
import { tenantAuthMigrations } from '../src/tenant-auth-migrations.js';
import { createTestPostgres, TEST_DATABASE_URL } from './support/databases.js';

/*
 * The SSO connections of a 1.2 database (OpenID Connect only: `client_id`, `sealed_client_secret`) become
 * connections of the protocol `oidc` with their settings and sealed secret, in place; the migration
 * reverts to the 1.2 columns and applies again with nothing lost.
 */

const API_KEYS = 'tenant-auth-20261127160000-api-keys';
const SSO_PROTOCOLS = 'tenant-auth-20261128120000-sso-protocols';
/** The migrations after this one (1.3), applied and reverted with it. */
const SSO_USED_ONCE = 'tenant-auth-20261201100000-sso-used-once';
const SECOND_FACTOR_LOCK = 'tenant-auth-20261202100000-second-factor-lock';
const USER_ACTIVE = 'tenant-auth-20261205100000-user-active';
const WEBHOOKS = 'tenant-auth-20261206100000-webhooks';
const SCIM = 'tenant-auth-20261207100000-scim';
const T0 = new Date('2026-01-01T00:00:00.000Z');
const PASSWORD = 'Tr1cky-Harbour-Lantern';

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

/** An `oidc` provider that keeps the connections it starts with (the secret opened by core). */
function recordingProvider(): IdentityProvider & { started: IdentityProviderConnection[] } {
  const started: IdentityProviderConnection[] = [];
  return {
    protocol: 'oidc',
    returnsBy: 'query',
    stateParameter: 'state',
    started,
    checkInput: (): FieldError[] => [],
    configure: async (input) => ({
      ok: true,
      issuer: String(input.issuer),
      settings: { clientId: input.clientId },
      secret: String(input.clientSecret),
    }),
    describe: (c) => ({ issuer: c.issuer, clientId: c.settings.clientId }),
    start: async (connection, { state }) => {
      started.push(connection);
      return { url: `${connection.issuer}/authorize?state=${state}`, kept: {} };
    },
    finish: async () => ({ ok: false, reason: 'idp_error' }),
  };
}

async function rows(orm: CoreMikroORM, sql: string): Promise<Record<string, unknown>[]> {
  return (await orm.em.getConnection().execute(sql, [], 'all')) as Record<string, unknown>[];
}

async function upgradesSsoConnections(orm: CoreMikroORM): Promise<void> {
  // 1.2 before this migration, with a connection as it wrote one.
  expect((await orm.migrator.up({ to: API_KEYS })).at(-1)?.name).toBe(API_KEYS);
  const legacyTenant = randomUUID();
  const conn = orm.em.getConnection();
  await conn.execute(
    `insert into tenant_auth_tenant (id, slug, name, created_at, require_mfa) values (?, 'legacy', 'Legacy', ?::timestamptz, false)`,
    [legacyTenant, T0.toISOString()],
    'run',
  );
  await conn.execute(
    `insert into tenant_auth_sso_connection (tenant_id, issuer, client_id, sealed_client_secret, enforce, default_role, created_at, updated_at)
     values (?, 'https://idp.legacy.test', 'legacy-client', 'v1.k1.iv.body', true, 'admin', ?::timestamptz, ?::timestamptz)`,
    [legacyTenant, T0.toISOString(), T0.toISOString()],
    'run',
  );
  expect(await runTenantAuthMigrations(orm)).toEqual([
    SSO_PROTOCOLS,
    SSO_USED_ONCE,
    SECOND_FACTOR_LOCK,
    USER_ACTIVE,
    WEBHOOKS,
    SCIM,
  ]);
  expect(await orm.schema.getUpdateSchemaSQL({ wrap: false })).toMatch(/^(\s|set names[^\n]*)*$/i);
  const stores = createMikroOrmStores(orm);
  expect(await stores.sso.findConnection(legacyTenant)).toEqual({
    tenantId: legacyTenant,
    protocol: 'oidc',
    issuer: 'https://idp.legacy.test',
    settings: { clientId: 'legacy-client' },
    sealedSecret: 'v1.k1.iv.body',
    enforce: true,
    defaultRole: 'admin',
    createdAt: T0,
    updatedAt: T0,
  });

  // A connection configured now goes back to the 1.2 columns and comes up again: its secret still opens.
  const provider = recordingProvider();
  const txt = new Map<string, string[][]>();
  const auth = createTenantAuth({
    stores,
    accessToken: { secret: 'mikro-orm-test-access-secret-0123456789' },
    refreshSecret: 'mikro-orm-test-refresh-secret-0123456789',
    dataKeys: { current: { id: 'k1', key: randomBytes(32) } },
    passwordHashing: { cost: 4 },
    rateLimit: false,
    logger: { error() {}, warn() {}, info() {} },
    sso: {
      providers: [provider],
      domainResolver: { resolveTxt: async (name) => txt.get(name) ?? [] },
      appUrl: 'https://app.example.test',
    },
  });
  const domain = `d${randomUUID().slice(0, 8)}.example.com`;
  const owner = await auth.register({ email: `owner@${domain}`, password: PASSWORD });
  const claims = await auth.verifyAccessToken(owner.accessToken);
  const added = await auth.addDomain(claims, { domain });
  txt.set(added.verification.name, [[added.verification.value]]);
  await auth.verifyDomain(claims, domain);
  await auth.configureSso(claims, {
    issuer: 'https://idp.example.test',
    clientId: 'client-1',
    clientSecret: 'the-client-secret',
  });
  // A SAML-like connection of another tenant has no 1.2 form: reverting removes it.
  const other = randomUUID();
  await conn.execute(
    `insert into tenant_auth_tenant (id, slug, name, created_at, require_mfa) values (?, 'other', 'Other', ?::timestamptz, false)`,
    [other, T0.toISOString()],
    'run',
  );
  await stores.sso.saveConnection({
    tenantId: other,
    protocol: 'saml',
    issuer: 'https://idp.other.test',
    settings: { ssoUrl: 'https://idp.other.test/sso' },
    sealedSecret: null,
    enforce: false,
    defaultRole: 'member',
    createdAt: T0,
    updatedAt: T0,
  });

  expect((await orm.migrator.down()).map((m) => m.name)).toEqual([SCIM]);
  expect((await orm.migrator.down()).map((m) => m.name)).toEqual([WEBHOOKS]);
  expect((await orm.migrator.down()).map((m) => m.name)).toEqual([USER_ACTIVE]);
  expect((await orm.migrator.down()).map((m) => m.name)).toEqual([SECOND_FACTOR_LOCK]);
  expect((await orm.migrator.down()).map((m) => m.name)).toEqual([SSO_USED_ONCE]);
  expect((await orm.migrator.down()).map((m) => m.name)).toEqual([SSO_PROTOCOLS]);
  const reverted = await rows(
    orm,
    `select client_id, sealed_client_secret from tenant_auth_sso_connection where tenant_id = '${owner.user.tenantId}'`,
  );
  expect(reverted).toEqual([{ client_id: 'client-1', sealed_client_secret: expect.stringMatching(/^v1\./) }]);
  expect(JSON.stringify(reverted)).not.toContain('the-client-secret');
  expect(
    await rows(orm, `select tenant_id from tenant_auth_sso_connection where tenant_id = '${other}'`),
  ).toEqual([]);

  expect((await orm.migrator.up()).map((m) => m.name)).toEqual([
    SSO_PROTOCOLS,
    SSO_USED_ONCE,
    SECOND_FACTOR_LOCK,
    USER_ACTIVE,
    WEBHOOKS,
    SCIM,
  ]);
  await auth.startSso({ email: `someone@${domain}` });
  expect(provider.started).toEqual([
    {
      tenantId: owner.user.tenantId,
      protocol: 'oidc',
      issuer: 'https://idp.example.test',
      settings: { clientId: 'client-1' },
      secret: 'the-client-secret',
    },
  ]);
}

describe('upgrading the SSO connections of a 1.2 database to any protocol', () => {
  it('on PGlite', async () => {
    const orm = await PgliteMikroORM.init(withMigrator);
    try {
      await upgradesSsoConnections(orm);
    } finally {
      await orm.close(true);
    }
  });

  it.skipIf(!TEST_DATABASE_URL)('on PostgreSQL', async () => {
    const db = await createTestPostgres();
    const orm = await PostgresMikroORM.init({ ...withMigrator, clientUrl: db.url, pool: { max: 4 } });
    try {
      await upgradesSsoConnections(orm);
    } finally {
      await orm.close(true);
      await db.drop();
    }
  });
});
