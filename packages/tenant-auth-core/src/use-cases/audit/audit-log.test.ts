import { describe, expect, it } from 'vitest';
import { SoftwareAuthenticator } from '../../../../../test-support/software-authenticator.js';
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
} from '../../testing/test-helpers.js';
import type { AuditEventType } from '../../vocabulary/records.js';
import { AUDIT_EVENT_TYPES } from '../../vocabulary/records.js';

describe('audit log', () => {
  it('stores every event type of the contract, with its parties, and never a secret', async () => {
    const t = setup({
      refreshReuseGraceSeconds: 10,
      webauthn: { rpId: 'app.test', origins: ['https://app.test'] },
      webhooks: {
        sender: { checkUrl: () => undefined, post: async () => ({ status: 500 }) },
        retryScheduleSeconds: [],
      },
    });
    const ctx = { ipAddress: '203.0.113.7', userAgent: 'Vitest', requestId: 'req-1' };
    const ada = await owner(t.auth, 'ada@example.com'); // registered
    await t.settle();
    await t.auth.verifyEmail({ token: t.inbox.token('ada@example.com', '/verify-email') }, ctx); // email_verified
    await t.auth.login({ email: 'ada@example.com', password: 'wrong-password' }, ctx).catch(() => {}); // login_failed
    const second = await t.auth.login({ email: 'ada@example.com', password: PASSWORD }, ctx); // login_succeeded
    const rotated = await t.auth.refresh(second.refreshToken, ctx); // refreshed
    await t.auth.refresh(second.refreshToken, ctx); // refresh_reissued
    t.clock.advance(60_000);
    await t.auth.refresh(second.refreshToken, ctx).catch(() => {}); // replay_detected
    const third = await t.auth.login({ email: 'ada@example.com', password: PASSWORD }, ctx);
    await t.auth.logout(third.accessToken, ctx); // logout
    const fourth = await t.auth.login({ email: 'ada@example.com', password: PASSWORD }, ctx);
    await t.auth.revokeSession(ada.claims, fourth.session.id, ctx); // session_revoked
    await t.auth.revokeAllSessions(ada.claims, { exceptCurrent: true }, ctx); // sessions_revoked
    const bob = await join(t, ada.claims, 'bob@example.com', 'member'); // invitation_created, invitation_accepted
    const extra = await t.auth.createInvitation(ada.claims, { email: 'x@example.com', role: 'member' }, ctx);
    await t.auth.revokeInvitation(ada.claims, extra.id, ctx); // invitation_revoked
    await t.auth.changeMemberRole(ada.claims, bob.user.id, 'admin', ctx); // member_role_changed
    await t.auth.forgotPassword({ email: 'bob@example.com' }, ctx); // password_reset_requested
    await t.settle();
    await t.auth.resetPassword(
      { token: t.inbox.token('bob@example.com', '/reset-password'), password: `${PASSWORD}-2` },
      ctx,
    ); // password_reset
    const bobAgain = await t.auth.login({ email: 'bob@example.com', password: `${PASSWORD}-2` });
    const bobClaims = await t.auth.verifyAccessToken(bobAgain.accessToken);
    await t.auth.changePassword(
      bobClaims,
      { currentPassword: `${PASSWORD}-2`, newPassword: `${PASSWORD}-3` },
      ctx,
    ); // password_changed
    await t.auth.changeEmail(bobClaims, { newEmail: 'bob@new.example', password: `${PASSWORD}-3` }, ctx);
    await t.settle();
    await t.auth.confirmEmailChange(
      { token: t.inbox.token('bob@new.example', '/confirm-email-change') },
      ctx,
    ); // email_changed
    const cat = await join(t, ada.claims, 'cat@example.com', 'member');
    await t.auth.updateMember(ada.claims, cat.user.id, { active: false }, ctx); // user_deactivated
    await t.auth.updateMember(ada.claims, cat.user.id, { active: true }, ctx); // user_reactivated
    await t.auth.removeMember(ada.claims, cat.user.id, ctx); // member_removed
    await t.auth.deleteAccount(bobClaims, { password: `${PASSWORD}-3` }, ctx); // account_deleted
    // The second factor (docs/http-api.md, "Audit events added in 1.2").
    const fresh = await t.auth.verifyAccessToken(
      (await t.auth.login({ email: 'ada@example.com', password: PASSWORD }, ctx)).accessToken,
    );
    const totp = await enrolTotp(t.auth, fresh, () => t.clock.now()); // mfa_enabled
    const login = () => t.auth.login({ email: 'ada@example.com', password: PASSWORD }, ctx);
    const challenge = await mfaTokenOf(login());
    await t.auth.verifyMfa({ mfaToken: challenge, method: 'totp', code: '000000' }, ctx).catch(() => {}); // mfa_challenge_failed
    const strong = await t.auth.verifyMfa(
      { mfaToken: challenge, method: 'recovery_code', code: totp.recoveryCodes[0] ?? '' },
      ctx,
    ); // recovery_code_used
    const strongClaims = await t.auth.verifyAccessToken(strong.accessToken);
    t.clock.advance(60_000);
    const again = await t.auth.reauthenticate(
      strongClaims,
      { password: PASSWORD, method: 'totp', code: totpCode(totp.secret, t.clock.now()) },
      ctx,
    ); // reauthenticated
    const recent = await t.auth.verifyAccessToken(again.accessToken);
    await t.auth.regenerateRecoveryCodes(recent, ctx); // recovery_codes_regenerated
    await t.auth.setSecurityPolicy(recent, { requireMfa: true }, ctx); // security_policy_changed
    await t.auth.setSecurityPolicy(recent, { requireMfa: false }, ctx);
    await t.auth.disableTotp(recent, ctx); // mfa_disabled
    // Passkeys.
    const authenticator = new SoftwareAuthenticator('https://app.test');
    const creation = await t.auth.passkeyRegistrationOptions({ claims: recent });
    const { passkey } = await t.auth.addPasskey(
      { claims: recent },
      { credential: authenticator.register(creation) },
      ctx,
    ); // passkey_added
    const signIn = async (counter: number) =>
      t.auth.loginWithPasskey(
        { credential: authenticator.authenticate(await t.auth.passkeyLoginOptions(), { counter }) },
        ctx,
      );
    await signIn(5);
    await signIn(2).catch(() => {}); // passkey_counter_regressed
    await t.auth.removePasskey(recent, passkey.id, ctx); // passkey_removed
    await ssoTenant(t, recent, 'example.com'); // domain_added, domain_verified, sso_configured
    t.idp.signsIn('sub-dan', 'dan@example.com');
    expect((await ssoSignIn(t, 'dan@example.com')).ok).toBe(true); // sso_user_provisioned, sso_login
    await t.auth.removeSso(recent, ctx); // sso_removed
    await t.auth.removeDomain(recent, 'example.com', ctx); // domain_removed
    // API keys (docs/http-api.md, "API keys"); what a key does is recorded as the key's.
    const created = await t.auth.createApiKey(recent, { name: 'CI', role: 'admin' }, ctx); // api_key_created
    const key = await t.auth.verifyApiKey(created.secret);
    const byKey = await t.auth.createInvitation(key, { email: 'y@example.com', role: 'member' }, ctx);
    await t.auth.revokeApiKey(recent, created.apiKey.id, ctx); // api_key_revoked
    // Webhooks (docs/http-api.md, "Webhooks"): one that fails 50 times is disabled by the system.
    const hook = await t.auth.createWebhook(recent, { url: 'https://hooks.example.com/' }, ctx); // webhook_created
    await t.auth.updateWebhook(recent, hook.webhook.id, { description: 'SIEM' }, ctx); // webhook_updated
    for (let i = 0; i < 50; i++) await t.auth.testWebhook(recent, hook.webhook.id);
    await t.auth.deliverWebhooks({ limit: 50 }); // webhook_disabled
    const other = await t.auth.createWebhook(recent, { url: 'https://hooks.example.com/2' }, ctx);
    await t.auth.deleteWebhook(recent, other.webhook.id, ctx); // webhook_deleted
    // SCIM (docs/http-api.md, "SCIM 2.0 provisioning per tenant"): the token is the owner's, the rest the directory's.
    const corp = await t.auth.addDomain(recent, { domain: 'corp.example.org' });
    t.txt.set(corp.verification.name, [[corp.verification.value]]);
    await t.auth.verifyDomain(recent, 'corp.example.org');
    const scim = await t.auth.createScimToken(recent, ctx); // scim_token_created
    const directory = await t.auth.verifyScimToken(scim.token);
    const { user: pat } = await t.auth.createScimUser(
      directory,
      {
        email: 'pat@corp.example.org',
        externalId: 'e-pat',
        givenName: null,
        familyName: null,
        formattedName: null,
        displayName: null,
        active: true,
      },
      ctx,
    ); // scim_user_created
    await t.auth.updateScimUser(directory, pat.id, (u) => ({ ...u, displayName: 'Pat' }), ctx); // scim_user_updated
    await t.auth.createScimGroup(directory, { displayName: 'Ops', memberIds: [pat.id] }, ctx); // scim_group_changed
    await t.auth.deleteScimUser(directory, pat.id, ctx); // scim_user_deleted
    await t.auth.revokeScimToken(recent, ctx); // scim_token_revoked
    await t.auth.whenIdle();
    // Enrolling revoked Ada's other sessions: she reads the log from the one she reauthenticated.
    ada.claims = recent;
    void rotated;

    const stored = [];
    let before: string | undefined;
    for (;;) {
      const page = await t.auth.listAuditEvents(ada.claims, { limit: 7, before });
      stored.push(...page.events);
      if (!page.next) break;
      before = page.next;
    }
    const types = new Set(stored.map((e) => e.type));
    expect([...AUDIT_EVENT_TYPES].filter((type) => !types.has(type))).toEqual([]);
    // Newest first, every one of this tenant, none twice.
    expect(stored.map((e) => e.id)).toEqual([...stored.map((e) => e.id)].sort().reverse());
    expect(new Set(stored.map((e) => e.id)).size).toBe(stored.length);
    expect(stored.every((e) => e.tenantId === ada.tenant.id)).toBe(true);
    const json = JSON.stringify(stored);
    for (const secret of [
      PASSWORD,
      second.refreshToken,
      second.accessToken,
      rotated.refreshToken,
      totp.secret,
      ...totp.recoveryCodes,
      challenge,
      'sso-client-secret-for-unit-tests',
      created.secret,
      hook.secret,
      other.secret,
      scim.token,
    ]) {
      expect(json).not.toContain(secret);
    }
    expect(json).not.toMatch(/\$2[aby]\$/);
    expect(stored.find((e) => e.type === 'invitation_created' && e.subjectId === byKey.id)).toMatchObject({
      actorId: created.apiKey.id,
      actorType: 'api_key',
      sessionId: null,
    });
    expect(stored.find((e) => e.type === 'api_key_created')).toMatchObject({
      actorId: ada.user.id,
      actorType: 'user',
      subjectId: created.apiKey.id,
    });
    expect(stored.filter((e) => e.actorType === 'api_key')).toHaveLength(1);
    expect(stored.find((e) => e.type === 'webhook_disabled')).toMatchObject({
      actorId: null,
      actorType: 'system',
      subjectId: hook.webhook.id,
      sessionId: null,
    });
    expect(stored.find((e) => e.type === 'scim_user_deleted')).toMatchObject({
      actorId: null,
      actorType: 'scim',
      subjectId: pat.id,
      sessionId: null,
    });
    expect(stored.find((e) => e.type === 'scim_token_created')).toMatchObject({
      actorId: ada.user.id,
      actorType: 'user',
    });
    expect(stored.find((e) => e.type === 'member_removed')).toMatchObject({
      actorId: ada.user.id,
      subjectId: cat.user.id,
      ipAddress: '203.0.113.7',
      userAgent: 'Vitest',
      requestId: 'req-1',
    });
  });

  it('filters by type and by user, and refuses bad queries with field codes', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    const bob = await join(t, ada.claims, 'bob@example.com', 'member');
    await t.auth.login({ email: 'bob@example.com', password: 'nope' }).catch(() => {});
    await t.auth.whenIdle();
    const failed = await t.auth.listAuditEvents(ada.claims, { type: 'login_failed' });
    expect(failed.events.map((e) => [e.type, e.subjectId])).toEqual([['login_failed', bob.user.id]]);
    const bobs = await t.auth.listAuditEvents(ada.claims, { userId: bob.user.id });
    expect(bobs.events.length).toBeGreaterThan(0);
    expect(bobs.events.every((e) => e.actorId === bob.user.id || e.subjectId === bob.user.id)).toBe(true);
    expect(
      await fieldCodes(
        t.auth.listAuditEvents(ada.claims, { limit: 0, before: 'garbage!', type: 'nope', userId: 'x' }),
      ),
    ).toEqual(['limit:invalid_value', 'before:invalid_value', 'type:invalid_value', 'userId:invalid_value']);
    expect(await fieldCodes(t.auth.listAuditEvents(ada.claims, { limit: 201 }))).toEqual([
      'limit:invalid_value',
    ]);
    expect((await t.auth.listAuditEvents(ada.claims, { limit: '1' })).events).toHaveLength(1);
  });

  it("is for the caller's tenant and its administrators only", async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    const bob = await join(t, ada.claims, 'bob@example.com', 'member');
    const eve = await owner(t.auth, 'eve@example.com');
    expect(await code(t.auth.listAuditEvents(bob.claims))).toBe('forbidden');
    const eves = await t.auth.listAuditEvents(eve.claims);
    expect(eves.events.map((e) => e.type as AuditEventType)).toEqual(['registered']);
    expect(eves.events.every((e) => e.tenantId === eve.tenant.id)).toBe(true);
  });

  it('deletes events past the retention in the scheduled cleanup', async () => {
    const t = setup({ auditRetentionSeconds: 86_400 });
    const ada = await owner(t.auth, 'ada@example.com');
    t.clock.advance(86_400_000 + 1);
    await t.auth.login({ email: 'ada@example.com', password: PASSWORD });
    expect((await t.auth.cleanup()).auditEvents).toBe(1);
    expect((await t.auth.listAuditEvents(ada.claims)).events.map((e) => e.type)).toEqual(['login_succeeded']);
  });

  it('records nothing, and tells onEvent nothing, for a change that failed', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    const before = t.events.length;
    expect(await code(t.auth.changeMemberRole(ada.claims, ada.user.id, 'admin'))).toBe('last_owner');
    expect(t.events).toHaveLength(before);
    expect((await t.auth.listAuditEvents(ada.claims)).events.map((e) => e.type)).toEqual(['registered']);
  });
});
