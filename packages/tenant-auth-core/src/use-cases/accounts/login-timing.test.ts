import bcrypt from 'bcrypt';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { code, owner, PASSWORD, setup, ssoSignIn, ssoTenant } from '../../testing/test-helpers.js';

afterEach(() => vi.restoreAllMocks());

describe('login costs one bcrypt compare whoever the email names (docs/http-api.md, "Rules that change in 1.3")', () => {
  it('compares against the dummy hash for an SSO-provisioned user (no password), as for an unknown email', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@acme.test');
    await ssoTenant(t, ada.claims, 'acme.test');
    t.idp.signsIn('sub-1', 'bob@acme.test', ['pwd']);
    expect(await ssoSignIn(t, 'bob@acme.test')).toMatchObject({ ok: true });
    await t.auth.login({ email: 'nobody@acme.test', password: PASSWORD }).catch(() => undefined);
    const compare = vi.spyOn(bcrypt, 'compare');
    for (const email of ['bob@acme.test', 'nobody@acme.test', 'ada@acme.test']) {
      compare.mockClear();
      const password = email === 'ada@acme.test' ? 'Not-Her-Password-7' : PASSWORD;
      expect(await code(t.auth.login({ email, password }))).toBe('invalid_credentials');
      expect(compare, email).toHaveBeenCalledTimes(1);
    }
  });
});
