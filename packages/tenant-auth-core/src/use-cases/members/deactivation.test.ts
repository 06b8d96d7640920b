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

// Deactivation (docs/http-api.md, "Errors added in 1.3"): an admin's `active: false` ends the account's
// sessions, refresh tokens and the API keys it created in one transaction, and every sign-in refuses it.

const ORIGIN = 'https://app.test';

async function tenantWithMember(
  options: Parameters<typeof setup>[0] = {},
  stores?: ReturnType<typeof storesWithout>,
) {
  const made = setup(stores ? { ...options, stores: stores.bundle } : options);
  // The helpers read the stores the server writes: the full set under a 1.2 bundle.
  const t = stores ? { ...made, stores: stores.full } : made;
  const ada = await owner(t.auth, 'ada@example.com');
  const bob = await join(t, ada.claims, 'bob@example.com', 'admin');
  return { t, ada, bob };
}

describe('deactivating a member (PATCH /tenants/me/members/:userId {active})', () => {
  it('revokes its sessions, refresh tokens and keys at once, refuses its password, and shows active false', async () => {
    const { t, ada, bob } = await tenantWithMember();
    const key = await t.auth.createApiKey(bob.claims, { name: 'bob CI', role: 'member' });
    const keyPrincipal = await t.auth.verifyApiKey(key.secret);
    const member = await t.auth.updateMember(ada.claims, bob.user.id, { active: false });
    expect(member).toMatchObject({ id: bob.user.id, role: 'admin', active: false });
    expect((await t.auth.listMembers(ada.claims)).map((m) => [m.email, m.active])).toEqual([
      ['ada@example.com', true],
      ['bob@example.com', false],
    ]);
    expect(await code(t.auth.refresh(bob.refreshToken))).toBe('invalid_token');
    expect(await code(t.auth.listMembers(bob.claims))).toBe('invalid_token');
    expect(await code(t.auth.listMembers(keyPrincipal))).toBe('invalid_token');
    // Its key was verified a moment ago (cached for a few seconds): it is refused at once all the same.
    expect(t.auth.peekApiKey(key.secret)).toBeUndefined();
    expect(await code(t.auth.verifyApiKey(key.secret))).toBe('invalid_token');
    expect((await t.stores.apiKeys.findById(ada.user.tenantId, key.apiKey.id))?.revokedAt).not.toBeNull();
    expect(await t.stores.sessions.listActiveForUser(bob.user.tenantId, bob.user.id, t.clock.now())).toEqual(
      [],
    );
    // The right password: account_disabled; a wrong one: as for anyone.
    expect(await code(t.auth.login({ email: 'bob@example.com', password: PASSWORD }))).toBe(
      'account_disabled',
    );
    expect(await code(t.auth.login({ email: 'bob@example.com', password: 'Wrong-Harbour-1' }))).toBe(
      'invalid_credentials',
    );
    const deactivated = t.events.filter((e) => e.type === 'user_deactivated');
    expect(deactivated.map((e) => [e.actorId, e.actorType, e.subjectId])).toEqual([
      [ada.user.id, 'user', bob.user.id],
    ]);
  });

  it('restores it with active true: it signs in again, its old sessions and keys stay revoked', async () => {
    const { t, ada, bob } = await tenantWithMember();
    const key = await t.auth.createApiKey(bob.claims, { name: 'bob CI', role: 'member' });
    await t.auth.updateMember(ada.claims, bob.user.id, { active: false });
    expect(await t.auth.updateMember(ada.claims, bob.user.id, { active: true })).toMatchObject({
      active: true,
    });
    const again = await t.auth.login({ email: 'bob@example.com', password: PASSWORD });
    expect(again.user.id).toBe(bob.user.id);
    expect(await code(t.auth.refresh(bob.refreshToken))).toBe('invalid_token');
    expect(await code(t.auth.verifyApiKey(key.secret))).toBe('invalid_token');
    expect(t.events.filter((e) => e.type === 'user_reactivated').map((e) => e.subjectId)).toEqual([
      bob.user.id,
    ]);
    // Nothing to change: no event.
    await t.auth.updateMember(ada.claims, bob.user.id, { active: true });
    expect(t.events.filter((e) => e.type === 'user_reactivated')).toHaveLength(1);
  });

  it('changes role and active together, in one answer', async () => {
    const { t, ada, bob } = await tenantWithMember();
    expect(
      await t.auth.updateMember(ada.claims, bob.user.id, { role: 'member', active: false }),
    ).toMatchObject({
      role: 'member',
      active: false,
    });
    expect(await t.stores.users.findById(bob.user.tenantId, bob.user.id)).toMatchObject({
      role: 'member',
      active: false,
    });
  });

  it('refuses a non-boolean active and a bad role; a member and an admin touching an owner are forbidden', async () => {
    const { t, ada, bob } = await tenantWithMember();
    const cat = await join(t, ada.claims, 'cat@example.com', 'member');
    expect(await fieldCodes(t.auth.updateMember(ada.claims, bob.user.id, { active: 'false' }))).toEqual([
      'active:invalid_type',
    ]);
    expect(await fieldCodes(t.auth.updateMember(ada.claims, bob.user.id, { role: 'boss' }))).toEqual([
      'role:invalid_role',
    ]);
    expect(await code(t.auth.updateMember(cat.claims, bob.user.id, { active: false }))).toBe('forbidden');
    expect(await code(t.auth.updateMember(bob.claims, ada.user.id, { active: false }))).toBe('forbidden');
    expect(await code(t.auth.updateMember(ada.claims, 'not-an-id', { active: false }))).toBe('not_found');
  });
});

