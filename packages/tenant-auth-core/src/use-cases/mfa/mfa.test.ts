import { describe, expect, it } from 'vitest';
import {
  code,
  enrolTotp,
  failure,
  fieldCodes,
  join,
  mfaTokenOf,
  owner,
  PASSWORD,
  setup,
  totpCode,
  verify,
} from '../../testing/test-helpers.js';

const ADA = 'ada@example.com';

/** Ada, owner of her tenant, with TOTP enrolled from a fresh login (recent, password-only). */
async function adaWithTotp(t: ReturnType<typeof setup>) {
  const ada = await owner(t.auth, ADA);
  const enrolled = await enrolTotp(t.auth, ada.claims, () => t.clock.now());
  return { ada, ...enrolled };
}

describe('second factor at login (docs/http-api.md, "Second factor: TOTP and recovery codes")', () => {
  it('answers mfa_required with a challenge instead of a session, and verifyMfa makes the session', async () => {
    const t = setup();
    const { ada, secret } = await adaWithTotp(t);
    const active = () => t.stores.sessions.listActiveForUser(ada.tenant.id, ada.user.id, t.clock.now());
    const before = (await active()).length;
    const err = await failure(t.auth.login({ email: ADA, password: PASSWORD }));
    expect((await active()).length).toBe(before);
    expect(err.code).toBe('mfa_required');
    expect(err.status).toBe(401);
    const { mfaToken, methods, expiresIn } = err.extensions as Record<string, unknown>;
    expect(methods).toEqual(['totp', 'recovery_code']);
    expect(expiresIn).toBe(300);
    expect(mfaToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    t.clock.advance(30_000);
    const tokens = await t.auth.verifyMfa({
      mfaToken: mfaToken as string,
      method: 'totp',
      code: totpCode(secret, t.clock.now()),
    });
    expect(tokens.session.amr).toEqual(['pwd', 'otp', 'mfa']);
    const claims = await t.auth.verifyAccessToken(tokens.accessToken);
    expect(claims.amr).toEqual(['pwd', 'otp', 'mfa']);
    expect(claims.authTime).toEqual(new Date(Math.floor(t.clock.now().getTime() / 1000) * 1000));
    // Used: the same token again is invalid.
    expect(
      await code(t.auth.verifyMfa({ mfaToken: mfaToken as string, method: 'totp', code: '123456' })),
    ).toBe('invalid_token');
  });

  it('refuses a code replayed within its window (threat: replay)', async () => {
    const t = setup();
    const { secret } = await adaWithTotp(t);
    t.clock.advance(30_000);
    const now = totpCode(secret, t.clock.now());
    const first = await mfaTokenOf(t.auth.login({ email: ADA, password: PASSWORD }));
    await t.auth.verifyMfa({ mfaToken: first, method: 'totp', code: now });
    t.clock.advance(10_000); // same step window
    const second = await mfaTokenOf(t.auth.login({ email: ADA, password: PASSWORD }));
    expect(await fieldCodes(t.auth.verifyMfa({ mfaToken: second, method: 'totp', code: now }))).toEqual([
      'code:incorrect',
    ]);
  });

  it('lets one of two concurrent uses of one TOTP code, one recovery code, or one mfaToken win', async () => {
    const t = setup();
    const { secret, recoveryCodes } = await adaWithTotp(t);
    t.clock.advance(30_000);
    const challenge = () => mfaTokenOf(t.auth.login({ email: ADA, password: PASSWORD }));
    const outcomes = async (promises: Promise<unknown>[]) =>
      (await Promise.allSettled(promises)).map((r) => r.status);
    // One TOTP step, two challenges.
    const totpNow = totpCode(secret, t.clock.now());
    const [a, b] = [await challenge(), await challenge()];
    const byStep = await outcomes([
      t.auth.verifyMfa({ mfaToken: a, method: 'totp', code: totpNow }),
      t.auth.verifyMfa({ mfaToken: b, method: 'totp', code: totpNow }),
    ]);
    expect(byStep.sort()).toEqual(['fulfilled', 'rejected']);
    // One recovery code, two challenges.
    const [c, d] = [await challenge(), await challenge()];
    const byCode = await outcomes([
      t.auth.verifyMfa({ mfaToken: c, method: 'recovery_code', code: recoveryCodes[0] ?? '' }),
      t.auth.verifyMfa({ mfaToken: d, method: 'recovery_code', code: recoveryCodes[0] ?? '' }),
    ]);
    expect(byCode.sort()).toEqual(['fulfilled', 'rejected']);
    // One mfaToken, two right answers.
    const e = await challenge();
    const byToken = await outcomes([
      t.auth.verifyMfa({ mfaToken: e, method: 'recovery_code', code: recoveryCodes[1] ?? '' }),
      t.auth.verifyMfa({ mfaToken: e, method: 'recovery_code', code: recoveryCodes[2] ?? '' }),
    ]);
    expect(byToken.sort()).toEqual(['fulfilled', 'rejected']);
  });

  it('cleans up expired challenges with the one-time tokens', async () => {
    const t = setup();
    await adaWithTotp(t);
    await mfaTokenOf(t.auth.login({ email: ADA, password: PASSWORD }));
    await mfaTokenOf(t.auth.login({ email: ADA, password: PASSWORD }));
    t.clock.advance(301_000);
    expect((await t.auth.cleanup()).oneTimeTokens).toBe(2);
    expect(
      await t.stores.factors.deleteExpiredChallenges({ expiredBefore: t.clock.now(), batchSize: 10 }),
    ).toBe(0);
  });

  it('kills a challenge after 5 wrong answers', async () => {
    const t = setup();
    const { secret } = await adaWithTotp(t);
    const token = await mfaTokenOf(t.auth.login({ email: ADA, password: PASSWORD }));
    for (let i = 0; i < 5; i++) {
      expect(await fieldCodes(t.auth.verifyMfa({ mfaToken: token, method: 'totp', code: '000000' }))).toEqual(
        ['code:incorrect'],
      );
    }
    const right = totpCode(secret, t.clock.now());
    expect(await code(t.auth.verifyMfa({ mfaToken: token, method: 'totp', code: right }))).toBe(
      'invalid_token',
    );
  });

  it('does not count wrong codes against the password throttle, and a stranger cannot lock the owner out', async () => {
    const t = setup({ rateLimit: { account: 2, mfaFailuresPerAccount: 3 } });
    const { secret } = await adaWithTotp(t);
    const attacker = { ipAddress: '198.51.100.7' };
    const home = { ipAddress: '203.0.113.9' };
    const token = await mfaTokenOf(t.auth.login({ email: ADA, password: PASSWORD }, attacker));
    const wrong = () => t.auth.verifyMfa({ mfaToken: token, method: 'totp', code: '000000' }, attacker);
    for (let i = 0; i < 3; i++) expect(await code(wrong())).toBe('validation_failed');
    const refused = await failure(wrong());
    expect(refused.code).toBe('rate_limited');
    expect(refused.rateLimit?.budget).toBe('mfa');
    // The password throttle (2 per account and client) saw none of it: the password still works there.
    expect(await code(t.auth.login({ email: ADA, password: PASSWORD }, attacker))).toBe('mfa_required');
    // The owner, from another network, signs in.
    t.clock.advance(30_000);
    const mine = await mfaTokenOf(t.auth.login({ email: ADA, password: PASSWORD }, home));
    const ok = await t.auth.verifyMfa(
      { mfaToken: mine, method: 'totp', code: totpCode(secret, t.clock.now()) },
      home,
    );
    expect(ok.session.amr).toContain('mfa');
  });
});

describe('recent authentication and factor management (docs/http-api.md, "Recent authentication")', () => {
  it('carries amr from the session row: a refresh of a password session never mints mfa', async () => {
    const t = setup();
    const { ada } = await adaWithTotp(t);
    // The enrolling session was kept, and stays a password session through refreshes.
    const refreshed = await t.auth.refresh(ada.refreshToken);
    expect(refreshed.session.amr).toEqual(['pwd']);
    const claims = await t.auth.verifyAccessToken(refreshed.accessToken);
    expect(claims.amr).toEqual(['pwd']);
    expect(await code(t.auth.requireRecentAuth(claims))).toBe('reauthentication_required');
  });

  it('refuses removing the factor or regenerating codes from a password-only or stale session', async () => {
    const t = setup();
    const { ada, secret } = await adaWithTotp(t);
    expect(await code(t.auth.disableTotp(ada.claims))).toBe('reauthentication_required');
    expect(await code(t.auth.regenerateRecoveryCodes(ada.claims))).toBe('reauthentication_required');
    t.clock.advance(30_000);
    const strong = await t.auth.reauthenticate(ada.claims, {
      password: PASSWORD,
      method: 'totp',
      code: totpCode(secret, t.clock.now()),
    });
    expect(strong.session.id).toBe(ada.session.id);
    expect(strong.session.amr).toEqual(['pwd', 'otp', 'mfa']);
    const fresh = await t.auth.verifyAccessToken(strong.accessToken);
    await t.auth.requireRecentAuth(fresh);
    t.clock.advance(601_000);
    expect(await code(t.auth.regenerateRecoveryCodes(fresh))).toBe('reauthentication_required');
    expect(await code(t.auth.disableTotp(fresh))).toBe('reauthentication_required');
    await t.auth.requireRecentAuth(fresh, { maxAgeSeconds: 3600 });
    // The old refresh token of the reauthenticated session is the previous one now.
    expect(await code(t.auth.refresh(strong.refreshToken))).toBe('ok');
  });

  it('counts a wrong password at reauthentication against the login throttle, wrong codes against the mfa budget', async () => {
    const t = setup({ rateLimit: { account: 2, mfaFailuresPerAccount: 2 } });
    const { ada } = await adaWithTotp(t);
    const ctx = { ipAddress: '203.0.113.9' };
    const reauth = (input: { password: string; method?: 'totp'; code?: string }, c = ctx) =>
      t.auth.reauthenticate(ada.claims, input, c);
    const badPassword = { password: 'wrong', method: 'totp' as const, code: '000000' };
    expect(await fieldCodes(reauth(badPassword))).toEqual(['password:incorrect']);
    expect(await fieldCodes(reauth(badPassword))).toEqual(['password:incorrect']);
    expect((await failure(reauth(badPassword))).rateLimit?.budget).toBe('account');
    const elsewhere = { ipAddress: '198.51.100.1' };
    const badCode = { password: PASSWORD, method: 'totp' as const, code: '000000' };
    expect(await fieldCodes(reauth(badCode, elsewhere))).toEqual(['code:incorrect']);
    expect(await fieldCodes(reauth(badCode, elsewhere))).toEqual(['code:incorrect']);
    expect((await failure(reauth(badCode, elsewhere))).rateLimit?.budget).toBe('mfa');
  });

  it('enrols through the setup mfaToken of a tenant that requires a second factor, and revokes weak sessions when turned on', async () => {
    const t = setup();
    const { ada, secret } = await adaWithTotp(t);
    const bob = await join(t, ada.claims, 'bob@example.com', 'member');
    t.clock.advance(30_000);
    const strong = await t.auth.reauthenticate(ada.claims, {
      password: PASSWORD,
      method: 'totp',
      code: totpCode(secret, t.clock.now()),
    });
    const owner = await t.auth.verifyAccessToken(strong.accessToken);
    expect(await t.auth.getSecurityPolicy(owner)).toEqual({ requireMfa: false });
    expect(await code(t.auth.setSecurityPolicy(bob.claims, { requireMfa: true }))).toBe('forbidden');
    expect(await t.auth.setSecurityPolicy(owner, { requireMfa: true })).toEqual({ requireMfa: true });
    // Bob's password session is gone; Ada's strong one stays.
    expect(await code(t.auth.refresh(bob.refreshToken))).toBe('invalid_token');
    expect(await code(t.auth.refresh(strong.refreshToken))).toBe('ok');
    // Bob logs in: he must enrol, with the setup token only.
    const setupToken = await mfaTokenOf(t.auth.login({ email: 'bob@example.com', password: PASSWORD }));
    expect(await code(t.auth.verifyMfa({ mfaToken: setupToken, method: 'totp', code: '000000' }))).toBe(
      'invalid_token',
    );
    const { secret: bobSecret, otpauthUri } = await t.auth.setupTotp({ mfaToken: setupToken });
    expect(otpauthUri).toMatch(/^otpauth:\/\/totp\/tenant-auth:bob%40example\.com\?secret=/);
    const done = await t.auth.confirmTotp(
      { mfaToken: setupToken },
      { code: totpCode(bobSecret, t.clock.now()) },
    );
    expect(done.recoveryCodes).toHaveLength(10);
    expect(done.tokens?.session.amr).toEqual(['pwd', 'otp', 'mfa']);
    const me = await t.auth.getMe(await t.auth.verifyAccessToken(done.tokens?.accessToken ?? ''));
    expect(me.mfa).toEqual({ totp: true, passkeys: 0, recoveryCodesRemaining: 10 });
    // Bob cannot drop his last factor while the tenant requires one.
    expect(
      await code(t.auth.disableTotp(await t.auth.verifyAccessToken(done.tokens?.accessToken ?? ''))),
    ).toBe('mfa_required_by_tenant');
  });

  it('refuses to require MFA from an owner without a factor (mfa_not_enabled)', async () => {
    const t = setup();
    const ada = await owner(t.auth, ADA);
    expect(await code(t.auth.setSecurityPolicy(ada.claims, { requireMfa: true }))).toBe('mfa_not_enabled');
    expect(await code(t.auth.regenerateRecoveryCodes(ada.claims))).toBe('mfa_not_enabled');
    expect(await code(t.auth.disableTotp(ada.claims))).toBe('not_found');
  });
});

describe('no first-factor path skips the second factor (docs/http-api.md, "Second factor: TOTP and recovery codes")', () => {
  it('invitation acceptance into a tenant that requires MFA creates the user and answers mfa_setup_required', async () => {
    const t = setup();
    const { ada, secret } = await adaWithTotp(t);
    t.clock.advance(30_000);
    const strong = await t.auth.reauthenticate(ada.claims, {
      password: PASSWORD,
      method: 'totp',
      code: totpCode(secret, t.clock.now()),
    });
    const claims = await t.auth.verifyAccessToken(strong.accessToken);
    await t.auth.setSecurityPolicy(claims, { requireMfa: true });
    await verify(t, ADA);
    await t.auth.createInvitation(claims, { email: 'cat@example.com', role: 'member' });
    await t.settle();
    const err = await failure(
      t.auth.acceptInvitation({
        token: t.inbox.token('cat@example.com', '/accept-invitation'),
        password: PASSWORD,
      }),
    );
    expect(err.code).toBe('mfa_setup_required');
    expect(Object.keys(err.extensions ?? {}).sort()).toEqual(['expiresIn', 'mfaToken']);
    const cat = await t.stores.users.findByEmail('cat@example.com');
    expect(cat).not.toBeNull();
    expect(
      await t.stores.sessions.listActiveForUser(cat?.tenantId ?? '', cat?.id ?? '', t.clock.now()),
    ).toEqual([]);
  });

  it('a password reset signs nobody in, and the next login still needs the second factor', async () => {
    const t = setup();
    await adaWithTotp(t);
    await t.auth.forgotPassword({ email: ADA });
    await t.settle();
    const answer = await t.auth.resetPassword({
      token: t.inbox.token(ADA, '/reset-password'),
      password: `${PASSWORD}-new`,
    });
    expect(answer).toBeUndefined();
    expect(await code(t.auth.login({ email: ADA, password: `${PASSWORD}-new` }))).toBe('mfa_required');
  });

  it('keeps every TOTP secret, code and mfaToken out of events, logs and error messages', async () => {
    const lines: string[] = [];
    const logger = {
      error: (...a: unknown[]) => lines.push(JSON.stringify(a)),
      warn: (...a: unknown[]) => lines.push(JSON.stringify(a)),
      info: (...a: unknown[]) => lines.push(JSON.stringify(a)),
    };
    const t = setup({ logger });
    const { secret, recoveryCodes } = await adaWithTotp(t);
    const token = await mfaTokenOf(t.auth.login({ email: ADA, password: PASSWORD }));
    const wrongCode = totpCode(secret, new Date(t.clock.now().getTime() + 3_600_000));
    const errors = [
      await failure(t.auth.verifyMfa({ mfaToken: token, method: 'totp', code: wrongCode })),
      await failure(t.auth.verifyMfa({ mfaToken: token, method: 'recovery_code', code: 'zzzzz-zzzzz' })),
    ];
    await t.auth.verifyMfa({ mfaToken: token, method: 'recovery_code', code: recoveryCodes[3] ?? '' });
    const sealed = await t.stores.factors.findTotp(
      (await t.stores.users.findByEmail(ADA))?.tenantId ?? '',
      (await t.stores.users.findByEmail(ADA))?.id ?? '',
    );
    const seen = JSON.stringify([
      t.events,
      lines,
      errors.map((e) => [e.message, e.errors, e.extensions]),
      sealed,
    ]);
    for (const secretThing of [
      secret,
      wrongCode,
      token,
      ...recoveryCodes,
      ...recoveryCodes.map((c) => c.replace('-', '')),
    ]) {
      expect(seen).not.toContain(secretThing);
    }
  });
});

describe('data keys (docs/http-api.md, "Second factor: TOTP and recovery codes": the secret stored encrypted)', () => {
  it('seals TOTP secrets under the current key, and opens them after a rotation that keeps the old one', async () => {
    const k1 = { id: 'k1', key: new Uint8Array(32).fill(1) };
    const k2 = { id: 'k2', key: new Uint8Array(32).fill(2) };
    const t = setup({ dataKeys: { current: k1 } });
    const { ada, secret } = await adaWithTotp(t);
    const stored = await t.stores.factors.findTotp(ada.tenant.id, ada.user.id);
    expect(stored?.sealedSecret.split('.').slice(0, 2)).toEqual(['v1', 'k1']);
    const rotated = setup({ stores: t.stores, clock: t.clock, dataKeys: { current: k2, previous: [k1] } });
    t.clock.advance(30_000);
    const token = await mfaTokenOf(rotated.auth.login({ email: ADA, password: PASSWORD }));
    const ok = await rotated.auth.verifyMfa({
      mfaToken: token,
      method: 'totp',
      code: totpCode(secret, t.clock.now()),
    });
    expect(ok.session.amr).toContain('mfa');
    // Without the old key the secret does not open: it fails closed.
    const lost = setup({ stores: t.stores, clock: t.clock, dataKeys: { current: k2 } });
    t.clock.advance(30_000);
    const again = await mfaTokenOf(lost.auth.login({ email: ADA, password: PASSWORD }));
    expect(
      await code(
        lost.auth.verifyMfa({ mfaToken: again, method: 'totp', code: totpCode(secret, t.clock.now()) }),
      ),
    ).toBe('internal_error');
  });
});
