import { describe, expect, it } from 'vitest';
import { code, failure, fieldCodes, join, owner, PASSWORD, setup } from '../../testing/test-helpers.js';

const NEW_PASSWORD = 'Quiet-Orchard-Compass-91';

describe('forgot and reset password', () => {
  it('answers an unknown address exactly like a known one, and mails only the known one', async () => {
    const t = setup();
    await owner(t.auth, 'ada@example.com');
    await t.settle();
    t.inbox.messages.length = 0;
    await expect(t.auth.forgotPassword({ email: 'ada@example.com' })).resolves.toBeUndefined();
    await expect(t.auth.forgotPassword({ email: 'nobody@example.com' })).resolves.toBeUndefined();
    await t.settle();
    expect(t.inbox.messages.map((m) => m.to)).toEqual(['ada@example.com']);
    expect(t.inbox.messages[0]?.text).toContain('https://app.acme.test/reset-password?token=');
    expect(t.events.filter((e) => e.type === 'password_reset_requested')).toHaveLength(1);
  });

  it('refuses only a malformed address, and says unavailable without mail', async () => {
    const t = setup();
    expect(await fieldCodes(t.auth.forgotPassword({ email: 'not an email' }))).toEqual([
      'email:invalid_email',
    ]);
    const noMail = setup({ mail: undefined });
    expect(await code(noMail.auth.forgotPassword({ email: 'ada@example.com' }))).toBe('unavailable');
  });

  it('sets the new password, revokes every session, marks the email verified', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    const other = await t.auth.login({ email: 'ada@example.com', password: PASSWORD });
    await t.auth.forgotPassword({ email: 'ada@example.com' });
    await t.settle();
    const token = t.inbox.token('ada@example.com', '/reset-password');
    await t.auth.resetPassword({ token, password: NEW_PASSWORD });
    expect(await code(t.auth.refresh(ada.refreshToken))).toBe('invalid_token');
    expect(await code(t.auth.refresh(other.refreshToken))).toBe('invalid_token');
    expect(await code(t.auth.login({ email: 'ada@example.com', password: PASSWORD }))).toBe(
      'invalid_credentials',
    );
    const again = await t.auth.login({ email: 'ada@example.com', password: NEW_PASSWORD });
    expect(again.user.emailVerified).toBe(true);
    expect(await fieldCodes(t.auth.resetPassword({ token, password: 'Another-Orchard-Compass-3' }))).toEqual([
      'token:invalid_or_expired',
    ]);
  });

  it('keeps the old password and the link working when the new password is refused', async () => {
    const t = setup();
    await owner(t.auth, 'ada@example.com');
    await t.auth.forgotPassword({ email: 'ada@example.com' });
    await t.settle();
    const token = t.inbox.token('ada@example.com', '/reset-password');
    expect(await fieldCodes(t.auth.resetPassword({ token, password: 'password' }))).toContain(
      'password:too_short',
    );
    expect(await code(t.auth.login({ email: 'ada@example.com', password: PASSWORD }))).toBe('ok');
    expect(await code(t.auth.resetPassword({ token, password: NEW_PASSWORD }))).toBe('ok');
  });

  it('expires a link after 30 minutes, and replaces it with a newer one', async () => {
    const t = setup();
    await owner(t.auth, 'ada@example.com');
    await t.auth.forgotPassword({ email: 'ada@example.com' });
    await t.settle();
    const first = t.inbox.token('ada@example.com', '/reset-password');
    await t.auth.forgotPassword({ email: 'ada@example.com' });
    await t.settle();
    const second = t.inbox.token('ada@example.com', '/reset-password');
    expect(await fieldCodes(t.auth.resetPassword({ token: first, password: NEW_PASSWORD }))).toEqual([
      'token:invalid_or_expired',
    ]);
    t.clock.advance(30 * 60_000);
    expect(await fieldCodes(t.auth.resetPassword({ token: second, password: NEW_PASSWORD }))).toEqual([
      'token:invalid_or_expired',
    ]);
  });

  it('lets exactly one of several concurrent uses of one link succeed', async () => {
    const t = setup();
    await owner(t.auth, 'ada@example.com');
    await t.auth.forgotPassword({ email: 'ada@example.com' });
    await t.settle();
    const token = t.inbox.token('ada@example.com', '/reset-password');
    const results = await Promise.all(
      ['A', 'B', 'C', 'D'].map((x) => code(t.auth.resetPassword({ token, password: `${NEW_PASSWORD}${x}` }))),
    );
    expect(results.filter((r) => r === 'ok')).toHaveLength(1);
  });

  it('refuses tokens that are not ours before any lookup', async () => {
    const t = setup();
    for (const token of ['', 'short', 'x'.repeat(43).replace(/x/, '!'), 42, null]) {
      expect(await fieldCodes(t.auth.resetPassword({ token, password: NEW_PASSWORD } as never))).toEqual([
        'token:invalid_or_expired',
      ]);
    }
  });

  it('sends at most five emails an hour to one address from one network, answering as usual', async () => {
    const t = setup({ rateLimit: {} });
    const from = { ipAddress: '198.51.100.7' };
    await t.auth.register({ email: 'ada@example.com', password: PASSWORD }, from);
    await t.settle();
    // The verification email of the registration was the first of the five.
    for (let i = 0; i < 8; i++) await t.auth.forgotPassword({ email: 'ada@example.com' }, from);
    await t.settle();
    expect(t.inbox.to('ada@example.com')).toHaveLength(5);
  });

  it("does not let one network use up the address owner's emails, and caps all networks at four times", async () => {
    const t = setup({ rateLimit: {} });
    await owner(t.auth, 'ada@example.com');
    await t.settle();
    const sent = () => t.inbox.to('ada@example.com').length;
    for (let i = 0; i < 8; i++)
      await t.auth.forgotPassword({ email: 'ada@example.com' }, { ipAddress: '203.0.113.9' });
    await t.settle();
    const fromAttacker = sent();
    await t.auth.forgotPassword({ email: 'ada@example.com' }, { ipAddress: '198.51.100.20' });
    await t.settle();
    expect(sent()).toBe(fromAttacker + 1);
    // Many networks together: at most 20 an hour.
    for (let n = 0; n < 10; n++) {
      for (let i = 0; i < 5; i++)
        await t.auth.forgotPassword({ email: 'ada@example.com' }, { ipAddress: `192.0.${n}.1` });
    }
    await t.settle();
    expect(sent()).toBe(20);
  });
});