describe('the last active owner', () => {
  it('cannot be deactivated, demoted, removed, or delete its account while other owners are deactivated', async () => {
    const { t, ada, bob } = await tenantWithMember();
    expect(await code(t.auth.updateMember(ada.claims, ada.user.id, { active: false }))).toBe('last_owner');
    await t.auth.updateMember(ada.claims, bob.user.id, { role: 'owner' });
    // Bob is an owner, deactivated: he counts no more.
    await t.auth.updateMember(ada.claims, bob.user.id, { active: false });
    expect(await code(t.auth.updateMember(ada.claims, ada.user.id, { active: false }))).toBe('last_owner');
    expect(await code(t.auth.changeMemberRole(ada.claims, ada.user.id, 'admin'))).toBe('last_owner');
    expect(await code(t.auth.removeMember(ada.claims, ada.user.id))).toBe('last_owner');
    const fresh = await t.auth.login({ email: 'ada@example.com', password: PASSWORD });
    const claims = await t.auth.verifyAccessToken(fresh.accessToken);
    expect(await code(t.auth.deleteAccount(claims, { password: PASSWORD }))).toBe('last_owner');
    // A deactivated owner can be removed: the tenant keeps its active owner.
    await t.auth.removeMember(ada.claims, bob.user.id);
    // Reactivated, an owner counts again.
    const cat = await join(t, ada.claims, 'cat@example.com', 'owner');
    await t.auth.updateMember(ada.claims, cat.user.id, { active: false });
    await t.auth.updateMember(ada.claims, cat.user.id, { active: true });
    expect(await t.auth.updateMember(ada.claims, ada.user.id, { active: false })).toMatchObject({
      active: false,
    });
  });
});

