import { describe, expect, it } from 'vitest';
import { SoftwareAuthenticator } from '../../../../../test-support/software-authenticator.js';
import { createMemoryStores } from '../../memory/memory-stores.js';
import type { FactorStore } from '../../ports/factor-store.js';
import type { CompleteTenantAuthStores } from '../../ports/tenant-auth-stores.js';
import {
  code,
  enrolTotp,
  join,
  mfaTokenOf,
  owner,
  PASSWORD,
  setup,
  totpCode,
  verify,
} from '../../testing/test-helpers.js';

const ORIGIN = 'https://app.test';
const BOB = 'bob@example.com';

/** Memory stores without the optional `factors.deleteChallengesForUser`, in and out of transactions. */
function withoutVoiding(stores: CompleteTenantAuthStores): CompleteTenantAuthStores {
  const strip = <T extends { factors: FactorStore }>(s: T): T => ({
    ...s,
    factors: { ...s.factors, deleteChallengesForUser: undefined },
  });
  return { ...strip(stores), transaction: (fn) => stores.transaction((tx) => fn(strip(tx))) };
}

/** A tenant requiring a second factor, and Bob, a member without one: his logins get setup challenges. */
async function bobMustEnrol(options: { withoutVoiding?: boolean } = {}) {
  const t = setup({
    ...(options.withoutVoiding ? { stores: withoutVoiding(createMemoryStores()) } : {}),
    webauthn: { rpId: 'app.test', origins: [ORIGIN] },
  });
  const ada = await owner(t.auth, 'ada@example.com');
  await verify(t, 'ada@example.com');
  await join(t, ada.claims, BOB, 'member');
  const { secret } = await enrolTotp(t.auth, ada.claims, () => t.clock.now());
  t.clock.advance(30_000);
  const strong = await t.auth.reauthenticate(ada.claims, {
    password: PASSWORD,
    method: 'totp',
    code: totpCode(secret, t.clock.now()),
  });
  await t.auth.setSecurityPolicy(await t.auth.verifyAccessToken(strong.accessToken), { requireMfa: true });
  const setupToken = () => mfaTokenOf(t.auth.login({ email: BOB, password: PASSWORD }));
  return { t, setupToken };
}

describe('enrolment challenges (docs/http-api.md, "Rules that change in 1.3")', () => {
  it('voids the other setup challenges once one enrols a factor', async () => {
    const { t, setupToken } = await bobMustEnrol();
    const [first, second] = [await setupToken(), await setupToken()];
    const { secret } = await t.auth.setupTotp({ mfaToken: first });
    await t.auth.confirmTotp({ mfaToken: first }, { code: totpCode(secret, t.clock.now()) });
    expect(await code(t.auth.setupTotp({ mfaToken: second }))).toBe('invalid_token');
    expect(await code(t.auth.passkeyRegistrationOptions({ mfaToken: second }))).toBe('invalid_token');
  });

  it('enrols nothing with a setup challenge once the user has a factor, even where challenges are not voided', async () => {
    const { t, setupToken } = await bobMustEnrol({ withoutVoiding: true });
    const [first, second] = [await setupToken(), await setupToken()];
    const authenticator = new SoftwareAuthenticator(ORIGIN);
    const options = await t.auth.passkeyRegistrationOptions({ mfaToken: first });
    const credential = authenticator.register(options);
    // The second challenge asks for options before the first enrols, and tries to add a passkey after.
    const late = new SoftwareAuthenticator(ORIGIN);
    const lateCredential = late.register(await t.auth.passkeyRegistrationOptions({ mfaToken: second }));
    await t.auth.addPasskey({ mfaToken: first }, { credential });
    expect(await code(t.auth.addPasskey({ mfaToken: second }, { credential: lateCredential }))).toBe(
      'invalid_token',
    );
    expect(await code(t.auth.setupTotp({ mfaToken: second }))).toBe('invalid_token');
  });

  it('voids a login challenge outstanding when the user enrols another factor', async () => {
    const t = setup({ webauthn: { rpId: 'app.test', origins: [ORIGIN] } });
    const ada = await owner(t.auth, 'ada@example.com');
    const authenticator = new SoftwareAuthenticator(ORIGIN);
    const options = await t.auth.passkeyRegistrationOptions({ claims: ada.claims });
    await t.auth.addPasskey({ claims: ada.claims }, { credential: authenticator.register(options) });
    const pending = await mfaTokenOf(t.auth.login({ email: 'ada@example.com', password: PASSWORD }));
    const viaPasskey = await t.auth.loginWithPasskey({
      credential: authenticator.authenticate(await t.auth.passkeyLoginOptions()),
    });
    const { recoveryCodes } = await enrolTotp(
      t.auth,
      await t.auth.verifyAccessToken(viaPasskey.accessToken),
      () => t.clock.now(),
    );
    expect(
      await code(
        t.auth.verifyMfa({ mfaToken: pending, method: 'recovery_code', code: recoveryCodes[0] as string }),
      ),
    ).toBe('invalid_token');
  });
});