describe('a pending email change, once its asker is out', () => {
  it('dies with a password reset, a password change, and the logout of the session that asked', async () => {
    for (const cut of ['reset', 'change', 'logout', 'all sessions'] as const) {
      const t = setup();
      const ada = await owner(t.auth, 'ada@example.com');
      await t.auth.changeEmail(ada.claims, { newEmail: 'mallory@evil.example', password: PASSWORD });
      await t.settle();
      const confirm = t.inbox.token('mallory@evil.example', '/confirm-email-change');
      if (cut === 'reset') {
        await t.auth.forgotPassword({ email: 'ada@example.com' });
        await t.settle();
        await t.auth.resetPassword({
          token: t.inbox.token('ada@example.com', '/reset-password'),
          password: NEW_PASSWORD,
        });
      } else if (cut === 'change') {
        const other = await t.auth.login({ email: 'ada@example.com', password: PASSWORD });
        await t.auth.changePassword(await t.auth.verifyAccessToken(other.accessToken), {
          currentPassword: PASSWORD,
          newPassword: NEW_PASSWORD,
        });
      } else if (cut === 'logout') {
        await t.auth.logout(ada.refreshToken);
      } else {
        await t.auth.revokeAllSessions(ada.claims);
      }
      expect(await fieldCodes(t.auth.confirmEmailChange({ token: confirm })), cut).toEqual([
        'token:invalid_or_expired',
      ]);
      expect((await t.stores.users.findByEmail('ada@example.com'))?.email, cut).toBe('ada@example.com');
    }
  });
});

