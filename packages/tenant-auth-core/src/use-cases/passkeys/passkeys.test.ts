import { describe, expect, it } from 'vitest';
import { SoftwareAuthenticator } from '../../../../../test-support/software-authenticator.js';
import {
  code,
  enrolTotp,
  failure,
  fieldCodes,
  mfaTokenOf,
  owner,
  PASSWORD,
  setup,
} from '../../testing/test-helpers.js';
import type { AccessClaims } from '../../vocabulary/claims.js';

const ORIGIN = 'https://app.test';
const withPasskeys = () => setup({ webauthn: { rpId: 'app.test', origins: [ORIGIN] } });

/** Registers a passkey of `claims`' user with a fresh authenticator. */
async function addPasskey(t: ReturnType<typeof withPasskeys>, claims: AccessClaims) {
  const authenticator = new SoftwareAuthenticator(ORIGIN);
  const options = await t.auth.passkeyRegistrationOptions({ claims });
  const { passkey } = await t.auth.addPasskey({ claims }, { credential: authenticator.register(options) });
  return { authenticator, passkey };
}

describe('passkeys and the other factors (docs/http-api.md, "Passkeys (WebAuthn)")', () => {
  it('keeps the recovery codes while a factor remains, and lets them go with the last one', async () => {
    const t = withPasskeys();
    const ada = await owner(t.auth, 'ada@example.com');
    const { authenticator, passkey } = await addPasskey(t, ada.claims);
    // With a factor, enrolling another needs a two-factor session: the passkey's.
    const viaPasskey = await t.auth.loginWithPasskey({
      credential: authenticator.authenticate(await t.auth.passkeyLoginOptions()),
    });
    const strongClaims = await t.auth.verifyAccessToken(viaPasskey.accessToken);
    const totp = await enrolTotp(t.auth, strongClaims, () => t.clock.now());
    const me = () => t.auth.getMe(strongClaims).then((m) => m.mfa);
    expect(await me()).toEqual({ totp: true, passkeys: 1, recoveryCodesRemaining: 10 });
    const err = await failure(t.auth.login({ email: 'ada@example.com', password: PASSWORD }));
    expect((err.extensions as { methods: string[] }).methods).toEqual(['totp', 'passkey', 'recovery_code']);

    // Removing TOTP while a passkey remains keeps the codes; removing the passkey then takes them.
    const strong = await t.auth.verifyMfa({
      mfaToken: await mfaTokenOf(t.auth.login({ email: 'ada@example.com', password: PASSWORD })),
      method: 'recovery_code',
      code: totp.recoveryCodes[0] as string,
    });
    const claims = await t.auth.verifyAccessToken(strong.accessToken);
    await t.auth.disableTotp(claims);
    expect(await me()).toEqual({ totp: false, passkeys: 1, recoveryCodesRemaining: 9 });
    await t.auth.removePasskey(claims, passkey.id);
    expect(await me()).toEqual({ totp: false, passkeys: 0, recoveryCodesRemaining: 0 });
  });

  it('keeps the recovery codes when a passkey goes and TOTP remains; refuses the last factor under requireMfa', async () => {
    const t = withPasskeys();
    const ada = await owner(t.auth, 'ada@example.com');
    const { authenticator, passkey } = await addPasskey(t, ada.claims);
    const recent = await t.auth.loginWithPasskey({
      credential: authenticator.authenticate(await t.auth.passkeyLoginOptions()),
    });
    const claims = await t.auth.verifyAccessToken(recent.accessToken);
    expect(claims.amr).toEqual(['hwk', 'mfa']);
    await t.auth.setSecurityPolicy(claims, { requireMfa: true });
    expect(await code(t.auth.removePasskey(claims, passkey.id))).toBe('mfa_required_by_tenant');
    await enrolTotp(t.auth, claims, () => t.clock.now());
    await t.auth.removePasskey(claims, passkey.id);
    const me = await t.auth.getMe(claims);
    expect(me.mfa).toEqual({ totp: true, passkeys: 0, recoveryCodesRemaining: 10 });
    expect(await code(t.auth.disableTotp(claims))).toBe('mfa_required_by_tenant');
  });

  it('refuses a passkey of another tenant, as a second factor and for a re-authentication', async () => {
    const t = withPasskeys();
    const ada = await owner(t.auth, 'ada@example.com');
    const bob = await owner(t.auth, 'bob@example.com');
    await addPasskey(t, ada.claims);
    const bobs = await addPasskey(t, bob.claims);
    const mfaToken = await mfaTokenOf(t.auth.login({ email: 'ada@example.com', password: PASSWORD }));
    const options = await t.auth.mfaPasskeyOptions({ mfaToken });
    const credential = bobs.authenticator.authenticate({ ...options, allowCredentials: undefined });
    const err = await failure(t.auth.verifyMfa({ mfaToken, method: 'passkey', credential }));
    expect(await fieldCodes(Promise.reject(err))).toEqual(['credential:invalid_credential']);
    const reauth = await t.auth.reauthenticationOptions(ada.claims);
    const again = bobs.authenticator.authenticate({ ...reauth, allowCredentials: undefined });
    expect(
      await fieldCodes(t.auth.reauthenticate(ada.claims, { method: 'passkey', credential: again })),
    ).toEqual(['credential:invalid_credential']);
    // Bob's own challenge cannot be answered for Ada either: challenges are bound to their user.
    const forBob = await t.auth.reauthenticationOptions(bob.claims);
    const bound = bobs.authenticator.authenticate(forBob);
    expect(await code(t.auth.reauthenticate(ada.claims, { method: 'passkey', credential: bound }))).toBe(
      'validation_failed',
    );
  });

  it('signs in again and again with an authenticator whose counter stays 0, and refuses a 0 after a count', async () => {
    const t = withPasskeys();
    const ada = await owner(t.auth, 'ada@example.com');
    const { authenticator } = await addPasskey(t, ada.claims);
    const login = async (counter: number) =>
      code(
        t.auth.loginWithPasskey({
          credential: authenticator.authenticate(await t.auth.passkeyLoginOptions(), { counter }),
        }),
      );
    // Synced passkeys report 0 every time: not a regression.
    expect([await login(0), await login(0)]).toEqual(['ok', 'ok']);
    expect(await login(3)).toBe('ok');
    // Once counting, a 0 (or any value not above the last) is a cloned authenticator.
    expect(await login(0)).toBe('invalid_credentials');
    expect(await login(3)).toBe('invalid_credentials');
    expect(await login(4)).toBe('ok');
  });

  it("answers a challenge only for its purpose and user, and refuses another user's userHandle", async () => {
    const t = withPasskeys();
    const ada = await owner(t.auth, 'ada@example.com');
    const bob = await owner(t.auth, 'bob@example.com');
    const { authenticator } = await addPasskey(t, ada.claims);
    // Ada's re-authentication challenge cannot sign anyone in, and a login challenge re-authenticates no one.
    const reauth = await t.auth.reauthenticationOptions(ada.claims);
    const asLogin = authenticator.authenticate({ ...reauth, allowCredentials: undefined });
    expect(await code(t.auth.loginWithPasskey({ credential: asLogin }))).toBe('invalid_credentials');
    const login = authenticator.authenticate(await t.auth.passkeyLoginOptions());
    expect(await code(t.auth.reauthenticate(ada.claims, { method: 'passkey', credential: login }))).toBe(
      'validation_failed',
    );
    // The userHandle is not signed: one that names another user is refused, not ignored.
    const forged = authenticator.authenticate(await t.auth.passkeyLoginOptions());
    const response = forged.response as Record<string, unknown>;
    response.userHandle = Buffer.from(bob.user.id).toString('base64url');
    expect(await code(t.auth.loginWithPasskey({ credential: forged }))).toBe('invalid_credentials');
    // The same assertion with its own handle would have worked (its challenge is spent now, though).
    const fine = authenticator.authenticate(await t.auth.passkeyLoginOptions());
    expect(await code(t.auth.loginWithPasskey({ credential: fine }))).toBe('ok');
  });
});
