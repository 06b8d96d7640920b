import { describe, expect, it } from 'vitest';
import { code, fieldCodes, owner, PASSWORD, setup, verify } from '../../testing/test-helpers.js';
import { createPasswordHasher } from './hasher.js';
import { createPasswordPolicy } from './policy.js';

/** Strong passwords but for one control character each (RFC 8265 OpaqueString: no Cc). */
const WITH_CONTROL = ['Harbour\u0000Lantern-42', 'Harbour\u0007Lantern-42', 'Harbour-Lantern-42\u007f'];

describe('control characters in a new password (RFC 8265)', () => {
  it('are refused by the policy with invalid_value, whatever else it checks', () => {
    const policy = createPasswordPolicy({ minCharacterClasses: 0, commonPasswords: false });
    for (const password of WITH_CONTROL) {
      expect(
        policy.check(password).map((e) => `${e.field}:${e.code}`),
        JSON.stringify(password),
      ).toEqual(['password:invalid_value']);
    }
    // Other characters outside ASCII are fine: a space, an emoji, a letter with an accent.
    expect(policy.check('Harbour Lantern-42 \u{1f511} é')).toEqual([]);
  });

  it('are refused at registration, reset, change and invitation acceptance with 400 validation_failed', async () => {
    const t = setup();
    const [nul, bel] = WITH_CONTROL as [string, string];
    expect(await fieldCodes(t.auth.register({ email: 'zed@example.com', password: nul }))).toEqual([
      'password:invalid_value',
    ]);
    const ada = await owner(t.auth, 'ada@example.com');
    await verify(t, 'ada@example.com');
    expect(
      await fieldCodes(t.auth.changePassword(ada.claims, { currentPassword: PASSWORD, newPassword: bel })),
    ).toEqual(['newPassword:invalid_value']);
    await t.auth.forgotPassword({ email: 'ada@example.com' });
    await t.settle();
    const reset = t.inbox.token('ada@example.com', '/reset-password');
    expect(await fieldCodes(t.auth.resetPassword({ token: reset, password: nul }))).toEqual([
      'password:invalid_value',
    ]);
    await t.auth.createInvitation(ada.claims, { email: 'grace@example.com', role: 'member' });
    await t.settle();
    const invitation = t.inbox.token('grace@example.com', '/accept-invitation');
    expect(await fieldCodes(t.auth.acceptInvitation({ token: invitation, password: bel }))).toEqual([
      'password:invalid_value',
    ]);
    // Nothing changed: the old password still works, the links still work.
    expect(await code(t.auth.login({ email: 'ada@example.com', password: PASSWORD }))).toBe('ok');
    expect(await code(t.auth.resetPassword({ token: reset, password: 'Quiet-Orchard-Compass-91' }))).toBe(
      'ok',
    );
    expect(await code(t.auth.acceptInvitation({ token: invitation, password: PASSWORD }))).toBe('ok');
  });

  it('make a login simply fail (401), and leave an existing hash of such a password working', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    expect(await code(t.auth.login({ email: 'ada@example.com', password: `${PASSWORD}\u0000` }))).toBe(
      'invalid_credentials',
    );
    // A password set before 1.2 with a control character: its hash is untouched, it still signs in.
    const old = 'Harbour\u0007Lantern-42';
    const hash = await createPasswordHasher({ cost: 4 }).hash(old);
    await t.stores.users.setPasswordHash(ada.user.tenantId, ada.user.id, hash);
    expect(await code(t.auth.login({ email: 'ada@example.com', password: old }))).toBe('ok');
  });
});