describe('change password', () => {
  it('keeps the current session, revokes every other, and kills a pending reset link', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    const other = await t.auth.login({ email: 'ada@example.com', password: PASSWORD });
    await t.auth.forgotPassword({ email: 'ada@example.com' });
    await t.settle();
    const reset = t.inbox.token('ada@example.com', '/reset-password');
    await t.auth.changePassword(ada.claims, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    expect(await code(t.auth.refresh(ada.refreshToken))).toBe('ok');
    expect(await code(t.auth.refresh(other.refreshToken))).toBe('invalid_token');
    expect(await code(t.auth.login({ email: 'ada@example.com', password: NEW_PASSWORD }))).toBe('ok');
    expect(
      await fieldCodes(t.auth.resetPassword({ token: reset, password: 'Other-Orchard-Compass-5' })),
    ).toEqual(['token:invalid_or_expired']);
    expect(t.events.find((e) => e.type === 'password_changed')).toMatchObject({
      actorId: ada.user.id,
      sessionId: ada.session.id,
    });
  });

  it('refuses a wrong current password with incorrect, and counts it towards the login throttle', async () => {
    const t = setup({ rateLimit: { account: 3 } });
    const ada = await owner(t.auth, 'ada@example.com');
    for (let i = 0; i < 3; i++) {
      expect(
        await fieldCodes(
          t.auth.changePassword(ada.claims, { currentPassword: 'wrong', newPassword: NEW_PASSWORD }),
        ),
      ).toEqual(['currentPassword:incorrect']);
    }
    const throttled = await failure(
      t.auth.changePassword(ada.claims, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }),
    );
    expect(throttled.code).toBe('rate_limited');
    expect(throttled.rateLimit?.budget).toBe('account');
    expect(await code(t.auth.login({ email: 'ada@example.com', password: PASSWORD }))).toBe('rate_limited');
  });

  it('applies the password rules to the new password, under newPassword', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    expect(
      await fieldCodes(
        t.auth.changePassword(ada.claims, { currentPassword: PASSWORD, newPassword: 'short' }),
      ),
    ).toContain('newPassword:too_short');
    expect(
      await fieldCodes(t.auth.changePassword(ada.claims, { currentPassword: PASSWORD } as never)),
    ).toEqual(['newPassword:required']);
  });
});

describe('email verification', () => {
  it('sends a link on registration that marks the address verified, once', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    await t.settle();
    const token = t.inbox.token('ada@example.com', '/verify-email');
    await t.auth.verifyEmail({ token });
    expect((await t.auth.authorize(ada.claims, 'member')).emailVerified).toBe(true);
    expect(await fieldCodes(t.auth.verifyEmail({ token }))).toEqual(['token:invalid_or_expired']);
    expect(t.events.filter((e) => e.type === 'email_verified')).toHaveLength(1);
    // Refreshed tokens carry it.
    const refreshed = await t.auth.refresh(ada.refreshToken);
    expect(refreshed.user.emailVerified).toBe(true);
  });

  it('sends a new link on request, and nothing once verified', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    await t.settle();
    const first = t.inbox.token('ada@example.com', '/verify-email');
    await t.auth.requestEmailVerification(ada.claims);
    await t.settle();
    const second = t.inbox.token('ada@example.com', '/verify-email');
    expect(second).not.toBe(first);
    expect(await fieldCodes(t.auth.verifyEmail({ token: first }))).toEqual(['token:invalid_or_expired']);
    await t.auth.verifyEmail({ token: second });
    const count = t.inbox.messages.length;
    await t.auth.requestEmailVerification(ada.claims);
    await t.settle();
    expect(t.inbox.messages).toHaveLength(count);
  });

  it('expires a link after 24 hours', async () => {
    const t = setup();
    await owner(t.auth, 'ada@example.com');
    await t.settle();
    t.clock.advance(24 * 3600_000);
    const token = t.inbox.token('ada@example.com', '/verify-email');
    expect(await fieldCodes(t.auth.verifyEmail({ token }))).toEqual(['token:invalid_or_expired']);
  });

  it('registers without a verification email when no mail is configured', async () => {
    const t = setup({ mail: undefined });
    const ada = await owner(t.auth, 'ada@example.com');
    expect(ada.user.emailVerified).toBe(false);
    expect(await t.auth.outboxCounts()).toEqual({ pending: 0, dead: 0, oldestPendingAt: null });
  });
});

