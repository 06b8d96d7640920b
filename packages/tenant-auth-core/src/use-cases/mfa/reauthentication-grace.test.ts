import { describe, expect, it } from 'vitest';
import { code, enrolTotp, owner, PASSWORD, setup, totpCode } from '../../testing/test-helpers.js';

describe('re-authentication opens no reuse grace (docs/http-api.md, "Rules that change in 1.3")', () => {
  it('does not hand the previous refresh token the re-authenticated session, however soon it comes back', async () => {
    const t = setup({ refreshReuseGraceSeconds: 10 });
    const ada = await owner(t.auth, 'ada@example.com');
    const { secret } = await enrolTotp(t.auth, ada.claims, () => t.clock.now());
    t.clock.advance(30_000);
    const strong = await t.auth.reauthenticate(ada.claims, {
      password: PASSWORD,
      method: 'totp',
      code: totpCode(secret, t.clock.now()),
    });
    expect(strong.session.amr).toContain('mfa');
    t.clock.advance(1000);
    // The password session's token, within what would be the grace: no upgraded child for it.
    expect(await code(t.auth.refresh(ada.refreshToken))).toBe('invalid_token');
  });

  it('keeps the grace of an ordinary refresh', async () => {
    const t = setup({ refreshReuseGraceSeconds: 10 });
    const ada = await owner(t.auth, 'ada@example.com');
    await t.auth.refresh(ada.refreshToken);
    t.clock.advance(1000);
    expect(await code(t.auth.refresh(ada.refreshToken))).toBe('ok');
  });
});
