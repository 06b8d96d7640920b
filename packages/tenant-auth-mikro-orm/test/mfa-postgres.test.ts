import { createHash, createHmac } from 'node:crypto';
import { createTenantAuth, isTenantAuthError, type TenantAuth } from 'tenant-auth-core';
import { ManualClock } from 'tenant-auth-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMikroOrmStores } from '../src/create-mikro-orm-stores.js';
import { runTenantAuthMigrations } from '../src/run-tenant-auth-migrations.js';
import { createTestPostgres, TEST_DATABASE_URL, type TestPostgres } from './support/databases.js';

const PASSWORD = 'Tr1cky-Harbour-Lantern';
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** A TOTP code (RFC 6238: SHA-1, 6 digits, 30 s), computed here without tenant-auth's code. */
function totpCode(secret: string, now: Date): string {
  let bits = '';
  for (const c of secret) bits += BASE32.indexOf(c).toString(2).padStart(5, '0');
  const key = Buffer.from(bits.match(/.{8}/g)?.map((b) => Number.parseInt(b, 2)) ?? []);
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(now.getTime() / 30_000)));
  const mac = createHmac('sha1', key).update(counter).digest();
  const offset = (mac[mac.length - 1] ?? 0) & 0xf;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

async function mfaToken(auth: TenantAuth, email: string): Promise<string> {
  try {
    await auth.login({ email, password: PASSWORD });
  } catch (err) {
    if (isTenantAuthError(err, 'mfa_required')) return err.extensions?.mfaToken as string;
    throw err;
  }
  throw new Error('expected mfa_required');
}

const outcomes = async (promises: Promise<unknown>[]) =>
  (await Promise.allSettled(promises)).map((r) => r.status).sort();

describe.skipIf(!TEST_DATABASE_URL)('the second factor under concurrency on PostgreSQL (issue 29)', () => {
  let db: TestPostgres;
  let auth: TenantAuth;
  let secret: string;
  let recoveryCodes: string[];
  let adaIds: { tenantId: string; userId: string };
  const clock = new ManualClock(Date.now());

  beforeAll(async () => {
    db = await createTestPostgres(); // a pool of connections: the requests really run in parallel
    await runTenantAuthMigrations(db.orm);
    auth = createTenantAuth({
      stores: createMikroOrmStores(db.orm),
      accessToken: { secret: 'mikro-orm-test-access-secret-0123456789' },
      refreshSecret: 'mikro-orm-test-refresh-secret-0123456789',
      passwordHashing: { cost: 4 },
      rateLimit: false,
      logger: { error() {}, warn() {}, info() {} },
      clock,
    });
    const ada = await auth.register({ email: 'ada@example.com', password: PASSWORD });
    const claims = await auth.verifyAccessToken(ada.accessToken);
    adaIds = { tenantId: claims.tenantId, userId: claims.userId };
    ({ secret } = await auth.setupTotp({ claims }));
    recoveryCodes =
      (await auth.confirmTotp({ claims }, { code: totpCode(secret, clock.now()) })).recoveryCodes ?? [];
    // The confirming code's step is used: the next code is the next step's.
    clock.advance(30_000);
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('lets one of five concurrent answers to one mfaToken make a session', async () => {
    const token = await mfaToken(auth, 'ada@example.com');
    const answers = recoveryCodes
      .slice(0, 5)
      .map((code) => auth.verifyMfa({ mfaToken: token, method: 'recovery_code', code }));
    expect(await outcomes(answers)).toEqual(['fulfilled', 'rejected', 'rejected', 'rejected', 'rejected']);
  });

  it('lets one of five concurrent uses of one recovery code win', async () => {
    const tokens = await Promise.all([1, 2, 3, 4, 5].map(() => mfaToken(auth, 'ada@example.com')));
    const code = recoveryCodes[9] ?? '';
    const answers = tokens.map((t) => auth.verifyMfa({ mfaToken: t, method: 'recovery_code', code }));
    expect(await outcomes(answers)).toEqual(['fulfilled', 'rejected', 'rejected', 'rejected', 'rejected']);
  });

  it('lets one of five concurrent uses of one TOTP code win', async () => {
    const tokens = await Promise.all([1, 2, 3, 4, 5].map(() => mfaToken(auth, 'ada@example.com')));
    const code = totpCode(secret, clock.now());
    const answers = tokens.map((t) => auth.verifyMfa({ mfaToken: t, method: 'totp', code }));
    expect(await outcomes(answers)).toEqual(['fulfilled', 'rejected', 'rejected', 'rejected', 'rejected']);
  });

  it('stores keyed recovery-code hashes, and still takes a code stored unkeyed as 1.2 did, once (docs/http-api.md, "Rules that change in 1.3")', async () => {
    const unkeyed = (code: string) =>
      createHash('sha256')
        .update(`tenant-auth/recovery-code/v1\u0000${adaIds.userId}\u0000${code.replace('-', '')}`)
        .digest('base64url');
    const stored = (await db.orm.em
      .getConnection()
      .execute(
        `select code_hash from tenant_auth_recovery_code where user_id = ?`,
        [adaIds.userId],
        'all',
      )) as {
      code_hash: string;
    }[];
    expect(stored.length).toBeGreaterThan(0);
    const fromCodes = new Set(recoveryCodes.map(unkeyed));
    for (const row of stored) expect(fromCodes.has(row.code_hash)).toBe(false);

    const legacy = 'k7pmq-x4t2r';
    await createMikroOrmStores(db.orm).factors.replaceRecoveryCodes(
      adaIds.tenantId,
      adaIds.userId,
      [unkeyed(legacy)],
      clock.now(),
    );
    const answer = async () =>
      (
        await Promise.allSettled([
          auth.verifyMfa({
            mfaToken: await mfaToken(auth, 'ada@example.com'),
            method: 'recovery_code',
            code: legacy,
          }),
        ])
      )[0]?.status;
    expect(await answer()).toBe('fulfilled');
    expect(await answer()).toBe('rejected');
  });
});