describe('change email', () => {
  it('sends a confirmation to the new address and a notice to the old; confirming swaps and keeps only the asking session', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    const other = await t.auth.login({ email: 'ada@example.com', password: PASSWORD });
    await t.settle();
    await t.auth.changeEmail(ada.claims, { newEmail: 'Ada@New.example', password: PASSWORD });
    await t.settle();
    expect(t.inbox.to('ada@example.com').at(-1)?.text).toContain('ada@new.example');
    const token = t.inbox.token('ada@new.example', '/confirm-email-change');
    // Nothing changes before the confirmation.
    expect(await code(t.auth.login({ email: 'ada@example.com', password: PASSWORD }))).toBe('ok');
    await t.auth.confirmEmailChange({ token });
    expect(await code(t.auth.login({ email: 'ada@example.com', password: PASSWORD }))).toBe(
      'invalid_credentials',
    );
    const after = await t.auth.login({ email: 'ada@new.example', password: PASSWORD });
    expect(after.user).toMatchObject({ email: 'ada@new.example', emailVerified: true });
    expect(await code(t.auth.refresh(ada.refreshToken))).toBe('ok');
    expect(await code(t.auth.refresh(other.refreshToken))).toBe('invalid_token');
    expect(await fieldCodes(t.auth.confirmEmailChange({ token }))).toEqual(['token:invalid_or_expired']);
    // A verification link sent to the old address proves nothing now.
    expect(
      await fieldCodes(t.auth.verifyEmail({ token: t.inbox.token('ada@example.com', '/verify-email') })),
    ).toEqual(['token:invalid_or_expired']);
  });

  it('needs the password, and refuses a taken or malformed address', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    await owner(t.auth, 'eve@example.com');
    expect(
      await fieldCodes(t.auth.changeEmail(ada.claims, { newEmail: 'a@new.example', password: 'nope' })),
    ).toEqual(['password:incorrect']);
    expect(
      await fieldCodes(t.auth.changeEmail(ada.claims, { newEmail: 'eve@example.com', password: PASSWORD })),
    ).toEqual(['newEmail:email_taken']);
    expect(
      await fieldCodes(t.auth.changeEmail(ada.claims, { newEmail: 'nope', password: PASSWORD })),
    ).toEqual(['newEmail:invalid_email']);
  });

  it('leaves the old address in place when the new one was taken meanwhile', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    await t.auth.changeEmail(ada.claims, { newEmail: 'wanted@example.com', password: PASSWORD });
    await t.settle();
    const token = t.inbox.token('wanted@example.com', '/confirm-email-change');
    await owner(t.auth, 'wanted@example.com');
    expect(await fieldCodes(t.auth.confirmEmailChange({ token }))).toEqual(['token:email_taken']);
    expect(await code(t.auth.login({ email: 'ada@example.com', password: PASSWORD }))).toBe('ok');
  });

  it('expires a link after an hour', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    await t.auth.changeEmail(ada.claims, { newEmail: 'a@new.example', password: PASSWORD });
    await t.settle();
    t.clock.advance(3600_000);
    const token = t.inbox.token('a@new.example', '/confirm-email-change');
    expect(await fieldCodes(t.auth.confirmEmailChange({ token }))).toEqual(['token:invalid_or_expired']);
  });
});

describe('delete account', () => {
  it('deletes the only member with its tenant', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    await t.auth.deleteAccount(ada.claims, { password: PASSWORD });
    expect(await code(t.auth.login({ email: 'ada@example.com', password: PASSWORD }))).toBe(
      'invalid_credentials',
    );
    expect(await t.stores.tenants.findById(ada.tenant.id)).toBeNull();
    expect(t.events.find((e) => e.type === 'account_deleted')).toMatchObject({ subjectId: ada.user.id });
    // The address is free again.
    expect(await code(t.auth.register({ email: 'ada@example.com', password: PASSWORD }))).toBe('ok');
  });

  it('refuses the last owner while others remain, and lets a member leave', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    const bob = await join(t, ada.claims, 'bob@example.com', 'member');
    expect(await code(t.auth.deleteAccount(ada.claims, { password: PASSWORD }))).toBe('last_owner');
    await t.auth.deleteAccount(bob.claims, { password: PASSWORD });
    expect(await code(t.auth.refresh(bob.refreshToken))).toBe('invalid_token');
    expect((await t.auth.listMembers(ada.claims)).map((m) => m.email)).toEqual(['ada@example.com']);
    expect(await t.stores.tenants.findById(ada.tenant.id)).not.toBeNull();
    await t.auth.deleteAccount(ada.claims, { password: PASSWORD });
    expect(await t.stores.tenants.findById(ada.tenant.id)).toBeNull();
  });

  it('needs the password', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    expect(await fieldCodes(t.auth.deleteAccount(ada.claims, { password: 'nope' }))).toEqual([
      'password:incorrect',
    ]);
    expect(await fieldCodes(t.auth.deleteAccount(ada.claims, {} as never))).toEqual(['password:required']);
    expect(await code(t.auth.refresh(ada.refreshToken))).toBe('ok');
  });
});
