import { randomUUID } from 'node:crypto';
import { isUuid } from 'tenant-auth-core';
import type {
  DomainRecord,
  SsoConnectionRecord,
  SsoIdentityRecord,
  SsoStore,
} from 'tenant-auth-core/store-kit';
import {
  tenantAuthDomainSchema,
  tenantAuthSsoConnectionSchema,
  tenantAuthSsoIdentitySchema,
} from '../entities/single-sign-on.js';
import { tenantAuthTenantSchema } from '../entities/tenant.js';
import { tenantAuthUserSchema } from '../entities/user.js';
import { qualifiedTableName } from '../entity-manager-source.js';
import { guarded } from '../to-store-error.js';
import { affectedRows, type SqlScope, selectRows } from './sql.js';

const DOMAIN_COLUMNS = `tenant_id as "tenantId", name, token, created_at as "createdAt", verified_at as "verifiedAt"`;
const CONNECTION_COLUMNS = `tenant_id as "tenantId", issuer, client_id as "clientId",
  sealed_client_secret as "sealedClientSecret", enforce, default_role as "defaultRole",
  created_at as "createdAt", updated_at as "updatedAt"`;
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

/**
 * @internal `SsoStore` on MikroORM, in SQL. One tenant at most holds a name verified: verifying sets
 * `verified_name`, which is unique, so of tenants racing for one name the database lets one through and
 * refuses the others (`'taken'`). Links and additions are `insert ... on conflict do nothing`. Every
 * statement that takes a tenant has it in its `WHERE`.
 */
