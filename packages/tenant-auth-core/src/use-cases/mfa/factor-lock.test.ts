import { describe, expect, it } from 'vitest';
import { SoftwareAuthenticator } from '../../../../../test-support/software-authenticator.js';
import { FACTOR_LOCK } from '../../mechanisms/second-factor/factor-lock.js';
import {
  code,
  enrolTotp,
  failure,
  mfaTokenOf,
  owner,
  PASSWORD,
  setup,
  totpCode,
} from '../../testing/test-helpers.js';

const ADA = 'ada@example.com';
const ORIGIN = 'https://app.test';

/** Ada with TOTP and a passkey; the tenant's rate limits off, so only the lock refuses. */
async function adaWithFactors() {
  const t = setup({ webauthn: { rpId: 'app.test', origins: [ORIGIN] } });
  const ada = await owner(t.auth, ADA);
  const authenticator = new SoftwareAuthenticator(ORIGIN);
  const options = await t.auth.passkeyRegistrationOptions({ claims: ada.claims });
  await t.auth.addPasskey({ claims: ada.claims }, { credential: authenticator.register(options) });
  const viaPasskey = await t.auth.loginWithPasskey({
    credential: authenticator.authenticate(await t.auth.passkeyLoginOptions()),
  });
  const strong = await t.auth.verifyAccessToken(viaPasskey.accessToken);
  const { secret, recoveryCodes } = await enrolTotp(t.auth, strong, () => t.clock.now());
  const challenge = (context = {}) => mfaTokenOf(t.auth.login({ email: ADA, password: PASSWORD }, context));
  /** One wrong TOTP answer on a fresh challenge (a challenge dies at its fifth). */
  const wrongAnswer = async (context = {}) =>
    t.auth.verifyMfa({ mfaToken: await challenge(context), method: 'totp', code: '000000' }, context);
  const wrong = (context = {}) => code(wrongAnswer(context));
  return { t, ada, authenticator, secret, recoveryCodes, strong, challenge, wrong, wrongAnswer };
}

