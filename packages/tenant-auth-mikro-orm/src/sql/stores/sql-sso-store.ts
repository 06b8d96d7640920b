import { randomUUID } from 'node:crypto';
import { isUuid } from 'tenant-auth-core';
import type {
  DomainRecord,
  SsoConnectionRecord,
  SsoIdentityRecord,
  SsoStore,
} from 'tenant-auth-core/store-kit';
import type { SqlDriver } from '../sql-driver.js';
import { guarded } from '../store-errors.js';
import { tableOf } from '../tables.js';
import { ssoUsedOnceVerbs } from './sql-sso-used-once.js';

const DOMAIN_COLUMNS = `tenant_id as "tenantId", name, token, created_at as "createdAt", verified_at as "verifiedAt"`;
const CONNECTION_COLUMNS = `tenant_id as "tenantId", protocol, issuer, settings, sealed_secret as "sealedSecret",
  enforce, default_role as "defaultRole", created_at as "createdAt", updated_at as "updatedAt"`;
const IDENTITY_COLUMNS = `tenant_id as "tenantId", user_id as "userId", issuer, subject, created_at as "createdAt"`;

type Row<T> = {
  [K in keyof T]: T[K] extends Date ? Date | string : T[K] extends Date | null ? Date | string | null : T[K];
};

const toDomain = (row: Row<DomainRecord>): DomainRecord => ({
  tenantId: row.tenantId,
  name: row.name,
  token: row.token,
  createdAt: new Date(row.createdAt),
  verifiedAt: row.verifiedAt == null ? null : new Date(row.verifiedAt),
});
const toConnection = (row: Row<SsoConnectionRecord>): SsoConnectionRecord => ({
  ...row,
  // jsonb: parsed by the driver (pg, PGlite); text where a driver leaves it so.
  settings: typeof row.settings === 'string' ? JSON.parse(row.settings) : row.settings,
  defaultRole: row.defaultRole === 'admin' ? 'admin' : 'member',
  createdAt: new Date(row.createdAt),
  updatedAt: new Date(row.updatedAt),
});
const toIdentity = (row: Row<SsoIdentityRecord>): SsoIdentityRecord => ({
  ...row,
  createdAt: new Date(row.createdAt),
});

/** Whether a driver error is a unique violation (SQLSTATE 23505), however the driver wrapped it. */
function isUniqueViolation(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 3; e = (e as { cause?: unknown }).cause, depth++) {
    if ((e as { code?: unknown }).code === '23505') return true;
  }
  return false;
}

/** The tables of the SSO store, as statements on `driver` write them. */
const tablesOf = (driver: SqlDriver) => ({
  domains: tableOf(driver, 'tenant_auth_domain'),
  connections: tableOf(driver, 'tenant_auth_sso_connection'),
  identities: tableOf(driver, 'tenant_auth_sso_identity'),
  tenants: tableOf(driver, 'tenant_auth_tenant'),
  users: tableOf(driver, 'tenant_auth_user'),
});

/**
 * @internal `SsoStore` in SQL. One tenant at most holds a name verified: verifying sets
 * `verified_name`, which is unique, so of tenants racing for one name the database lets one through and
 * refuses the others (`'taken'`). Links, additions and single-use marks are `insert ... on conflict do
 * nothing`. Every
 * statement that takes a tenant has it in its `WHERE`.
 */
export function sqlSsoStore(driver: SqlDriver): SsoStore {
  return { ...ssoDomainVerbs(driver), ...ssoConnectionVerbs(driver), ...ssoUsedOnceVerbs(driver) };
}

/** The domain verbs of `sqlSsoStore`. */
function ssoDomainVerbs(
  driver: SqlDriver,
): Pick<
  SsoStore,
  'addDomain' | 'findDomain' | 'listDomains' | 'findVerifiedDomain' | 'verifyDomain' | 'deleteDomain'
