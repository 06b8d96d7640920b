import { isUuid } from 'tenant-auth-core';
import type {
  FactorLockRule,
  FactorLockState,
  FactorStore,
  MfaChallengeRecord,
  TotpFactorRecord,
} from 'tenant-auth-core/store-kit';
import { toAuthMethods } from '../rows.js';
import type { SqlDriver } from '../sql-driver.js';
import { consumeUnexpired, deleteBatch, textArrayLiteral } from '../statements.js';
import { guarded } from '../store-errors.js';
import { tableOf } from '../tables.js';

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
 * @internal `FactorStore` in SQL: every compare-and-set is one conditional statement whose
 * changed rows say who won (the row lock serialises concurrent ones): confirming (`confirmed_at is
 * null`), accepting a step (`last_step is null or last_step < ?`), consuming a recovery code or a
 * challenge (`DELETE ... RETURNING`). Every statement that takes a tenant has it in its `WHERE`.
 */
export function sqlFactorStore(driver: SqlDriver): FactorStore {
  const tables = () => ({
    totp: tableOf(driver, 'tenant_auth_totp_factor'),
    codes: tableOf(driver, 'tenant_auth_recovery_code'),
    users: tableOf(driver, 'tenant_auth_user'),
  });
  const ids = (tenantId: string, userId: string) => isUuid(tenantId) && isUuid(userId);
  return {
    saveTotpSetup: (tenantId, userId, setup) =>
      guarded(async () => {
        if (!ids(tenantId, userId)) return false;
        const { totp, users } = tables();
        // One statement: insert, or replace an unconfirmed setup of the same tenant; a confirmed factor is
        // left alone, and nothing is written for a user outside the tenant.
        const rows = await driver.rows(
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
        const [row] = await driver.rows<TotpRow>(
          `select ${TOTP_COLUMNS} from ${tables().totp} where user_id = ? and tenant_id = ?`,
          [userId, tenantId],
        );
        return row ? toTotp(row) : null;
      }),
    confirmTotp: (tenantId, userId, step, at) =>
      guarded(async () => {
        if (!ids(tenantId, userId)) return false;
        const sql = `update ${tables().totp} set confirmed_at = ?::timestamptz, last_step = ?
  where user_id = ? and tenant_id = ? and confirmed_at is null`;
        return (await driver.execute(sql, [at.toISOString(), step, userId, tenantId])) === 1;
      }),
    acceptTotpStep: (tenantId, userId, step) =>
      guarded(async () => {
        if (!ids(tenantId, userId)) return false;
        const sql = `update ${tables().totp} set last_step = ?
  where user_id = ? and tenant_id = ? and confirmed_at is not null and (last_step is null or last_step < ?)`;
        return (await driver.execute(sql, [step, userId, tenantId, step])) === 1;
      }),
    deleteTotp: (tenantId, userId) =>
      guarded(async () => {
        if (!ids(tenantId, userId)) return false;
        const sql = `delete from ${tables().totp} where user_id = ? and tenant_id = ?`;
        return (await driver.execute(sql, [userId, tenantId])) === 1;
      }),
    replaceRecoveryCodes: (tenantId, userId, hashes, at) =>
      guarded(async () => {
        if (!ids(tenantId, userId)) return;
        const { codes, users } = tables();
        // One statement: the old set goes and the new one comes together, even outside a transaction; for a
        // user of the tenant only. Hashes are base64url: the array literal needs no quoting.
        if (hashes.some((h) => !/^[A-Za-z0-9_-]+$/.test(h))) throw new TypeError('not a recovery code hash');
        await driver.execute(
          `with dropped as (delete from ${codes} where user_id = ? and tenant_id = ?)
insert into ${codes} (code_hash, tenant_id, user_id, created_at)
  select h, u.tenant_id, u.id, ?::timestamptz from unnest(?::text[]) as h
  join ${users} u on u.id = ? and u.tenant_id = ?`,
          [userId, tenantId, at.toISOString(), textArrayLiteral(hashes), userId, tenantId],
        );
      }),
    consumeRecoveryCode: (tenantId, userId, hash) =>
      guarded(async () => {
        if (!ids(tenantId, userId)) return false;
        const sql = `delete from ${tables().codes} where code_hash = ? and user_id = ? and tenant_id = ?`;
        return (await driver.execute(sql, [hash, userId, tenantId])) === 1;
      }),
    countRecoveryCodes: (tenantId, userId) =>
      guarded(async () => {
        if (!ids(tenantId, userId)) return 0;
        const [row] = await driver.rows<{ count: number | string }>(
          `select count(*) as count from ${tables().codes} where user_id = ? and tenant_id = ?`,
          [userId, tenantId],
        );
        return Number(row?.count ?? 0);
      }),
    deleteRecoveryCodes: (tenantId, userId) =>
      guarded(async () => {
        if (!ids(tenantId, userId)) return 0;
        const sql = `delete from ${tables().codes} where user_id = ? and tenant_id = ?`;
        return driver.execute(sql, [userId, tenantId]);
      }),
    ...challengeVerbs(driver),
    ...lockVerbs(driver),
  };
}

interface LockRow {
  failures: number | string;
  locks: number | string;
  lockedUntil: Date | string | null;
}
const toLock = (row: LockRow): FactorLockState => ({
  failures: Number(row.failures),
  locks: Number(row.locks),
  lockedUntil: row.lockedUntil == null ? null : new Date(row.lockedUntil),
});
const LOCK_COLUMNS = `mfa_failures as failures, mfa_locks as locks, mfa_locked_until as "lockedUntil"`;

/** Locks the account of a row read `for update` in `tx` by `rule`: the count starts again. */
async function lockNow(
  tx: SqlDriver,
  tenantId: string,
  userId: string,
  before: FactorLockState,
  rule: FactorLockRule,
): Promise<FactorLockState> {
  const after: FactorLockState = {
    failures: 0,
    locks: before.locks + 1,
    lockedUntil: new Date(
      rule.at.getTime() + Math.min(rule.lockSeconds * 2 ** before.locks, rule.maxLockSeconds) * 1000,
    ),
  };
  await tx.execute(
    `update ${tableOf(tx, 'tenant_auth_user')} set mfa_failures = 0, mfa_locks = ?, mfa_locked_until = ?::timestamptz
  where id = ? and tenant_id = ?`,
    [after.locks, after.lockedUntil?.toISOString(), userId, tenantId],
  );
  return after;
}

/**
 * The second-factor lock verbs of `sqlFactorStore`, on the user's row: a wrong answer is one `update`
 * (the row lock serialises concurrent ones), which locks the account when it reaches the threshold; it
 * returns whether it did (`mfa_failures` back at 0 with a lock one more).
 */
function lockVerbs(
  driver: SqlDriver,
): Pick<
  FactorStore,
  | 'findFactorLock'
  | 'recordFactorFailure'
  | 'clearFactorFailures'
  | 'reserveFactorAttempt'
  | 'settleFactorFailure'
  | 'releaseFactorAttempt'
> {
  const table = () => tableOf(driver, 'tenant_auth_user');
  const ids = (tenantId: string, userId: string) => isUuid(tenantId) && isUuid(userId);
  return {
    findFactorLock: (tenantId, userId) =>
      guarded(async () => {
        if (!ids(tenantId, userId)) return null;
        const [row] = await driver.rows<LockRow>(
          `select ${LOCK_COLUMNS} from ${table()} where id = ? and tenant_id = ?`,
          [userId, tenantId],
        );
        return row ? toLock(row) : null;
      }),
    recordFactorFailure: (tenantId, userId, rule) =>
      guarded(async () => {
        if (!ids(tenantId, userId)) return null;
        const reached = 'mfa_failures + 1 >= ?';
        const [row] = await driver.rows<LockRow & { lockedNow: boolean }>(
          `update ${table()} set
  mfa_failures = case when ${reached} then 0 else mfa_failures + 1 end,
  mfa_locks = case when ${reached} then mfa_locks + 1 else mfa_locks end,
  mfa_locked_until = case when ${reached}
    then ?::timestamptz + make_interval(secs => least(?::double precision * power(2::double precision, mfa_locks), ?::double precision))
    else mfa_locked_until end
  where id = ? and tenant_id = ?
returning ${LOCK_COLUMNS}, (mfa_failures = 0) as "lockedNow"`,
          [
            rule.maxFailures,
            rule.maxFailures,
            rule.maxFailures,
            rule.at.toISOString(),
            rule.lockSeconds,
            rule.maxLockSeconds,
            userId,
            tenantId,
          ],
        );
        return row ? { ...toLock(row), lockedNow: row.lockedNow === true } : null;
      }),
    reserveFactorAttempt: (tenantId, userId, rule) =>
      guarded(async () => {
        if (!ids(tenantId, userId)) return null;
        // The row lock serialises concurrent reservations: each reads the count the one before left.
        return driver.transaction(async (tx) => {
          const [row] = await tx.rows<LockRow>(
            `select ${LOCK_COLUMNS} from ${tableOf(tx, 'tenant_auth_user')} where id = ? and tenant_id = ? for update`,
            [userId, tenantId],
          );
          if (!row) return null;
          const before = toLock(row);
          if (before.lockedUntil && before.lockedUntil > rule.at)
            return { ...before, reserved: false, lockedNow: false };
          if (before.failures >= rule.maxFailures)
            return {
              ...(await lockNow(tx, tenantId, userId, before, rule)),
              reserved: false,
              lockedNow: true,
            };
          await tx.execute(
            `update ${tableOf(tx, 'tenant_auth_user')} set mfa_failures = mfa_failures + 1 where id = ? and tenant_id = ?`,
            [userId, tenantId],
          );
          return { ...before, failures: before.failures + 1, reserved: true, lockedNow: false };
        });
      }),
    settleFactorFailure: (tenantId, userId, rule) =>
      guarded(async () => {
        if (!ids(tenantId, userId)) return null;
        return driver.transaction(async (tx) => {
          const [row] = await tx.rows<LockRow>(
            `select ${LOCK_COLUMNS} from ${tableOf(tx, 'tenant_auth_user')} where id = ? and tenant_id = ? for update`,
            [userId, tenantId],
          );
          if (!row) return null;
          const before = toLock(row);
          if (before.failures < rule.maxFailures) return { ...before, lockedNow: false };
          return { ...(await lockNow(tx, tenantId, userId, before, rule)), lockedNow: true };
        });
      }),
    releaseFactorAttempt: (tenantId, userId) =>
      guarded(async () => {
        if (!ids(tenantId, userId)) return;
        await driver.execute(
          `update ${table()} set mfa_failures = mfa_failures - 1 where id = ? and tenant_id = ? and mfa_failures > 0`,
          [userId, tenantId],
        );
      }),
    clearFactorFailures: (tenantId, userId) =>
      guarded(async () => {
        if (!ids(tenantId, userId)) return;
        await driver.execute(
          `update ${table()} set mfa_failures = 0 where id = ? and tenant_id = ? and mfa_failures <> 0`,
          [userId, tenantId],
        );
      }),
  };
}

/** The challenge verbs of `sqlFactorStore`. */
function challengeVerbs(
  driver: SqlDriver,
): Pick<
  FactorStore,
  | 'createChallenge'
  | 'findChallenge'
  | 'recordChallengeFailure'
  | 'consumeChallenge'
  | 'deleteChallengesForUser'
  | 'deleteExpiredChallenges'
> {
  const table = () => tableOf(driver, 'tenant_auth_mfa_challenge');
  return {
    createChallenge: (c) =>
      guarded(async () => {
        await driver.execute(
          `insert into ${table()} (token_hash, tenant_id, user_id, purpose, amr, created_at, expires_at, failures)
  values (?, ?, ?, ?, ?::text[], ?::timestamptz, ?::timestamptz, 0)`,
          [
            c.tokenHash,
            c.tenantId,
            c.userId,
            c.purpose,
            textArrayLiteral(c.amr),
            c.createdAt.toISOString(),
            c.expiresAt.toISOString(),
          ],
        );
      }),
    findChallenge: (tokenHash, now) =>
      guarded(async () => {
        const [row] = await driver.rows<ChallengeRow>(
          `select ${CHALLENGE_COLUMNS} from ${table()} where token_hash = ? and expires_at > ?::timestamptz`,
          [tokenHash, now.toISOString()],
        );
        return row ? toChallenge(row) : null;
      }),
    recordChallengeFailure: (tokenHash) =>
      guarded(async () => {
        const [row] = await driver.rows<{ failures: number | string }>(
          `update ${table()} set failures = failures + 1 where token_hash = ? returning failures`,
          [tokenHash],
        );
        return Number(row?.failures ?? 0);
      }),
    consumeChallenge: (tokenHash, now) =>
      guarded(async () => {
        const consumed = { table: table(), match: { token_hash: tokenHash }, columns: CHALLENGE_COLUMNS };
        const row = await consumeUnexpired<ChallengeRow>(driver, consumed, now);
        return row ? toChallenge(row) : null;
      }),
    deleteChallengesForUser: (tenantId, userId) =>
      guarded(async () => {
        if (!isUuid(tenantId) || !isUuid(userId)) return 0;
        return driver.execute(`delete from ${table()} where user_id = ? and tenant_id = ?`, [
          userId,
          tenantId,
        ]);
      }),
    deleteExpiredChallenges: ({ expiredBefore, batchSize }) =>
      guarded(() =>
        deleteBatch(
          driver,
          {
            table: table(),
            key: 'token_hash',
            where: 'expires_at < ?::timestamptz',
            orderBy: 'expires_at',
            params: [expiredBefore.toISOString()],
          },
          batchSize,
        ),
      ),
  };
}
