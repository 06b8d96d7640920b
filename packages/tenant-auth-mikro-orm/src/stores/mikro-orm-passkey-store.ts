import { isUuid } from 'tenant-auth-core';
import type { PasskeyRecord, PasskeyStore, WebAuthnChallengeRecord } from 'tenant-auth-core/store-kit';
import { tenantAuthPasskeySchema, tenantAuthWebAuthnChallengeSchema } from '../entities/passkey.js';
import { tenantAuthUserSchema } from '../entities/user.js';
import { qualifiedTableName } from '../entity-manager-source.js';
import { guarded } from '../to-store-error.js';
import { affectedRows, checkBatchSize, type SqlScope, selectRows } from './sql.js';

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

/** A `text[]` as the driver returns it (an array, or the `{a,b}` literal). */
const textArray = (value: unknown): string[] =>
  Array.isArray(value)
    ? value.map(String)
    : typeof value === 'string'
      ? value
          .replace(/^\{|\}$/g, '')
          .split(',')
          .filter((w) => w !== '')
      : [];

const toPasskey = (row: PasskeyRow): PasskeyRecord => ({
  id: row.id,
  tenantId: row.tenantId,
  userId: row.userId,
  credentialId: row.credentialId,
  publicKey: row.publicKey,
  counter: Number(row.counter),
  transports: textArray(row.transports),
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
 * @internal `PasskeyStore` on MikroORM, in SQL: adding is one `INSERT ... SELECT` from the user of the
 * tenant with `ON CONFLICT DO NOTHING` on the credential id (one winner); a use is one conditional
 * `UPDATE` on the counter; consuming a challenge is one `DELETE ... RETURNING`. Every statement that takes
 * a tenant has it in its `WHERE`.
 */
export function mikroOrmPasskeyStore(scope: () => SqlScope): PasskeyStore {
  const tables = (s: SqlScope) => ({
    passkeys: qualifiedTableName(s.em, tenantAuthPasskeySchema),
    challenges: qualifiedTableName(s.em, tenantAuthWebAuthnChallengeSchema),
    users: qualifiedTableName(s.em, tenantAuthUserSchema),
  });
  const ids = (...values: string[]) => values.every(isUuid);
  return {
    add: (p) =>
      guarded(async () => {
        if (!ids(p.id, p.tenantId, p.userId)) return false;
        if (p.transports.some((t) => !/^[a-z-]{1,32}$/.test(t))) throw new TypeError('not a transport');
        const s = scope();
        const { passkeys, users } = tables(s);
        const rows = await selectRows(
          s,
          `insert into ${passkeys} (id, tenant_id, user_id, credential_id, public_key, counter, transports, name, created_at, last_used_at)
  select ?, u.tenant_id, u.id, ?, ?, ?, ?::text[], ?, ?::timestamptz, ?::timestamptz from ${users} u where u.id = ? and u.tenant_id = ?
on conflict do nothing returning id`,
          [
            p.id,
            p.credentialId,
            p.publicKey,
            p.counter,
            `{${p.transports.join(',')}}`,
            p.name,
            p.createdAt.toISOString(),
            p.lastUsedAt?.toISOString() ?? null,
            p.userId,
            p.tenantId,
          ],
        );
        return rows.length === 1;
      }),
    findByCredentialId: (credentialId) =>
      guarded(async () => {
        const s = scope();
        const [row] = await selectRows<PasskeyRow>(
          s,
          `select ${PASSKEY_COLUMNS} from ${tables(s).passkeys} where credential_id = ?`,
          [credentialId],
        );
        return row ? toPasskey(row) : null;
      }),
    listForUser: (tenantId, userId) =>
      guarded(async () => {
        if (!ids(tenantId, userId)) return [];
        const s = scope();
        const rows = await selectRows<PasskeyRow>(
          s,
          `select ${PASSKEY_COLUMNS} from ${tables(s).passkeys} where user_id = ? and tenant_id = ?
  order by created_at, id`,
          [userId, tenantId],
        );
        return rows.map(toPasskey);
      }),
    countForUser: (tenantId, userId) =>
      guarded(async () => {
        if (!ids(tenantId, userId)) return 0;
        const s = scope();
        const [row] = await selectRows<{ count: number | string }>(
          s,
          `select count(*) as count from ${tables(s).passkeys} where user_id = ? and tenant_id = ?`,
          [userId, tenantId],
        );
        return Number(row?.count ?? 0);
      }),
    recordUse: (tenantId, id, use) =>
      guarded(async () => {
        if (!ids(tenantId, id)) return false;
        const s = scope();
        const sql = `update ${tables(s).passkeys} set counter = ?, last_used_at = ?::timestamptz
  where id = ? and tenant_id = ? and counter = ?`;
        const params = [use.counter, use.at.toISOString(), id, tenantId, use.expectedCounter];
        return (await affectedRows(s, sql, params)) === 1;
      }),
    delete: (tenantId, userId, id) =>
      guarded(async () => {
        if (!ids(tenantId, userId, id)) return false;
        const s = scope();
        const sql = `delete from ${tables(s).passkeys} where id = ? and user_id = ? and tenant_id = ?`;
        return (await affectedRows(s, sql, [id, userId, tenantId])) === 1;
      }),
    ...challengeVerbs(scope, (s) => tables(s).challenges),
  };
}

/** The challenge verbs of `mikroOrmPasskeyStore`. */
function challengeVerbs(
  scope: () => SqlScope,
  table: (s: SqlScope) => string,
): Pick<PasskeyStore, 'createChallenge' | 'consumeChallenge' | 'deleteExpiredChallenges'> {
  return {
    createChallenge: (c) =>
      guarded(async () => {
        const s = scope();
        await affectedRows(
          s,
          `insert into ${table(s)} (challenge_hash, purpose, tenant_id, user_id, created_at, expires_at)
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
        const s = scope();
        const [row] = await selectRows<ChallengeRow>(
          s,
          `delete from ${table(s)} where challenge_hash = ? and expires_at > ?::timestamptz returning ${CHALLENGE_COLUMNS}`,
          [challengeHash, now.toISOString()],
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
          `delete from ${t} where challenge_hash = any(array(select challenge_hash from ${t}
  where expires_at < ?::timestamptz order by expires_at limit ? for update skip locked))`,
          [expiredBefore.toISOString(), batchSize],
        );
      }),
  };
}
