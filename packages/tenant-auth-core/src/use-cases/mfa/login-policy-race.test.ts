import { describe, expect, it } from 'vitest';
import { enrolTotp, join, owner, PASSWORD, setup, totpCode } from '../../testing/test-helpers.js';
import { isTenantAuthError } from '../../vocabulary/errors.js';

describe('a password login racing the switch of requireMfa', () => {
  it('creates no password-only session once the policy is on: the login answers mfa_setup_required', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    const bob = await join(t, ada.claims, 'bob@example.com', 'member');
    const { secret } = await enrolTotp(t.auth, ada.claims, () => t.clock.now());
    t.clock.advance(30_000);
    const strong = await t.auth.reauthenticate(ada.claims, {
      password: PASSWORD,
      method: 'totp',
      code: totpCode(secret, t.clock.now()),
    });
    const adaClaims = await t.auth.verifyAccessToken(strong.accessToken);
    // The owner turns the policy on while Bob's login is past the second-factor check (which read the
    // tenant before the switch) and before its session is created.
    const findById = t.stores.tenants.findById.bind(t.stores.tenants);
    let switchPolicy = true;
    t.stores.tenants.findById = async (id: string) => {
      const tenant = await findById(id);
      if (switchPolicy) {
        switchPolicy = false;
        await t.auth.setSecurityPolicy(adaClaims, { requireMfa: true });
      }
      return tenant;
    };
    const outcome = await t.auth.login({ email: 'bob@example.com', password: PASSWORD }).then(
      () => 'signed in',
      (err: unknown) => (isTenantAuthError(err) ? err.code : String(err)),
    );
    expect(switchPolicy).toBe(false);
    expect(outcome).toBe('mfa_setup_required');
    expect(await t.stores.sessions.listActiveForUser(bob.user.tenantId, bob.user.id, t.clock.now())).toEqual(
      [],
    );
  });
});
