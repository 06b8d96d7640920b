import { describe, expect, it } from 'vitest';
import { hashRecoveryCode, normalizeRecoveryCode } from '../../mechanisms/second-factor/recovery-codes.js';
import { code, enrolTotp, mfaTokenOf, owner, PASSWORD, setup } from '../../testing/test-helpers.js';

const ADA = 'ada@example.com';

describe('recovery codes are hashed with a server-side key (docs/http-api.md, "Rules that change in 1.3")', () => {
  it('stores no hash that the codes and the user id alone give (no offline guessing from a copy of the database)', async () => {
    const t = setup();
    const ada = await owner(t.auth, ADA);
    // What the enrolment writes, seen on its transaction's stores.
    const written: string[][] = [];
    const original = t.stores.transaction.bind(t.stores);
    t.stores.transaction = (fn) =>
      original((tx) =>
        fn({
          ...tx,
          factors: {
            ...tx.factors,
            replaceRecoveryCodes: async (tenantId, userId, hashes, at) => {
              written.push(hashes);
              return tx.factors.replaceRecoveryCodes(tenantId, userId, hashes, at);
            },
          },
        }),
      );
    const { recoveryCodes } = await enrolTotp(t.auth, ada.claims, () => t.clock.now());
    const unkeyed = recoveryCodes.map((c) => hashRecoveryCode(ada.user.id, normalizeRecoveryCode(c) ?? c));
    expect(written).toHaveLength(1);
    for (const hash of written[0] ?? []) expect(unkeyed).not.toContain(hash);
    // And the keyed codes work.
    const mfaToken = await mfaTokenOf(t.auth.login({ email: ADA, password: PASSWORD }));
    expect(
      await code(t.auth.verifyMfa({ mfaToken, method: 'recovery_code', code: recoveryCodes[0] as string })),
    ).toBe('ok');
  });

  it('still takes the unkeyed codes of before 1.3, once each', async () => {
    const t = setup();
    const ada = await owner(t.auth, ADA);
    await enrolTotp(t.auth, ada.claims, () => t.clock.now());
    // A set as 1.2 stored it.
    const legacy = ['k7pmq-x4t2r', 'a1b2c-d3e4f'];
    await t.stores.factors.replaceRecoveryCodes(
      ada.tenant.id,
      ada.user.id,
      legacy.map((c) => hashRecoveryCode(ada.user.id, normalizeRecoveryCode(c) ?? c)),
      t.clock.now(),
    );
    const answer = async (c: string) =>
      code(
        t.auth.verifyMfa({
          mfaToken: await mfaTokenOf(t.auth.login({ email: ADA, password: PASSWORD })),
          method: 'recovery_code',
          code: c,
        }),
      );
    expect(await answer('K7PMQ-X4T2R')).toBe('ok');
    expect(await answer('k7pmq-x4t2r')).toBe('validation_failed');
    expect(await t.stores.factors.countRecoveryCodes(ada.tenant.id, ada.user.id)).toBe(1);
  });

  it('opens the codes keyed with a previous data key after a rotation', async () => {
    const key = (id: string, byte: number) => ({ id, key: new Uint8Array(32).fill(byte) });
    const t = setup({ dataKeys: { current: key('k1', 1) } });
    const ada = await owner(t.auth, ADA);
    const { recoveryCodes } = await enrolTotp(t.auth, ada.claims, () => t.clock.now());
    // The same database under a rotated key: the old key is a previous one.
    const rotated = setup({
      stores: t.stores,
      dataKeys: { current: key('k2', 2), previous: [key('k1', 1)] },
    });
    const mfaToken = await mfaTokenOf(rotated.auth.login({ email: ADA, password: PASSWORD }));
    expect(
      await code(
        rotated.auth.verifyMfa({ mfaToken, method: 'recovery_code', code: recoveryCodes[0] as string }),
      ),
    ).toBe('ok');
  });
});
