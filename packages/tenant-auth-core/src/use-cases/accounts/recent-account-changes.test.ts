import { describe, expect, it } from 'vitest';
import { code, enrolTotp, owner, PASSWORD, setup, totpCode } from '../../testing/test-helpers.js';
import type { AccessClaims } from '../../vocabulary/claims.js';

const NEW_PASSWORD = 'Quiet-Orchard-Compass-91';

/** The three account changes of docs/http-api.md, "Rules that change in 1.3", for `claims`. */
const changes = (t: ReturnType<typeof setup>, claims: AccessClaims) => ({
  changePassword: () =>
    t.auth.changePassword(claims, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }),
  changeEmail: () => t.auth.changeEmail(claims, { newEmail: 'ada.new@example.com', password: PASSWORD }),
  deleteAccount: () => t.auth.deleteAccount(claims, { password: PASSWORD }),
});

describe('account changes need a recent authentication (docs/http-api.md, "Rules that change in 1.3")', () => {
  it('refuses a password change, an email change and deletion from a session older than the maximum age', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    t.clock.advance(601_000);
    for (const change of Object.values(changes(t, ada.claims)))
      expect(await code(change())).toBe('reauthentication_required');
    // Re-authenticating makes them possible again.
    const fresh = await t.auth.reauthenticate(ada.claims, { password: PASSWORD });
    const claims = await t.auth.verifyAccessToken(fresh.accessToken);
    expect(await code(changes(t, claims).changeEmail())).toBe('ok');
    expect(await code(changes(t, claims).changePassword())).toBe('ok');
  });

  it('refuses them to a password-only session of a user who has a factor, and takes them from a two-factor one', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    const { secret } = await enrolTotp(t.auth, ada.claims, () => t.clock.now());
    for (const change of Object.values(changes(t, ada.claims)))
      expect(await code(change())).toBe('reauthentication_required');
    t.clock.advance(30_000);
    const strong = await t.auth.reauthenticate(ada.claims, {
      password: PASSWORD,
      method: 'totp',
      code: totpCode(secret, t.clock.now()),
    });
    const claims = await t.auth.verifyAccessToken(strong.accessToken);
    expect(await code(changes(t, claims).deleteAccount())).toBe('ok');
  });
});
