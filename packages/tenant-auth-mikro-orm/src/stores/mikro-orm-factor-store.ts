import { isUuid } from 'tenant-auth-core';
import type { FactorStore, MfaChallengeRecord, TotpFactorRecord } from 'tenant-auth-core/store-kit';
import {
  tenantAuthMfaChallengeSchema,
  tenantAuthRecoveryCodeSchema,
  tenantAuthTotpFactorSchema,
} from '../entities/second-factor.js';
import { tenantAuthUserSchema } from '../entities/user.js';
import { qualifiedTableName } from '../entity-manager-source.js';
import { guarded } from '../to-store-error.js';
import { toAuthMethods } from './rows.js';
import { affectedRows, checkBatchSize, type SqlScope, selectRows } from './sql.js';

const TOTP_COLUMNS = `sealed_secret as "sealedSecret", created_at as "createdAt",
  confirmed_at as "confirmedAt", last_step as "lastStep"`;
const CHALLENGE_COLUMNS = `token_hash as "tokenHash", tenant_id as "tenantId", user_id as "userId", purpose,
  amr, created_at as "createdAt", expires_at as "expiresAt", failures`;

interface TotpRow {
  sealedSecret: string;
  createdAt: Date | string;
  confirmedAt: Date | string | null;
  lastStep: number | string | null;
}
interface ChallengeRow {
  tokenHash: string;
  tenantId: string;
  userId: string;
  purpose: string;
  amr: unknown;
  createdAt: Date | string;
  expiresAt: Date | string;
  failures: number | string;
}

const toTotp = (row: TotpRow): TotpFactorRecord => ({
  sealedSecret: row.sealedSecret,
  createdAt: new Date(row.createdAt),
  confirmedAt: row.confirmedAt == null ? null : new Date(row.confirmedAt),
  lastStep: row.lastStep == null ? null : Number(row.lastStep),
});
const toChallenge = (row: ChallengeRow): MfaChallengeRecord => ({
  tokenHash: row.tokenHash.trim(),
  tenantId: row.tenantId,
  userId: row.userId,
  purpose: row.purpose === 'setup' ? 'setup' : 'verify',
  amr: toAuthMethods(row.amr),
  createdAt: new Date(row.createdAt),
  expiresAt: new Date(row.expiresAt),
  failures: Number(row.failures),
});

/**
 * @internal `FactorStore` on MikroORM, in SQL: every compare-and-set is one conditional statement whose
 * changed rows say who won (the row lock serialises concurrent ones): confirming (`confirmed_at is
 * null`), accepting a step (`last_step is null or last_step < ?`), consuming a recovery code or a
 * challenge (`DELETE ... RETURNING`). Every statement that takes a tenant has it in its `WHERE`.
 */