> {
  const tables = () => tablesOf(driver);
  const findDomain = async (tenantId: string, name: string) => {
    const [row] = await driver.rows<Row<DomainRecord>>(
      `select ${DOMAIN_COLUMNS} from ${tables().domains} where tenant_id = ? and name = ?`,
      [tenantId, name],
    );
    return row ? toDomain(row) : null;
  };
  const findVerified = async (name: string) => {
    const [row] = await driver.rows<Row<DomainRecord>>(
      `select ${DOMAIN_COLUMNS} from ${tables().domains} where verified_name = ?`,
      [name],
    );
    return row ? toDomain(row) : null;
  };
  return {
    addDomain: (domain) =>
      guarded(async () => {
        if (!isUuid(domain.tenantId)) throw new TypeError('not a tenant id');
        const { domains, tenants } = tables();
        await driver.execute(
          `insert into ${domains} (id, tenant_id, name, token, created_at, verified_at, verified_name)
  select ?, t.id, ?, ?, ?::timestamptz, null, null from ${tenants} t where t.id = ?
on conflict (tenant_id, name) do nothing`,
          [randomUUID(), domain.name, domain.token, domain.createdAt.toISOString(), domain.tenantId],
        );
        const found = await findDomain(domain.tenantId, domain.name);
        if (!found) throw new TypeError('no such tenant');
        return found;
      }),
    findDomain: (tenantId, name) =>
      guarded(async () => (isUuid(tenantId) ? findDomain(tenantId, name) : null)),
    listDomains: (tenantId) =>
      guarded(async () => {
        if (!isUuid(tenantId)) return [];
        const rows = await driver.rows<Row<DomainRecord>>(
          `select ${DOMAIN_COLUMNS} from ${tables().domains} where tenant_id = ? order by created_at, name`,
          [tenantId],
        );
        return rows.map(toDomain);
      }),
    findVerifiedDomain: (name) => guarded(() => findVerified(name)),
    verifyDomain: (tenantId, name, at) =>
      guarded(async () => {
        if (!isUuid(tenantId)) return 'missing';
        const domain = await findDomain(tenantId, name);
        if (!domain) return 'missing';
        if (domain.verifiedAt !== null) return 'verified';
        try {
          // Held already: no statement that would fail (a failed statement ends a PostgreSQL transaction).
          if (await findVerified(name)) return 'taken';
          const changed = await driver.execute(
            `update ${tables().domains} set verified_at = ?::timestamptz, verified_name = name
  where tenant_id = ? and name = ? and verified_at is null`,
            [at.toISOString(), tenantId, name],
          );
          if (changed === 1) return 'verified';
        } catch (err) {
          // Another tenant holds the name verified (the unique `verified_name`), or won the race to it.
          if (isUniqueViolation(err)) return 'taken';
          throw err;
        }
        return (await findDomain(tenantId, name))?.verifiedAt ? 'verified' : 'missing';
      }),
    deleteDomain: (tenantId, name) =>
      guarded(async () => {
        if (!isUuid(tenantId)) return false;
        const sql = `delete from ${tables().domains} where tenant_id = ? and name = ?`;
        return (await driver.execute(sql, [tenantId, name])) === 1;
      }),
  };
}

/** The connection and identity verbs of `sqlSsoStore`. */
function ssoConnectionVerbs(
  driver: SqlDriver,
): Pick<
  SsoStore,
  | 'saveConnection'
  | 'findConnection'
  | 'deleteConnection'
  | 'findIdentity'
  | 'findIdentityOfUser'
  | 'linkIdentity'
> {
  const tables = () => tablesOf(driver);
  return {
    saveConnection: (c) =>
      guarded(async () => {
        if (!isUuid(c.tenantId)) return;
        const { connections, tenants } = tables();
        await driver.execute(
          `insert into ${connections} (tenant_id, protocol, issuer, settings, sealed_secret, enforce, default_role, created_at, updated_at)
  select t.id, ?, ?, ?::jsonb, ?, ?, ?, ?::timestamptz, ?::timestamptz from ${tenants} t where t.id = ?
on conflict (tenant_id) do update set protocol = excluded.protocol, issuer = excluded.issuer,
  settings = excluded.settings, sealed_secret = excluded.sealed_secret, enforce = excluded.enforce,
  default_role = excluded.default_role, updated_at = excluded.updated_at`,
          [
            c.protocol,
            c.issuer,
            JSON.stringify(c.settings),
            c.sealedSecret,
            c.enforce,
            c.defaultRole,
            c.createdAt.toISOString(),
            c.updatedAt.toISOString(),
            c.tenantId,
          ],
        );
      }),
    findConnection: (tenantId) =>
      guarded(async () => {
        if (!isUuid(tenantId)) return null;
        const [row] = await driver.rows<Row<SsoConnectionRecord>>(
          `select ${CONNECTION_COLUMNS} from ${tables().connections} where tenant_id = ?`,
          [tenantId],
        );
        return row ? toConnection(row) : null;
      }),
    deleteConnection: (tenantId) =>
      guarded(async () => {
        if (!isUuid(tenantId)) return false;
        return (
          (await driver.execute(`delete from ${tables().connections} where tenant_id = ?`, [tenantId])) === 1
        );
      }),
    findIdentity: (tenantId, issuer, subject) =>
      guarded(async () => {
        if (!isUuid(tenantId)) return null;
        const [row] = await driver.rows<Row<SsoIdentityRecord>>(
          `select ${IDENTITY_COLUMNS} from ${tables().identities} where tenant_id = ? and issuer = ? and subject = ?`,
          [tenantId, issuer, subject],
        );
        return row ? toIdentity(row) : null;
      }),
    findIdentityOfUser: (tenantId, userId, issuer) =>
      guarded(async () => {
        if (!isUuid(tenantId) || !isUuid(userId)) return null;
        const [row] = await driver.rows<Row<SsoIdentityRecord>>(
          `select ${IDENTITY_COLUMNS} from ${tables().identities} where tenant_id = ? and user_id = ? and issuer = ?`,
          [tenantId, userId, issuer],
        );
        return row ? toIdentity(row) : null;
      }),
    linkIdentity: (identity) =>
      guarded(async () => {
        const { tenantId, userId, issuer, subject, createdAt } = identity;
        if (!isUuid(tenantId) || !isUuid(userId)) return false;
        const { identities, users } = tables();
        const rows = await driver.rows(
          `insert into ${identities} (id, tenant_id, user_id, issuer, subject, created_at)
  select ?, u.tenant_id, u.id, ?, ?, ?::timestamptz from ${users} u where u.id = ? and u.tenant_id = ?
on conflict do nothing returning id`,
          [randomUUID(), issuer, subject, createdAt.toISOString(), userId, tenantId],
        );
        return rows.length === 1;
      }),
  };
}
