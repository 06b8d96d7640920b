import { describe, expect, it } from 'vitest';
import { SoftwareAuthenticator } from '../../../../../test-support/software-authenticator.js';
import { createMemoryStores } from '../../memory/memory-stores.js';
import type { TenantAuthStores, TransactionStores } from '../../ports/tenant-auth-stores.js';
import {
  code,
  enrolTotp,
  fieldCodes,
  join,
  mfaTokenOf,
  owner,
  PASSWORD,
  setup,
  ssoSignIn,
  ssoTenant,
  totpCode,
  verify,
} from '../../testing/test-helpers.js';

const PASSKEY_ORIGIN = 'https://app.test';

describe('single sign-on (core, fake ports)', () => {
  it('creates a user just in time, then finds it by (issuer, sub); amr has mfa only when the provider says so', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@acme.test');
    await ssoTenant(t, ada.claims, 'acme.test');
    t.idp.signsIn('sub-1', 'Bob@Acme.test', ['pwd']);
    const first = await ssoSignIn(t, 'bob@acme.test');
    expect(first).toMatchObject({ ok: true, redirectTo: 'https://app.acme.test' });
    if (!first.ok) throw new Error('refused');
    expect(first.tokens.user).toMatchObject({ email: 'bob@acme.test', role: 'member', emailVerified: true });
    expect(first.tokens.session.amr).toEqual(['sso']);
    t.idp.signsIn('sub-1', 'bob@acme.test', ['pwd', 'otp', 'mfa']);
    const second = await ssoSignIn(t, 'bob@acme.test');
    if (!second.ok) throw new Error('refused');
    expect(second.tokens.user.id).toBe(first.tokens.user.id);
    expect(second.tokens.session.amr).toEqual(['sso', 'mfa']);
    // A JIT user has no password.
    expect(await code(t.auth.login({ email: 'bob@acme.test', password: PASSWORD }))).toBe(
      'invalid_credentials',
    );
    // A look-alike address (the Kelvin sign lower-cases to k in Unicode) is no address of kilo.test.
    const kilo = await t.auth.addDomain(ada.claims, { domain: 'kilo.test' });
    t.txt.set(kilo.verification.name, [[kilo.verification.value]]);
    await t.auth.verifyDomain(ada.claims, 'kilo.test');
    t.idp.signsIn('sub-3', 'eve@\u212Ailo.test');
    expect(await ssoSignIn(t, 'cat@kilo.test')).toMatchObject({ ok: false, code: 'domain_mismatch' });
    t.idp.signsIn('sub-3', 'Eve@KILO.test');
    expect(await ssoSignIn(t, 'cat@kilo.test')).toMatchObject({ ok: true });
  });

  it('refuses an address the provider says is unverified, a subdomain of a verified domain, and another issuer', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@acme.test');
    await ssoTenant(t, ada.claims, 'acme.test');
    const identity = { issuer: 'https://idp.acme.test', subject: 'sub-u', amr: [] };
    t.idp.next = { ok: true, identity: { ...identity, email: 'uma@acme.test', emailVerified: false } };
    expect(await ssoSignIn(t, 'uma@acme.test')).toMatchObject({ ok: false, code: 'email_not_verified' });
    // Only the verified name itself: a subdomain was never proven.
    t.idp.signsIn('sub-u', 'uma@eng.acme.test');
    expect(await ssoSignIn(t, 'uma@acme.test')).toMatchObject({ ok: false, code: 'domain_mismatch' });
    t.idp.next = {
      ok: true,
      identity: {
        ...identity,
        issuer: 'https://other.idp.test',
        email: 'uma@acme.test',
        emailVerified: true,
      },
    };
    expect(await ssoSignIn(t, 'uma@acme.test')).toMatchObject({ ok: false, code: 'invalid_id_token' });
    // None of these made an account.
    expect(await t.stores.users.findByEmail('uma@acme.test')).toBeNull();
  });

  it('an ID token without auth_time signs in, but is never recent: recent operations and a re-authentication without it are refused', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@acme.test');
    await ssoTenant(t, ada.claims, 'acme.test');
    const bob = {
      issuer: 'https://idp.acme.test',
      subject: 'sub-b',
      email: 'bob@acme.test',
      emailVerified: true,
      amr: [],
    };
    t.idp.next = { ok: true, identity: bob };
    const signedIn = await ssoSignIn(t, 'bob@acme.test');
    if (!signedIn.ok) throw new Error('refused');
    // The callback's time is not the authentication's: the provider did not say when.
    expect(new Date(signedIn.tokens.session.authTime).getTime()).toBe(0);
    const claims = await t.auth.verifyAccessToken(signedIn.tokens.accessToken);
    expect(await code(t.auth.requireRecentAuth(claims))).toBe('reauthentication_required');
    expect(await code(t.auth.requireRecentAuth(claims, { maxAgeSeconds: 86_400 }))).toBe(
      'reauthentication_required',
    );
    // A re-authentication at the provider whose ID token has no auth_time is refused, the session kept.
    const again = await t.auth.reauthenticateSso(claims, {});
    const state = t.idp.lastRequest?.state ?? '';
    expect(
      await t.auth.completeSso({ stateCookie: again.stateCookie, params: { code: 'c', state } }),
    ).toMatchObject({
      ok: false,
      code: 'invalid_id_token',
    });
    expect(await code(t.auth.requireRecentAuth(claims))).toBe('reauthentication_required');
    // With it, the re-authentication makes the session recent.
    t.idp.next = { ok: true, identity: { ...bob, authTime: t.clock.now() } };
    const retry = await t.auth.reauthenticateSso(claims, {});
    const done = await t.auth.completeSso({
      stateCookie: retry.stateCookie,
      params: { code: 'c', state: t.idp.lastRequest?.state ?? '' },
    });
    if (!done.ok) throw new Error('refused');
    await t.auth.requireRecentAuth(await t.auth.verifyAccessToken(done.tokens.accessToken));
    // A sign-in whose ID token says a recent auth_time is recent at once.
    t.idp.next = { ok: true, identity: { ...bob, authTime: t.clock.now() } };
    const fresh = await ssoSignIn(t, 'bob@acme.test');
    if (!fresh.ok) throw new Error('refused');
    await t.auth.requireRecentAuth(await t.auth.verifyAccessToken(fresh.tokens.accessToken));
  });

  it('links an owner by re-authentication only from a recent session; a linked user re-authenticates from any', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@acme.test');
    await ssoTenant(t, ada.claims, 'acme.test');
    t.clock.advance(601_000);
    // Ada's session is no longer recent: a stolen one of hers binds no provider account to her.
    expect(await code(t.auth.reauthenticateSso(ada.claims, {}))).toBe('reauthentication_required');
    const fresh = await t.auth.verifyAccessToken(
      (await t.auth.login({ email: 'ada@acme.test', password: PASSWORD })).accessToken,
    );
    t.idp.next = {
      ok: true,
      identity: {
        issuer: 'https://idp.acme.test',
        subject: 'sub-ada',
        email: 'ada@acme.test',
        emailVerified: true,
        amr: [],
        authTime: t.clock.now(),
      },
    };
    const started = await t.auth.reauthenticateSso(fresh, {});
    const linked = await t.auth.completeSso({
      stateCookie: started.stateCookie,
      params: { code: 'c', state: t.idp.lastRequest?.state ?? '' },
    });
    expect(linked).toMatchObject({ ok: true });
    expect(t.events.filter((e) => e.type === 'sso_identity_linked')).toHaveLength(1);
    // Linked now: re-authenticating is no link, and starts from any session of hers.
    t.clock.advance(601_000);
    await t.auth.reauthenticateSso(fresh, {});
  });

  it('refuses a state that expired, or one sealed for another purpose; keeps returnTo to the app only', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@acme.test');
    await ssoTenant(t, ada.claims, 'acme.test');
    t.idp.signsIn('sub-2', 'cat@acme.test');
    const started = await t.auth.startSso({ email: 'cat@acme.test' });
    const state = t.idp.lastRequest?.state ?? '';
    t.clock.advance(601_000);
    expect(
      await t.auth.completeSso({ stateCookie: started.stateCookie, params: { code: 'c', state } }),
    ).toMatchObject({
      ok: false,
      code: 'invalid_state',
      redirectTo: 'https://app.acme.test/sso-error?code=invalid_state',
    });
    expect(await t.auth.completeSso({ stateCookie: 'v1.r0.AAAA.BBBB', params: { state } })).toMatchObject({
      code: 'invalid_state',
    });
    expect(await ssoSignIn(t, 'cat@acme.test', 'https://app.acme.test/next')).toMatchObject({
      ok: true,
      redirectTo: 'https://app.acme.test/next',
    });
    expect(await ssoSignIn(t, 'cat@acme.test', '//evil.example/x')).toMatchObject({
      redirectTo: 'https://app.acme.test',
    });
    expect(await code(t.auth.startSso({ email: 'x@elsewhere.test' }))).toBe('not_found');
  });

  it('holds users of verified domains to SSO under enforce (login, reset), owners excepted', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@acme.test');
    await verify(t, 'ada@acme.test');
    const bob = await join(t, ada.claims, 'bob@acme.test', 'member');
    const before = await t.auth.login({ email: 'bob@acme.test', password: PASSWORD });
    await ssoTenant(t, ada.claims, 'acme.test', { enforce: true });
    expect((await t.auth.login({ email: 'ada@acme.test', password: PASSWORD })).user.email).toBe(
      'ada@acme.test',
    );
    expect(await code(t.auth.login({ email: 'bob@acme.test', password: PASSWORD }))).toBe('sso_required');
    // Turning enforce on revoked bob's password sessions.
    expect(await code(t.auth.refresh(before.refreshToken))).toBe('invalid_token');
    expect(await t.stores.sessions.listActiveForUser(ada.tenant.id, bob.user.id, t.clock.now())).toEqual([]);
    const configured = await t.auth.getSso(ada.claims);
    expect(configured).toMatchObject({ enforce: true, defaultRole: 'member' });
    expect(JSON.stringify(configured)).not.toContain('sso-client-secret-for-unit-tests');
    expect(JSON.stringify(await t.stores.sso.findConnection(ada.tenant.id))).not.toContain(
      'sso-client-secret-for-unit-tests',
    );
  });

  it.each(['password', 'passkey'] as const)(
    'a %s login that passed the hold check as enforce is turned on makes no session after it',
    async (way) => {
      const t = setup({ webauthn: { rpId: 'app.test', origins: [PASSKEY_ORIGIN] } });
      const ada = await owner(t.auth, 'ada@acme.test');
      await verify(t, 'ada@acme.test');
      const bob = await join(t, ada.claims, 'bob@acme.test', 'member');
      const authenticator = new SoftwareAuthenticator(PASSKEY_ORIGIN);
      if (way === 'passkey') {
        const options = await t.auth.passkeyRegistrationOptions({ claims: bob.claims });
        await t.auth.addPasskey({ claims: bob.claims }, { credential: authenticator.register(options) });
      }
      await ssoTenant(t, ada.claims, 'acme.test');
      // The owner turns enforce on right after bob's login read the connection (not enforcing yet).
      const findConnection = t.stores.sso.findConnection;
      let armed = true;
      t.stores.sso.findConnection = async (tenantId) => {
        const found = await findConnection(tenantId);
        if (armed) {
          armed = false;
          await t.auth.configureSso(ada.claims, {
            issuer: 'https://idp.acme.test',
            clientId: 'acme',
            clientSecret: 'sso-client-secret-for-unit-tests',
            enforce: true,
          });
        }
        return found;
      };
      const login =
        way === 'password'
          ? t.auth.login({ email: 'bob@acme.test', password: PASSWORD })
          : t.auth
              .passkeyLoginOptions()
              .then((o) => t.auth.loginWithPasskey({ credential: authenticator.authenticate(o) }));
      expect(await code(login)).toBe('sso_required');
      expect(armed).toBe(false);
      expect(await t.stores.sessions.listActiveForUser(ada.tenant.id, bob.user.id, t.clock.now())).toEqual(
        [],
      );
    },
  );

  it('a user held to SSO cannot change its address out of the verified domain, nor confirm a change asked before', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@acme.test');
    await verify(t, 'ada@acme.test');
    await join(t, ada.claims, 'bob@acme.test', 'member');
    await ssoTenant(t, ada.claims, 'acme.test');
    t.idp.signsIn('sub-bob', 'bob@acme.test');
    const viaSso = await ssoSignIn(t, 'bob@acme.test');
    if (!viaSso.ok) throw new Error(viaSso.code);
    const bob = await t.auth.verifyAccessToken(viaSso.tokens.accessToken);
    // Asked before enforce, from the SSO session (which enforcing keeps).
    await t.auth.changeEmail(bob, { newEmail: 'bob@elsewhere.example', password: PASSWORD });
    await t.settle();
    const token = t.inbox.token('bob@elsewhere.example', '/confirm-email-change');
    await t.auth.configureSso(ada.claims, {
      issuer: 'https://idp.acme.test',
      clientId: 'acme',
      clientSecret: 'sso-client-secret-for-unit-tests',
      enforce: true,
    });
    expect(await code(t.auth.confirmEmailChange({ token }))).toBe('sso_required');
    expect(await code(t.auth.changeEmail(bob, { newEmail: 'bob@other.example', password: PASSWORD }))).toBe(
      'sso_required',
    );
    expect((await t.stores.users.findById(bob.tenantId, bob.userId))?.email).toBe('bob@acme.test');
    // The owner keeps the way back in, and may change its address.
    await t.auth.changeEmail(ada.claims, { newEmail: 'ada@elsewhere.example', password: PASSWORD });
  });

  it('under enforce, verifying another domain revokes the password sessions of its users', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@acme.test');
    await verify(t, 'ada@acme.test');
    const bob = await join(t, ada.claims, 'bob@beta.test', 'member');
    await ssoTenant(t, ada.claims, 'acme.test', { enforce: true });
    const before = await t.auth.login({ email: 'bob@beta.test', password: PASSWORD });
    const added = await t.auth.addDomain(ada.claims, { domain: 'beta.test' });
    t.txt.set(added.verification.name, [[added.verification.value]]);
    await t.auth.verifyDomain(ada.claims, 'beta.test');
    expect(await code(t.auth.refresh(before.refreshToken))).toBe('invalid_token');
    expect(await t.stores.sessions.listActiveForUser(ada.tenant.id, bob.user.id, t.clock.now())).toEqual([]);
    expect(await code(t.auth.login({ email: 'bob@beta.test', password: PASSWORD }))).toBe('sso_required');
  });

  it('with a store that has no revokeHeldBySso, enforce revokes the held sessions one by one all the same', async () => {
    const memory = createMemoryStores();
    const withoutIt = (stores: TransactionStores): TransactionStores => {
      const { revokeHeldBySso: _, ...sessions } = stores.sessions;
      return { ...stores, sessions };
    };
    const stores: TenantAuthStores = {
      ...memory,
      ...withoutIt(memory),
      transaction: (fn) => memory.transaction((tx) => fn(withoutIt(tx))),
    };
    const t = setup({ stores });
    const ada = await owner(t.auth, 'ada@acme.test');
    await verify(t, 'ada@acme.test');
    await join(t, ada.claims, 'bob@acme.test', 'member');
    await join(t, ada.claims, 'cy@beta.test', 'member');
    const bob = await t.auth.login({ email: 'bob@acme.test', password: PASSWORD });
    const cy = await t.auth.login({ email: 'cy@beta.test', password: PASSWORD });
    await ssoTenant(t, ada.claims, 'acme.test', { enforce: true });
    expect(await code(t.auth.refresh(bob.refreshToken))).toBe('invalid_token');
    expect((await t.auth.refresh(cy.refreshToken)).user.email).toBe('cy@beta.test');
  });

  it('a setup challenge of requireMfa begun before enforce gives no password session after it', async () => {
    const t = setup({ webauthn: { rpId: 'app.test', origins: [PASSKEY_ORIGIN] } });
    const ada = await owner(t.auth, 'ada@acme.test');
    await verify(t, 'ada@acme.test');
    await join(t, ada.claims, 'bob@acme.test', 'member');
    await ssoTenant(t, ada.claims, 'acme.test');
    const { secret } = await enrolTotp(t.auth, ada.claims, () => t.clock.now());
    t.clock.advance(30_000);
    const strong = await t.auth.reauthenticate(ada.claims, {
      password: PASSWORD,
      method: 'totp',
      code: totpCode(secret, t.clock.now()),
    });
    const adaClaims = await t.auth.verifyAccessToken(strong.accessToken);
    await t.auth.setSecurityPolicy(adaClaims, { requireMfa: true });
    // Bob's password is right: the tenant requires a factor he has not got yet.
    const totpToken = await mfaTokenOf(t.auth.login({ email: 'bob@acme.test', password: PASSWORD }));
    const passkeyToken = await mfaTokenOf(t.auth.login({ email: 'bob@acme.test', password: PASSWORD }));
    await t.auth.configureSso(adaClaims, {
      issuer: 'https://idp.acme.test',
      clientId: 'acme',
      clientSecret: 'sso-client-secret-for-unit-tests',
      enforce: true,
    });
    const totp = t.auth
      .setupTotp({ mfaToken: totpToken })
      .then((made) =>
        t.auth.confirmTotp({ mfaToken: totpToken }, { code: totpCode(made.secret, t.clock.now()) }),
      );
    expect(await code(totp)).toBe('sso_required');
    const authenticator = new SoftwareAuthenticator(PASSKEY_ORIGIN);
    const passkey = t.auth
      .passkeyRegistrationOptions({ mfaToken: passkeyToken })
      .then((options) =>
        t.auth.addPasskey({ mfaToken: passkeyToken }, { credential: authenticator.register(options) }),
      );
    expect(await code(passkey)).toBe('sso_required');
  });

  it('checks the connection input and the issuer before storing anything', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@acme.test');
    expect(
      await fieldCodes(
        t.auth.configureSso(ada.claims, {
          issuer: 'http://idp.example',
          clientId: '',
          clientSecret: 'x',
          defaultRole: 'owner' as 'admin',
        }),
      ),
    ).toEqual(['clientId:required', 'issuer:invalid_value', 'defaultRole:invalid_role']);
    expect(
      await fieldCodes(
        t.auth.configureSso(ada.claims, {
          issuer: 'https://down.acme.test',
          clientId: 'a',
          clientSecret: 'b',
        }),
      ),
    ).toEqual(['issuer:issuer_unreachable']);
    expect(await t.auth.getSso(ada.claims)).toBeNull();
  });
});