describe('every sign-in refuses a deactivated account', () => {
  it('a passkey: 403 account_disabled', async () => {
    const { t, ada, bob } = await tenantWithMember({ webauthn: { rpId: 'app.test', origins: [ORIGIN] } });
    const authenticator = new SoftwareAuthenticator(ORIGIN);
    const options = await t.auth.passkeyRegistrationOptions({ claims: bob.claims });
    await t.auth.addPasskey({ claims: bob.claims }, { credential: authenticator.register(options) });
    await t.auth.updateMember(ada.claims, bob.user.id, { active: false });
    const credential = authenticator.authenticate(await t.auth.passkeyLoginOptions());
    expect(await code(t.auth.loginWithPasskey({ credential }))).toBe('account_disabled');
  });

  it("a second factor's challenge begun before the deactivation", async () => {
    const { t, ada, bob } = await tenantWithMember();
    const { secret } = await enrolTotp(t.auth, bob.claims, () => t.clock.now());
    const mfaToken = await mfaTokenOf(t.auth.login({ email: 'bob@example.com', password: PASSWORD }));
    await t.auth.updateMember(ada.claims, bob.user.id, { active: false });
    const answer = { mfaToken, method: 'totp' as const, code: totpCode(secret, t.clock.now()) };
    expect(await code(t.auth.verifyMfa(answer))).toBe('account_disabled');
    // The password login answers so before any second factor is asked for.
    expect(await code(t.auth.login({ email: 'bob@example.com', password: PASSWORD }))).toBe(
      'account_disabled',
    );
  });

  it('a password reset: no email for it, and a link sent before sets no password', async () => {
    const { t, ada, bob } = await tenantWithMember();
    await t.auth.forgotPassword({ email: 'bob@example.com' });
    await t.settle();
    const token = t.inbox.token('bob@example.com', '/reset-password');
    await t.auth.updateMember(ada.claims, bob.user.id, { active: false });
    expect(await code(t.auth.resetPassword({ token, password: 'Another-Orchard-Compass-3' }))).toBe(
      'account_disabled',
    );
    t.inbox.messages.length = 0;
    await t.auth.forgotPassword({ email: 'bob@example.com' });
    await t.settle();
    expect(t.inbox.messages).toEqual([]);
  });

  it('an invitation its inviter sent before being deactivated grants nothing', async () => {
    const { t, ada, bob } = await tenantWithMember();
    await t.auth.createInvitation(bob.claims, { email: 'dan@example.com', role: 'member' });
    await t.settle();
    const token = t.inbox.token('dan@example.com', '/accept-invitation');
    await t.auth.updateMember(ada.claims, bob.user.id, { active: false });
    expect(await fieldCodes(t.auth.acceptInvitation({ token, password: PASSWORD }))).toEqual([
      'token:invalid_or_expired',
    ]);
  });

  it('single sign-on: sso-error?code=account_disabled', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@acme.test');
    await verify(t, 'ada@acme.test');
    await ssoTenant(t, ada.claims, 'acme.test');
    t.idp.signsIn('uma-1', 'uma@acme.test');
    const first = await ssoSignIn(t, 'uma@acme.test');
    expect(first.ok).toBe(true);
    const uma = await t.stores.users.findByEmail('uma@acme.test');
    await t.auth.updateMember(ada.claims, uma?.id ?? '', { active: false });
    t.idp.signsIn('uma-1', 'uma@acme.test');
    expect(await ssoSignIn(t, 'uma@acme.test')).toMatchObject({ ok: false, code: 'account_disabled' });
  });
});

/** The memory stores without some of 1.3's optional verbs: a store set written for 1.2. */
function storesWithout(drop: { users?: string[]; apiKeys?: string[] }) {
  const full = createMemoryStores();
  const strip = <T extends object>(store: T, names: string[] = []): T =>
    Object.fromEntries(Object.entries(store).filter(([name]) => !names.includes(name))) as T;
  const older = (tx: TransactionStores): TransactionStores => ({
    ...tx,
    users: strip(tx.users, drop.users),
    apiKeys: tx.apiKeys && strip(tx.apiKeys, drop.apiKeys),
  });
  const { transaction: _t, ...outside } = full;
  const bundle: TenantAuthStores = {
    ...older(outside),
    transaction: (fn) => full.transaction((tx) => fn(older(tx))),
  };
  return { bundle, full };
}

describe('a store set of 1.2 (without the verbs of deactivation)', () => {
  it('answers feature_unavailable to a deactivation, changes roles as before, counts owners with countByRole', async () => {
    const { t, ada, bob } = await tenantWithMember(
      {},
      storesWithout({ users: ['setActive', 'countActiveByRole'], apiKeys: ['revokeCreatedBy'] }),
    );
    expect(await code(t.auth.updateMember(ada.claims, bob.user.id, { active: false }))).toBe(
      'feature_unavailable',
    );
    expect(await t.auth.updateMember(ada.claims, bob.user.id, { role: 'member' })).toMatchObject({
      role: 'member',
      active: true,
    });
    expect(await code(t.auth.updateMember(ada.claims, ada.user.id, { role: 'admin' }))).toBe('last_owner');
    expect(await t.auth.login({ email: 'bob@example.com', password: PASSWORD })).toBeTruthy();
  });

  it("without revokeCreatedBy, revokes the user's keys one by one", async () => {
    const { t, ada, bob } = await tenantWithMember({}, storesWithout({ apiKeys: ['revokeCreatedBy'] }));
    const keys = [
      await t.auth.createApiKey(bob.claims, { name: 'one', role: 'member' }),
      await t.auth.createApiKey(bob.claims, { name: 'two', role: 'member' }),
    ];
    const adas = await t.auth.createApiKey(ada.claims, { name: 'ada', role: 'member' });
    await t.auth.updateMember(ada.claims, bob.user.id, { active: false });
    for (const key of keys)
      expect((await t.stores.apiKeys.findById(ada.user.tenantId, key.apiKey.id))?.revokedAt).not.toBeNull();
    expect((await t.stores.apiKeys.findById(ada.user.tenantId, adas.apiKey.id))?.revokedAt).toBeNull();
  });
});