export function mikroOrmFactorStore(scope: () => SqlScope): FactorStore {
  const tables = (s: SqlScope) => ({
    totp: qualifiedTableName(s.em, tenantAuthTotpFactorSchema),
    codes: qualifiedTableName(s.em, tenantAuthRecoveryCodeSchema),
    users: qualifiedTableName(s.em, tenantAuthUserSchema),
    challenges: qualifiedTableName(s.em, tenantAuthMfaChallengeSchema),
  });
  const ids = (tenantId: string, userId: string) => isUuid(tenantId) && isUuid(userId);
  return {
    saveTotpSetup: (tenantId, userId, setup) =>
      guarded(async () => {
        if (!ids(tenantId, userId)) return false;
        const s = scope();
        const { totp, users } = tables(s);
        // One statement: insert, or replace an unconfirmed setup of the same tenant; a confirmed factor is
        // left alone, and nothing is written for a user outside the tenant.
        const rows = await selectRows(
          s,
          `insert into ${totp} as f (user_id, tenant_id, sealed_secret, created_at, confirmed_at, last_step)
  select u.id, u.tenant_id, ?, ?::timestamptz, null, null from ${users} u where u.id = ? and u.tenant_id = ?
on conflict (user_id) do update set sealed_secret = excluded.sealed_secret, created_at = excluded.created_at,
  last_step = null
  where f.confirmed_at is null and f.tenant_id = excluded.tenant_id
returning f.user_id`,
          [setup.sealedSecret, setup.createdAt.toISOString(), userId, tenantId],
        );
        return rows.length === 1;
      }),
    findTotp: (tenantId, userId) =>
      guarded(async () => {
        if (!ids(tenantId, userId)) return null;
        const s = scope();
        const [row] = await selectRows<TotpRow>(
          s,
          `select ${TOTP_COLUMNS} from ${tables(s).totp} where user_id = ? and tenant_id = ?`,
          [userId, tenantId],
        );
        return row ? toTotp(row) : null;
      }),
    confirmTotp: (tenantId, userId, step, at) =>
      guarded(async () => {
        if (!ids(tenantId, userId)) return false;
        const s = scope();
        const sql = `update ${tables(s).totp} set confirmed_at = ?::timestamptz, last_step = ?
  where user_id = ? and tenant_id = ? and confirmed_at is null`;
        return (await affectedRows(s, sql, [at.toISOString(), step, userId, tenantId])) === 1;
      }),
    acceptTotpStep: (tenantId, userId, step) =>
      guarded(async () => {
        if (!ids(tenantId, userId)) return false;
        const s = scope();
        const sql = `update ${tables(s).totp} set last_step = ?
  where user_id = ? and tenant_id = ? and confirmed_at is not null and (last_step is null or last_step < ?)`;
        return (await affectedRows(s, sql, [step, userId, tenantId, step])) === 1;
      }),
    deleteTotp: (tenantId, userId) =>
      guarded(async () => {
        if (!ids(tenantId, userId)) return false;
        const s = scope();
        const sql = `delete from ${tables(s).totp} where user_id = ? and tenant_id = ?`;
        return (await affectedRows(s, sql, [userId, tenantId])) === 1;
      }),
    replaceRecoveryCodes: (tenantId, userId, hashes, at) =>
      guarded(async () => {
        if (!ids(tenantId, userId)) return;
        const s = scope();
        const { codes, users } = tables(s);
        // One statement: the old set goes and the new one comes together, even outside a transaction; for a
        // user of the tenant only. Hashes are base64url: the array literal needs no quoting.
        if (hashes.some((h) => !/^[A-Za-z0-9_-]+$/.test(h))) throw new TypeError('not a recovery code hash');
        await affectedRows(
          s,
          `with dropped as (delete from ${codes} where user_id = ? and tenant_id = ?)
insert into ${codes} (code_hash, tenant_id, user_id, created_at)
  select h, u.tenant_id, u.id, ?::timestamptz from unnest(?::text[]) as h
  join ${users} u on u.id = ? and u.tenant_id = ?`,
          [userId, tenantId, at.toISOString(), `{${hashes.join(',')}}`, userId, tenantId],
        );
      }),
    consumeRecoveryCode: (tenantId, userId, hash) =>
      guarded(async () => {
        if (!ids(tenantId, userId)) return false;
        const s = scope();
        const sql = `delete from ${tables(s).codes} where code_hash = ? and user_id = ? and tenant_id = ?`;
        return (await affectedRows(s, sql, [hash, userId, tenantId])) === 1;
      }),
    countRecoveryCodes: (tenantId, userId) =>
      guarded(async () => {
        if (!ids(tenantId, userId)) return 0;
        const s = scope();
        const [row] = await selectRows<{ count: number | string }>(
          s,
          `select count(*) as count from ${tables(s).codes} where user_id = ? and tenant_id = ?`,
          [userId, tenantId],
        );
        return Number(row?.count ?? 0);
      }),
    deleteRecoveryCodes: (tenantId, userId) =>
      guarded(async () => {
        if (!ids(tenantId, userId)) return 0;
        const s = scope();
        const sql = `delete from ${tables(s).codes} where user_id = ? and tenant_id = ?`;
        return affectedRows(s, sql, [userId, tenantId]);
      }),
    ...challengeVerbs(scope, (s) => tables(s).challenges),
  };
}

/** The challenge verbs of `mikroOrmFactorStore`. */
function challengeVerbs(
  scope: () => SqlScope,
  table: (s: SqlScope) => string,
): Pick<
  FactorStore,
  | 'createChallenge'
  | 'findChallenge'
  | 'recordChallengeFailure'
  | 'consumeChallenge'
  | 'deleteExpiredChallenges'
> {
  return {
    createChallenge: (c) =>
      guarded(async () => {
        const s = scope();
        await affectedRows(
          s,
          `insert into ${table(s)} (token_hash, tenant_id, user_id, purpose, amr, created_at, expires_at, failures)
  values (?, ?, ?, ?, ?::text[], ?::timestamptz, ?::timestamptz, 0)`,
          [
            c.tokenHash,
            c.tenantId,
            c.userId,
            c.purpose,
            `{${c.amr.join(',')}}`,
            c.createdAt.toISOString(),
            c.expiresAt.toISOString(),
          ],
        );
      }),
    findChallenge: (tokenHash, now) =>
      guarded(async () => {
        const s = scope();
        const [row] = await selectRows<ChallengeRow>(
          s,
          `select ${CHALLENGE_COLUMNS} from ${table(s)} where token_hash = ? and expires_at > ?::timestamptz`,
          [tokenHash, now.toISOString()],
        );
        return row ? toChallenge(row) : null;
      }),
    recordChallengeFailure: (tokenHash) =>
      guarded(async () => {
        const s = scope();
        const [row] = await selectRows<{ failures: number | string }>(
          s,
          `update ${table(s)} set failures = failures + 1 where token_hash = ? returning failures`,
          [tokenHash],
        );
        return Number(row?.failures ?? 0);
      }),
    consumeChallenge: (tokenHash, now) =>
      guarded(async () => {
        const s = scope();
        const [row] = await selectRows<ChallengeRow>(
          s,
          `delete from ${table(s)} where token_hash = ? and expires_at > ?::timestamptz returning ${CHALLENGE_COLUMNS}`,
          [tokenHash, now.toISOString()],
        );
        return row ? toChallenge(row) : null;
      }),
    deleteExpiredChallenges: ({ expiredBefore, batchSize }) =>
      guarded(async () => {
        checkBatchSize(batchSize);
        const s = scope();
        const t = table(s);
        return affectedRows(
          s,
          `delete from ${t} where token_hash = any(array(select token_hash from ${t}
  where expires_at < ?::timestamptz order by expires_at limit ? for update skip locked))`,
          [expiredBefore.toISOString(), batchSize],
        );
      }),
  };
}
