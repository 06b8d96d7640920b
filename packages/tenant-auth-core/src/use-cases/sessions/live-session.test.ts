import { describe, expect, it } from 'vitest';
import { createMemoryStores } from '../../memory/memory-stores.js';
import { code, join, owner, PASSWORD, setup, verify } from '../../testing/test-helpers.js';

const NEW_PASSWORD = 'Quiet-Orchard-Compass-91';

/** Every administration and account change, done with `claims`: the code each one answered. */
async function changes(
  t: ReturnType<typeof setup>,
  claims: Parameters<typeof t.auth.listSessions>[0],
  other: string,
) {
  return {
    createInvitation: await code(
      t.auth.createInvitation(claims, { email: 'mallory@example.com', role: 'owner' }),
    ),
    listInvitations: await code(t.auth.listInvitations(claims)),
    revokeInvitation: await code(t.auth.revokeInvitation(claims, '01900000-0000-7000-8000-000000000000')),
    changeMemberRole: await code(t.auth.changeMemberRole(claims, other, 'admin')),
    removeMember: await code(t.auth.removeMember(claims, other)),
    listAuditEvents: await code(t.auth.listAuditEvents(claims)),
    authorizeAdmin: await code(t.auth.authorize(claims, 'admin')),
    changePassword: await code(
      t.auth.changePassword(claims, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }),
    ),
    changeEmail: await code(t.auth.changeEmail(claims, { newEmail: 'ada@new.example', password: PASSWORD })),
    revokeSession: await code(t.auth.revokeSession(claims, claims.sessionId)),
    revokeAllSessions: await code(t.auth.revokeAllSessions(claims)),
    deleteAccount: await code(t.auth.deleteAccount(claims, { password: PASSWORD })),
  };
}

const ALL_REFUSED = {
  createInvitation: 'invalid_token',
  listInvitations: 'invalid_token',
  revokeInvitation: 'invalid_token',
  changeMemberRole: 'invalid_token',
  removeMember: 'invalid_token',
  listAuditEvents: 'invalid_token',
  authorizeAdmin: 'invalid_token',
  changePassword: 'invalid_token',
  changeEmail: 'invalid_token',
  revokeSession: 'invalid_token',
  revokeAllSessions: 'invalid_token',
  deleteAccount: 'invalid_token',
};

describe('a revoked session administers nothing and changes no account (docs/http-api.md, "Rules that change in 1.2 (closing holes found in 1.1)")', () => {
  it('after "sign out everywhere", the old access token cannot invite an owner or read the audit log', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    await verify(t, 'ada@example.com');
    const bob = await join(t, ada.claims, 'bob@example.com', 'member');
    const laptop = await t.auth.login({ email: 'ada@example.com', password: PASSWORD });
    const laptopClaims = await t.auth.verifyAccessToken(laptop.accessToken);
    await t.auth.revokeAllSessions(laptopClaims);

    // The exact scenario of the review: the stolen token of the first session asks for an owner.
    expect(
      await code(t.auth.createInvitation(ada.claims, { email: 'mallory@example.com', role: 'owner' })),
    ).toBe('invalid_token');
    expect(await changes(t, ada.claims, bob.user.id)).toEqual(ALL_REFUSED);
    // Nothing was done on the way.
    expect(await t.stores.users.findByEmail('ada@example.com')).not.toBeNull();
    expect((await t.stores.users.findById(bob.user.tenantId, bob.user.id))?.role).toBe('member');
    // Plain reads keep the 1.0 rule: a valid token is good until it expires.
    expect(await code(t.auth.listMembers(ada.claims))).toBe('ok');
    expect(await code(t.auth.getMyTenant(ada.claims))).toBe('ok');
    expect(await code(t.auth.authorize(ada.claims, 'member'))).toBe('ok');
  });

  it('after a password reset, and after a logout, the old access token is refused at once', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    await verify(t, 'ada@example.com');
    const bob = await join(t, ada.claims, 'bob@example.com', 'member');
    await t.auth.forgotPassword({ email: 'ada@example.com' });
    await t.settle();
    await t.auth.resetPassword({
      token: t.inbox.token('ada@example.com', '/reset-password'),
      password: NEW_PASSWORD,
    });
    expect(await changes(t, ada.claims, bob.user.id)).toEqual(ALL_REFUSED);

    await t.auth.logout(bob.accessToken);
    expect(
      await code(t.auth.changePassword(bob.claims, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD })),
    ).toBe('invalid_token');
  });

  it('lets a live session do all of it', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    await verify(t, 'ada@example.com');
    await join(t, ada.claims, 'bob@example.com', 'member');
    expect(await code(t.auth.createInvitation(ada.claims, { email: 'cat@example.com', role: 'owner' }))).toBe(
      'ok',
    );
    expect(await code(t.auth.listAuditEvents(ada.claims))).toBe('ok');
    expect(await code(t.auth.authorize(ada.claims, 'owner'))).toBe('ok');
  });

  it('does not send a verification email for a revoked session', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    await t.settle();
    t.inbox.messages.length = 0;
    await t.auth.revokeAllSessions(ada.claims);
    expect(await code(t.auth.requestEmailVerification(ada.claims))).toBe('invalid_token');
    await t.settle();
    expect(t.inbox.messages).toEqual([]);
  });

  it('refuses an invitation when "sign out everywhere" committed between its checks and its write', async () => {
    const real = createMemoryStores();
    let meanwhile: (() => Promise<unknown>) | undefined;
    // The address lookup runs after the first session check and before the invitation's transaction.
    const users = new Proxy(real.users, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver);
        if (typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          if (key === 'findByEmail' && meanwhile) {
            const run = meanwhile;
            meanwhile = undefined;
            await run();
          }
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const t = setup({ stores: { ...real, users } });
    const ada = await owner(t.auth, 'ada@example.com');
    await verify(t, 'ada@example.com');
    meanwhile = () => t.auth.revokeAllSessions(ada.claims);
    expect(
      await code(t.auth.createInvitation(ada.claims, { email: 'mallory@example.com', role: 'owner' })),
    ).toBe('invalid_token');
    expect(meanwhile).toBeUndefined();
    expect(await real.oneTimeTokens.listPending(ada.claims.tenantId, 'invitation', t.clock.now())).toEqual(
      [],
    );
  });
});
