import { isUuid } from 'tenant-auth-core';
import type { PasskeyRecord, PasskeyStore, WebAuthnChallengeRecord } from 'tenant-auth-core/store-kit';
import { fromTextArray } from '../rows.js';
import type { SqlDriver } from '../sql-driver.js';
import { consumeUnexpired, deleteBatch, isoOrNull, textArrayLiteral } from '../statements.js';
import { guarded } from '../store-errors.js';
import { tableOf } from '../tables.js';

const PASSKEY_COLUMNS = `id, tenant_id as "tenantId", user_id as "userId", credential_id as "credentialId",
  public_key as "publicKey", counter, transports, name, created_at as "createdAt", last_used_at as "lastUsedAt"`;
const CHALLENGE_COLUMNS = `challenge_hash as "challengeHash", purpose, tenant_id as "tenantId", user_id as "userId",
  created_at as "createdAt", expires_at as "expiresAt"`;
const PURPOSES = ['registration', 'login', 'mfa', 'reauthentication'] as const;

interface PasskeyRow extends Omit<PasskeyRecord, 'counter' | 'transports' | 'createdAt' | 'lastUsedAt'> {
  counter: number | string;
  transports: unknown;
  createdAt: Date | string;
  lastUsedAt: Date | string | null;
}
interface ChallengeRow {
  challengeHash: string;
  purpose: string;
  tenantId: string | null;
  userId: string | null;
  createdAt: Date | string;
  expiresAt: Date | string;
}

const toPasskey = (row: PasskeyRow): PasskeyRecord => ({
  id: row.id,
  tenantId: row.tenantId,
  userId: row.userId,
  credentialId: row.credentialId,
  publicKey: row.publicKey,
  counter: Number(row.counter),
  transports: fromTextArray(row.transports),
  name: row.name,
  createdAt: new Date(row.createdAt),
  lastUsedAt: row.lastUsedAt == null ? null : new Date(row.lastUsedAt),
});
const toChallenge = (row: ChallengeRow): WebAuthnChallengeRecord => {
  const purpose = PURPOSES.find((p) => p === row.purpose);
  if (!purpose) throw new TypeError('unknown WebAuthn challenge purpose');
  return {
    challengeHash: row.challengeHash.trim(),
    purpose,
    tenantId: row.tenantId,
    userId: row.userId,
    createdAt: new Date(row.createdAt),
    expiresAt: new Date(row.expiresAt),
  };
};

/**
 * @internal `PasskeyStore` in SQL: adding is one `INSERT ... SELECT` from the user of the
 * tenant with `ON CONFLICT DO NOTHING` on the credential id (one winner); a use is one conditional
 * `UPDATE` on the counter; consuming a challenge is one `DELETE ... RETURNING`. Every statement that takes
 * a tenant has it in its `WHERE`.
 */
export function sqlPasskeyStore(driver: SqlDriver): PasskeyStore {
  const table = () => tableOf(driver, 'tenant_auth_passkey');
  const ids = (...values: string[]) => values.every(isUuid);
  return {
    add: (p) =>
      guarded(async () => {
        if (!ids(p.id, p.tenantId, p.userId)) return false;
        if (p.transports.some((t) => !/^[a-z-]{1,32}$/.test(t))) throw new TypeError('not a transport');
        const rows = await driver.rows(
          `insert into ${table()} (id, tenant_id, user_id, credential_id, public_key, counter, transports, name, created_at, last_used_at)
  select ?, u.tenant_id, u.id, ?, ?, ?, ?::text[], ?, ?::timestamptz, ?::timestamptz from ${tableOf(driver, 'tenant_auth_user')} u where u.id = ? and u.tenant_id = ?
on conflict do nothing returning id`,
          [
            p.id,
            p.credentialId,
            p.publicKey,
            p.counter,
            textArrayLiteral(p.transports),
            p.name,
            p.createdAt.toISOString(),
            isoOrNull(p.lastUsedAt),
            p.userId,
            p.tenantId,
          ],
        );
        return rows.length === 1;
      }),
    findByCredentialId: (credentialId) =>
      guarded(async () => {
        const [row] = await driver.rows<PasskeyRow>(
          `select ${PASSKEY_COLUMNS} from ${table()} where credential_id = ?`,
          [credentialId],
        );
        return row ? toPasskey(row) : null;
      }),
    listForUser: (tenantId, userId) =>
      guarded(async () => {
        if (!ids(tenantId, userId)) return [];
        const rows = await driver.rows<PasskeyRow>(
          `select ${PASSKEY_COLUMNS} from ${table()} where user_id = ? and tenant_id = ?
  order by created_at, id`,
          [userId, tenantId],
        );
        return rows.map(toPasskey);
      }),
    countForUser: (tenantId, userId) =>
      guarded(async () => {
        if (!ids(tenantId, userId)) return 0;
        const [row] = await driver.rows<{ count: number | string }>(
          `select count(*) as count from ${table()} where user_id = ? and tenant_id = ?`,
          [userId, tenantId],
        );
        return Number(row?.count ?? 0);
      }),
    recordUse: (tenantId, id, use) =>
      guarded(async () => {
        if (!ids(tenantId, id)) return false;
        const sql = `update ${table()} set counter = ?, last_used_at = ?::timestamptz
  where id = ? and tenant_id = ? and counter = ?`;
        const params = [use.counter, use.at.toISOString(), id, tenantId, use.expectedCounter];
        return (await driver.execute(sql, params)) === 1;
      }),
    delete: (tenantId, userId, id) =>
      guarded(async () => {
        if (!ids(tenantId, userId, id)) return false;
        const sql = `delete from ${table()} where id = ? and user_id = ? and tenant_id = ?`;
        return (await driver.execute(sql, [id, userId, tenantId])) === 1;
      }),
    ...challengeVerbs(driver),
  };
}

/** The challenge verbs of `sqlPasskeyStore`. */
function challengeVerbs(
  driver: SqlDriver,
): Pick<PasskeyStore, 'createChallenge' | 'consumeChallenge' | 'deleteExpiredChallenges'> {
  const table = () => tableOf(driver, 'tenant_auth_webauthn_challenge');
  return {
    createChallenge: (c) =>
      guarded(async () => {
        await driver.execute(
          `insert into ${table()} (challenge_hash, purpose, tenant_id, user_id, created_at, expires_at)
  values (?, ?, ?, ?, ?::timestamptz, ?::timestamptz)`,
          [
            c.challengeHash,
            c.purpose,
            c.tenantId,
            c.userId,
            c.createdAt.toISOString(),
            c.expiresAt.toISOString(),
          ],
        );
      }),
    consumeChallenge: (challengeHash, now) =>
      guarded(async () => {
        if (!/^[0-9a-f]{64}$/.test(challengeHash)) return null;
        const consumed = {
          table: table(),
          match: { challenge_hash: challengeHash },
          columns: CHALLENGE_COLUMNS,
        };
        const row = await consumeUnexpired<ChallengeRow>(driver, consumed, now);
        return row ? toChallenge(row) : null;
      }),
    deleteExpiredChallenges: ({ expiredBefore, batchSize }) =>
      guarded(() =>
        deleteBatch(
          driver,
          {
            table: table(),
            key: 'challenge_hash',
            where: 'expires_at < ?::timestamptz',
            orderBy: 'expires_at',
            params: [expiredBefore.toISOString()],
          },
          batchSize,
        ),
      ),
  };
}