export function mikroOrmSsoStore(scope: () => SqlScope): SsoStore {
  const tables = (s: SqlScope) => ({
    domains: qualifiedTableName(s.em, tenantAuthDomainSchema),
    connections: qualifiedTableName(s.em, tenantAuthSsoConnectionSchema),
    identities: qualifiedTableName(s.em, tenantAuthSsoIdentitySchema),
    tenants: qualifiedTableName(s.em, tenantAuthTenantSchema),
    users: qualifiedTableName(s.em, tenantAuthUserSchema),
  });
  const findDomain = async (s: SqlScope, tenantId: string, name: string) => {
    const [row] = await selectRows<Row<DomainRecord>>(
      s,
      `select ${DOMAIN_COLUMNS} from ${tables(s).domains} where tenant_id = ? and name = ?`,
      [tenantId, name],
    );
    return row ? toDomain(row) : null;
  };
  const findVerified = async (s: SqlScope, name: string) => {
    const [row] = await selectRows<Row<DomainRecord>>(
      s,
      `select ${DOMAIN_COLUMNS} from ${tables(s).domains} where verified_name = ?`,
      [name],
    );
    return row ? toDomain(row) : null;
  };
  return {
    addDomain: (domain) =>
      guarded(async () => {
        if (!isUuid(domain.tenantId)) throw new TypeError('not a tenant id');
        const s = scope();
        const { domains, tenants } = tables(s);
        await affectedRows(
          s,
          `insert into ${domains} (id, tenant_id, name, token, created_at, verified_at, verified_name)
  select ?, t.id, ?, ?, ?::timestamptz, null, null from ${tenants} t where t.id = ?
on conflict (tenant_id, name) do nothing`,
          [randomUUID(), domain.name, domain.token, domain.createdAt.toISOString(), domain.tenantId],
        );
        const found = await findDomain(s, domain.tenantId, domain.name);
        if (!found) throw new TypeError('no such tenant');
        return found;
      }),
    findDomain: (tenantId, name) =>
      guarded(async () => (isUuid(tenantId) ? findDomain(scope(), tenantId, name) : null)),
    listDomains: (tenantId) =>
      guarded(async () => {
        if (!isUuid(tenantId)) return [];
        const s = scope();
        const rows = await selectRows<Row<DomainRecord>>(
          s,
          `select ${DOMAIN_COLUMNS} from ${tables(s).domains} where tenant_id = ? order by created_at, name`,
          [tenantId],
        );
        return rows.map(toDomain);
      }),
    findVerifiedDomain: (name) => guarded(() => findVerified(scope(), name)),
    verifyDomain: (tenantId, name, at) =>
      guarded(async () => {
        if (!isUuid(tenantId)) return 'missing';
        const s = scope();
        const domain = await findDomain(s, tenantId, name);
        if (!domain) return 'missing';
        if (domain.verifiedAt !== null) return 'verified';
        try {
          // Held already: no statement that would fail (a failed statement ends a PostgreSQL transaction).
          if (await findVerified(s, name)) return 'taken';
          const changed = await affectedRows(
            s,
            `update ${tables(s).domains} set verified_at = ?::timestamptz, verified_name = name
  where tenant_id = ? and name = ? and verified_at is null`,
            [at.toISOString(), tenantId, name],
          );
          if (changed === 1) return 'verified';
        } catch (err) {
          // Another tenant holds the name verified (the unique `verified_name`), or won the race to it.
          if (isUniqueViolation(err)) return 'taken';
          throw err;
        }
        return (await findDomain(s, tenantId, name))?.verifiedAt ? 'verified' : 'missing';
      }),
    deleteDomain: (tenantId, name) =>
      guarded(async () => {
        if (!isUuid(tenantId)) return false;
        const s = scope();
        const sql = `delete from ${tables(s).domains} where tenant_id = ? and name = ?`;
        return (await affectedRows(s, sql, [tenantId, name])) === 1;
      }),
    saveConnection: (c) =>
      guarded(async () => {
        if (!isUuid(c.tenantId)) return;
        const s = scope();
        const { connections, tenants } = tables(s);
        await affectedRows(
          s,
          `insert into ${connections} (tenant_id, issuer, client_id, sealed_client_secret, enforce, default_role, created_at, updated_at)
  select t.id, ?, ?, ?, ?, ?, ?::timestamptz, ?::timestamptz from ${tenants} t where t.id = ?
on conflict (tenant_id) do update set issuer = excluded.issuer, client_id = excluded.client_id,
  sealed_client_secret = excluded.sealed_client_secret, enforce = excluded.enforce,
  default_role = excluded.default_role, updated_at = excluded.updated_at`,
          [
            c.issuer,
            c.clientId,
            c.sealedClientSecret,
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
        const s = scope();
        const [row] = await selectRows<Row<SsoConnectionRecord>>(
          s,
          `select ${CONNECTION_COLUMNS} from ${tables(s).connections} where tenant_id = ?`,
          [tenantId],
        );
        return row ? toConnection(row) : null;
      }),
    deleteConnection: (tenantId) =>
      guarded(async () => {
        if (!isUuid(tenantId)) return false;
        const s = scope();
        return (
          (await affectedRows(s, `delete from ${tables(s).connections} where tenant_id = ?`, [tenantId])) ===
          1
        );
      }),
    findIdentity: (tenantId, issuer, subject) =>
      guarded(async () => {
        if (!isUuid(tenantId)) return null;
        const s = scope();
        const [row] = await selectRows<Row<SsoIdentityRecord>>(
          s,
          `select ${IDENTITY_COLUMNS} from ${tables(s).identities} where tenant_id = ? and issuer = ? and subject = ?`,
          [tenantId, issuer, subject],
        );
        return row ? toIdentity(row) : null;
      }),
    findIdentityOfUser: (tenantId, userId, issuer) =>
      guarded(async () => {
        if (!isUuid(tenantId) || !isUuid(userId)) return null;
        const s = scope();
        const [row] = await selectRows<Row<SsoIdentityRecord>>(
          s,
          `select ${IDENTITY_COLUMNS} from ${tables(s).identities} where tenant_id = ? and user_id = ? and issuer = ?`,
          [tenantId, userId, issuer],
        );
        return row ? toIdentity(row) : null;
      }),
    linkIdentity: (identity) =>
      guarded(async () => {
        const { tenantId, userId, issuer, subject, createdAt } = identity;
        if (!isUuid(tenantId) || !isUuid(userId)) return false;
        const s = scope();
        const { identities, users } = tables(s);
        const rows = await selectRows(
          s,
          `insert into ${identities} (id, tenant_id, user_id, issuer, subject, created_at)
  select ?, u.tenant_id, u.id, ?, ?, ?::timestamptz from ${users} u where u.id = ? and u.tenant_id = ?
on conflict do nothing returning id`,
          [randomUUID(), issuer, subject, createdAt.toISOString(), userId, tenantId],
        );
        return rows.length === 1;
      }),
  };
}