describe('the second-factor lock (docs/http-api.md, "Rules that change in 1.3")', () => {
  it('locks TOTP and recovery codes after 10 wrong answers from any network and challenge; a passkey still works; the password still answers mfa_required', async () => {
    const { t, authenticator, secret, recoveryCodes, challenge, wrong } = await adaWithFactors();
    for (let i = 0; i < FACTOR_LOCK.maxFailures; i++)
      expect(await wrong({ ipAddress: `198.51.${i}.7` })).toBe('validation_failed');
    t.clock.advance(30_000);
    const right = totpCode(secret, t.clock.now());
    const refused = await failure(
      t.auth.verifyMfa({ mfaToken: await challenge(), method: 'totp', code: right }),
    );
    expect(refused.code).toBe('rate_limited');
    expect(refused.retryAfterSeconds).toBe(900 - 30);
    expect(
      await code(
        t.auth.verifyMfa({
          mfaToken: await challenge(),
          method: 'recovery_code',
          code: recoveryCodes[0] as string,
        }),
      ),
    ).toBe('rate_limited');
    // The password alone still gets its challenge; the passkey answers it.
    const mfaToken = await challenge();
    const options = await t.auth.mfaPasskeyOptions({ mfaToken });
    const tokens = await t.auth.verifyMfa({
      mfaToken,
      method: 'passkey',
      credential: authenticator.authenticate(options),
    });
    expect(tokens.session.amr).toContain('mfa');
    // Re-authentication with a code is locked too.
    const claims = await t.auth.verifyAccessToken(tokens.accessToken);
    expect(
      await code(t.auth.reauthenticate(claims, { password: PASSWORD, method: 'totp', code: right })),
    ).toBe('rate_limited');
    // After 15 minutes the right code works again.
    t.clock.advance(871_000);
    const later = totpCode(secret, t.clock.now());
    expect(await code(t.auth.verifyMfa({ mfaToken: await challenge(), method: 'totp', code: later }))).toBe(
      'ok',
    );
  });

  it('doubles each further lock, up to 24 hours; a right answer starts the count again', async () => {
    const { t, secret, challenge, wrong, wrongAnswer } = await adaWithFactors();
    for (let i = 0; i < 9; i++) await wrong();
    t.clock.advance(30_000);
    await t.auth.verifyMfa({
      mfaToken: await challenge(),
      method: 'totp',
      code: totpCode(secret, t.clock.now()),
    });
    // Nine more wrong ones do not lock: the right answer reset the count.
    for (let i = 0; i < 9; i++) expect(await wrong()).toBe('validation_failed');
    const seconds: number[] = [];
    for (let lock = 0; lock < 9; lock++) {
      while ((await wrong()) === 'validation_failed');
      const refused = await failure(wrongAnswer());
      seconds.push(refused.retryAfterSeconds ?? 0);
      t.clock.advance((refused.retryAfterSeconds ?? 0) * 1000);
    }
    expect(seconds).toEqual([900, 1800, 3600, 7200, 14_400, 28_800, 57_600, 86_400, 86_400]);
  });

  it('emails the user at the first lock only, saying someone knows the password', async () => {
    const { t, wrong } = await adaWithFactors();
    for (let i = 0; i < FACTOR_LOCK.maxFailures; i++) await wrong();
    await t.settle();
    const sent = t.inbox.to(ADA).filter((m) => m.subject === 'Someone knows your password');
    expect(sent).toHaveLength(1);
    expect(sent[0]?.text).toMatch(/knows your password/);
    t.clock.advance(900_000);
    for (let i = 0; i < FACTOR_LOCK.maxFailures; i++) await wrong();
    await t.settle();
    expect(t.inbox.to(ADA).filter((m) => m.subject === 'Someone knows your password')).toHaveLength(1);
  });

  it('refuses concurrent wrong answers beyond the limit: each is counted before it is checked', async () => {
    const { t, challenge } = await adaWithFactors();
    const tokens = [];
    for (let i = 0; i < 15; i++) tokens.push(await challenge({ ipAddress: `198.51.${i}.7` }));
    const outcomes = await Promise.all(
      tokens.map((mfaToken, i) =>
        code(t.auth.verifyMfa({ mfaToken, method: 'totp', code: '000000' }, { ipAddress: `198.51.${i}.7` })),
      ),
    );
    expect(outcomes.filter((o) => o === 'validation_failed')).toHaveLength(FACTOR_LOCK.maxFailures);
    expect(outcomes.filter((o) => o === 'rate_limited')).toHaveLength(15 - FACTOR_LOCK.maxFailures);
    const ada = await t.stores.users.findByEmail(ADA);
    expect(await t.stores.factors.findFactorLock?.(ada?.tenantId ?? '', ada?.id ?? '')).toMatchObject({
      failures: 0,
      locks: 1,
    });
    await t.settle();
    expect(t.inbox.to(ADA).filter((m) => m.subject === 'Someone knows your password')).toHaveLength(1);
  });

  it('a right answer as the last allowed one locks nothing', async () => {
    const { t, secret, challenge, wrong } = await adaWithFactors();
    for (let i = 0; i < FACTOR_LOCK.maxFailures - 1; i++) expect(await wrong()).toBe('validation_failed');
    t.clock.advance(30_000);
    const right = totpCode(secret, t.clock.now());
    expect(await code(t.auth.verifyMfa({ mfaToken: await challenge(), method: 'totp', code: right }))).toBe(
      'ok',
    );
    const ada = await t.stores.users.findByEmail(ADA);
    expect(await t.stores.factors.findFactorLock?.(ada?.tenantId ?? '', ada?.id ?? '')).toEqual({
      failures: 0,
      locks: 0,
      lockedUntil: null,
    });
    expect(await wrong()).toBe('validation_failed');
  });

  it('keeps the count in the store, so another instance on the same database sees the lock', async () => {
    const { t, wrong } = await adaWithFactors();
    for (let i = 0; i < FACTOR_LOCK.maxFailures; i++) await wrong();
    const ada = await t.stores.users.findByEmail(ADA);
    const lock = await t.stores.factors.findFactorLock?.(ada?.tenantId ?? '', ada?.id ?? '');
    expect(lock).toMatchObject({ failures: 0, locks: 1 });
    expect(lock?.lockedUntil?.getTime()).toBe(t.clock.now().getTime() + 900_000);
  });
});
