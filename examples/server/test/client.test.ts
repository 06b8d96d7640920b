/**
 * tenant-auth-client against the reference server, in Node, in bearer mode: every route of API 1.0, 1.1
 * and 1.2's second factor (challenges, enrolment, re-authentication) through the client's methods, the mail flows through a real SMTP server, the silent refresh, the
 * refresh after a 401, and a replayed refresh token that revokes the session. Every answer the client
 * receives is also checked against the OpenAPI document, as api() does for the other suites.
 */

import {
  type ClientTimers,
  createTenantAuthClient,
  type FetchLike,
  isTenantAuthClientError,
  memoryTokenStorage,
  type SessionChange,
  type TenantAuthClient,
  TenantAuthClientError,
  type TokenStorage,
} from 'tenant-auth-client';
import { ManualClock } from 'tenant-auth-core/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { referenceOpenApiDocument } from '../../../scripts/openapi-document.js';
import { createOpenApiValidator } from '../../../test-support/openapi-validator.js';
import { SoftwareAuthenticator } from '../../../test-support/software-authenticator.js';
import { PASSWORD, uniqueEmail } from './helpers/http.js';
import { totpCode } from './helpers/mfa.js';
import { TestInbox } from './helpers/smtp.js';
import { startTestServer, type TestServer } from './helpers/test-server.js';

const NEW_PASSWORD = 'Another-Horse-Battery-77';

/** Timers that fire only when told, on the shared manual clock. */
class ManualTimers implements ClientTimers {
  #timers: { id: number; at: number; callback: () => void }[] = [];
  #next = 1;
  constructor(private readonly clock: ManualClock) {}
  setTimeout(callback: () => void, ms: number): unknown {
    const id = this.#next++;
    this.#timers.push({ id, at: this.clock.now().getTime() + ms, callback });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.#timers = this.#timers.filter((t) => t.id !== handle);
  }
  /** The time of the next timer, in ms. */
  nextAt(): number | undefined {
    return this.#timers.map((t) => t.at).sort((a, b) => a - b)[0];
  }
  /** Fires the timers due now. */
  fireDue(): void {
    const now = this.clock.now().getTime();
    const due = this.#timers.filter((t) => t.at <= now);
    this.#timers = this.#timers.filter((t) => t.at > now);
    for (const t of due) t.callback();
  }
}

describe('tenant-auth-client against the reference server (bearer mode)', () => {
  let server: TestServer;
  let inbox: TestInbox;
  const clock = new ManualClock(Math.floor(Date.now() / 1000) * 1000);
  const contract = createOpenApiValidator(referenceOpenApiDocument());
  let problems: string[] = [];
  let requests: { method: string; path: string; status: number }[] = [];
  const clients: TenantAuthClient[] = [];

  /** The platform's fetch, each answer checked against the OpenAPI document. */
  const checkedFetch: FetchLike = async (url, init) => {
    const res = await fetch(url, init);
    const text = await res.clone().text();
    const { pathname, search } = new URL(url);
    const method = init.method ?? 'GET';
    requests.push({ method, path: pathname, status: res.status });
    problems.push(
      ...contract.check(
        { method, path: `${pathname}${search}` },
        { status: res.status, headers: res.headers, text },
      ),
    );
    return res;
  };

  function client(options: { storage?: TokenStorage; timers?: ClientTimers; autoRefresh?: boolean } = {}): {
    client: TenantAuthClient;
    changes: SessionChange[];
  } {
    const changes: SessionChange[] = [];
    const c = createTenantAuthClient({
      baseUrl: `${server.baseUrl}/api/v1`,
      mode: 'bearer',
      fetch: checkedFetch,
      clock: { now: () => clock.now().getTime() },
      autoRefresh: options.autoRefresh ?? false,
      onSessionChange: (change) => changes.push(change),
      ...(options.storage ? { storage: options.storage } : {}),
      ...(options.timers ? { timers: options.timers } : {}),
    });
    clients.push(c);
    return { client: c, changes };
  }

  const refreshes = () => requests.filter((r) => r.path === '/api/v1/auth/refresh');

  async function caught(promise: Promise<unknown>): Promise<TenantAuthClientError> {
    try {
      await promise;
    } catch (err) {
      if (err instanceof TenantAuthClientError) return err;
      throw err;
    }
    throw new Error('expected a TenantAuthClientError');
  }

  beforeAll(async () => {
    inbox = await new TestInbox().start();
    server = await startTestServer({ SMTP_URL: inbox.url, APP_URL: 'https://app.test' }, { clock });
  });
  afterEach(() => {
    expect(problems, 'every answer matches the OpenAPI document').toEqual([]);
    problems = [];
    requests = [];
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await server?.close();
    await inbox?.stop();
  });

  it("runs every route of API 1.0, 1.1 and 1.2's second factor through the client's methods", async () => {
    const ownerEmail = uniqueEmail('owner');
    const { client: owner, changes } = client();

    // Registration sends a verification link.
    const verification = await inbox.receive(ownerEmail, () =>
      owner.register({ email: ownerEmail, password: PASSWORD, tenantName: 'Client Test Works' }),
    );
    const registered = await owner.getSession();
    expect(registered?.user).toMatchObject({ email: ownerEmail, role: 'owner', emailVerified: false });
    await owner.verifyEmail({ token: TestInbox.tokenOf(verification, '/verify-email') });
    const verified = await owner.refresh();
    expect(verified.user.emailVerified).toBe(true);
    await owner.requestEmailVerification();

    const tenant = await owner.getMyTenant();
    expect(tenant.name).toBe('Client Test Works');
    expect(await owner.getTenant(tenant.id)).toEqual(tenant);
    expect((await caught(owner.getTenant('00000000-0000-4000-8000-000000000000'))).code).toBe('not_found');
    expect(await owner.jwks()).toEqual({ keys: [] });
    expect(await owner.health()).toEqual({ status: 'ok', database: 'ok' });
    expect(await owner.request('openapi', {})).toMatchObject({ openapi: '3.1.0' });

    // Invitations: one accepted, one revoked.
    const adminEmail = uniqueEmail('admin');
    let invitationId = '';
    const invited = await inbox.receive(adminEmail, async () => {
      invitationId = (await owner.createInvitation({ email: adminEmail, role: 'admin' })).id;
    });
    const spare = await owner.createInvitation({ email: uniqueEmail('spare'), role: 'member' });
    expect((await owner.listInvitations()).map((i) => i.id).sort()).toEqual([invitationId, spare.id].sort());
    await owner.revokeInvitation(spare.id);
    const { client: admin } = client();
    const joined = await admin.acceptInvitation({
      token: TestInbox.tokenOf(invited, '/accept-invitation'),
      password: PASSWORD,
      deviceInfo: 'client test',
    });
    expect(joined.user).toMatchObject({ email: adminEmail, role: 'admin', tenantId: tenant.id });

    // Members.
    const members = await owner.listMembers();
    expect(members.map((m) => m.email).sort()).toEqual([adminEmail, ownerEmail].sort());
    const changed = await owner.changeMemberRole(joined.user.id, { role: 'member' });
    expect(changed.role).toBe('member');
    const denied = await caught(admin.createInvitation({ email: uniqueEmail('x'), role: 'member' }));
    expect(denied).toMatchObject({ code: 'forbidden', status: 403 });
    const lastOwner = await caught(owner.changeMemberRole(registered?.user.id ?? '', { role: 'member' }));
    expect(lastOwner.code).toBe('last_owner');

    // Passwords and email of the member.
    await admin.changePassword({ currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    const incorrect = await caught(
      admin.changePassword({ currentPassword: 'Not-The-Password-1', newPassword: PASSWORD }),
    );
    expect(incorrect.code).toBe('validation_failed');
    expect(incorrect.errors).toEqual([
      expect.objectContaining({ field: 'currentPassword', code: 'incorrect' }),
    ]);
    const newEmail = uniqueEmail('moved');
    const confirmation = await inbox.receive(newEmail, () =>
      admin.changeEmail({ newEmail, password: NEW_PASSWORD }),
    );
    await admin.confirmEmailChange({ token: TestInbox.tokenOf(confirmation, '/confirm-email-change') });
    const { client: moved } = client();
    expect((await moved.login({ email: newEmail, password: NEW_PASSWORD })).user.email).toBe(newEmail);

    // Sessions.
    const { client: laptop } = client();
    await laptop.login({ email: ownerEmail, password: PASSWORD });
    const sessions = await owner.listSessions();
    expect(sessions.length).toBeGreaterThanOrEqual(2);
    const other = sessions.find((s) => !s.current);
    await owner.revokeSession(other?.id ?? '');
    await laptop.login({ email: ownerEmail, password: PASSWORD });
    expect(await owner.revokeAllSessions({ exceptCurrent: true })).toBeGreaterThanOrEqual(1);
    expect((await owner.listSessions()).every((s) => s.current)).toBe(true);

    // The audit log, page by page.
    const firstPage = await owner.listAuditEvents({ limit: 2 });
    expect(firstPage.events).toHaveLength(2);
    expect(firstPage.next).not.toBeNull();
    const all = [];
    for await (const event of owner.auditEvents({ limit: 3 })) all.push(event);
    expect(new Set(all.map((e) => e.id)).size).toBe(all.length);
    expect(all.map((e) => e.type)).toEqual(expect.arrayContaining(['registered', 'invitation_accepted']));
    const onlyLogins = await owner.listAuditEvents({ type: 'login_succeeded' });
    expect(onlyLogins.events.every((e) => e.type === 'login_succeeded')).toBe(true);

    // Removing the member ends its sessions.
    await owner.removeMember(joined.user.id);
    expect((await caught(moved.refresh())).code).toBe('invalid_token');

    // Forgotten password: every session of the owner is revoked; the client hears it on its next refresh.
    const reset = await inbox.receive(ownerEmail, () => owner.forgotPassword({ email: ownerEmail }));
    await owner.resetPassword({ token: TestInbox.tokenOf(reset, '/reset-password'), password: NEW_PASSWORD });
    expect((await caught(owner.refresh())).code).toBe('invalid_token');
    expect(changes.at(-1)).toEqual({ type: 'revoked', source: 'local' });
    await owner.login({ email: ownerEmail, password: NEW_PASSWORD });

    // API keys through the client's own methods: a verified owner, freshly signed in (recent).
    const created = await owner.createApiKey({ name: 'CI', role: 'member', expiresInDays: 30 });
    expect(created.secret).toMatch(/^tak_/);
    expect(created.apiKey).toMatchObject({ name: 'CI', role: 'member', lastUsedAt: null });
    const listed = await owner.listApiKeys();
    expect(listed).toEqual([created.apiKey]);
    expect(JSON.stringify(listed)).not.toContain(created.secret);
    await owner.revokeApiKey(created.apiKey.id);
    expect(await owner.listApiKeys()).toEqual([]);
    expect((await caught(owner.revokeApiKey(created.apiKey.id))).code).toBe('not_found');

    // Account deletion of a tenant's only member, and logout.
    const { client: loner, changes: lonerChanges } = client();
    await loner.register({ email: uniqueEmail('loner'), password: PASSWORD });
    await loner.deleteAccount({ password: PASSWORD });
    expect(lonerChanges.at(-1)).toEqual({ type: 'signed_out', reason: 'account_deleted', source: 'local' });
    await owner.logout();
    expect(await owner.getSession()).toBeNull();
    expect(changes.at(-1)).toEqual({ type: 'signed_out', reason: 'logout', source: 'local' });

    // API 1.2: the second factor through the client's own methods. A verified owner (to invite).
    const { client: second } = client();
    const secondEmail = uniqueEmail('second-factor');
    const secondVerification = await inbox.receive(secondEmail, () =>
      second.register({ email: secondEmail, password: PASSWORD }),
    );
    await second.verifyEmail({ token: TestInbox.tokenOf(secondVerification, '/verify-email') });
    expect(await second.getMe()).toMatchObject({ email: secondEmail, mfa: { totp: false } });
    const { secret, otpauthUri } = await second.setupTotp();
    expect(otpauthUri).toContain(`secret=${secret}`);
    const confirmed = await second.confirmTotp({ code: totpCode(secret, clock.now()) });
    expect(confirmed.state).toBeNull();
    const recoveryCodes = confirmed.recoveryCodes ?? [];
    expect(recoveryCodes).toHaveLength(10);
    expect((await second.getMe()).mfa).toEqual({ totp: true, passkeys: 0, recoveryCodesRemaining: 10 });
    expect(await second.getSecurityPolicy()).toEqual({ requireMfa: false });
    // The registration's session is password-only, and the user now has a factor: not recent enough.
    for (const call of [
      () => second.regenerateRecoveryCodes(),
      () => second.disableTotp(),
      () => second.setSecurityPolicy({ requireMfa: true }),
    ]) {
      expect((await caught(call())).code).toBe('reauthentication_required');
    }
    // 1.1's login() cannot hand a session out: it throws the server's mfa_required, with the challenge.
    const thrown = await caught(second.login({ email: secondEmail, password: PASSWORD }));
    expect(thrown).toMatchObject({ code: 'mfa_required', status: 401 });
    expect(thrown.problem?.mfaToken).toEqual(expect.any(String));
    expect(await second.getSession()).toMatchObject({ user: { email: secondEmail } });
    // loginStep()'s second step is a result, not an exception.
    const challenge = await second.loginStep({ email: secondEmail, password: PASSWORD });
    expect(challenge).toMatchObject({ type: 'mfa_required', expiresIn: 300 });
    if (challenge.type !== 'mfa_required') throw new Error('expected mfa_required');
    expect([...challenge.methods].sort()).toEqual(['recovery_code', 'totp']);
    const notTheCode = await caught(
      second.verifyMfa({ mfaToken: challenge.mfaToken, method: 'recovery_code', code: 'aaaaa-bbbbb' }),
    );
    expect(notTheCode.errors).toEqual([expect.objectContaining({ field: 'code', code: 'incorrect' })]);
    const twoFactor = await second.verifyMfa({
      mfaToken: challenge.mfaToken,
      method: 'recovery_code',
      code: recoveryCodes[0] ?? '',
    });
    expect(twoFactor.session.amr).toEqual(['pwd', 'otp', 'mfa']);
    // Eleven minutes on, the session is stale: the call is prompted for, re-authenticated, and run again.
    clock.advance(11 * 60_000);
    const prompted: string[] = [];
    const renewed = await second.withReauthentication(
      () => second.regenerateRecoveryCodes(),
      async ({ error, reauthenticate }) => {
        prompted.push(error.code);
        const state = await reauthenticate({
          password: PASSWORD,
          method: 'totp',
          code: totpCode(secret, clock.now()),
        });
        expect(state.session.id).toBe(twoFactor.session.id);
        return true;
      },
    );
    expect(prompted).toEqual(['reauthentication_required']);
    expect(renewed).toHaveLength(10);
    // The new set voided the old one: an unused code of the old set is refused, one of the new set signs in.
    const { client: phone } = client();
    const onPhone = await phone.loginStep({ email: secondEmail, password: PASSWORD });
    if (onPhone.type !== 'mfa_required') throw new Error(`expected mfa_required, got ${onPhone.type}`);
    const voided = { mfaToken: onPhone.mfaToken, method: 'recovery_code' as const };
    expect((await caught(phone.verifyMfa({ ...voided, code: recoveryCodes[1] ?? '' }))).errors).toEqual([
      expect.objectContaining({ field: 'code', code: 'incorrect' }),
    ]);
    expect((await phone.verifyMfa({ ...voided, code: renewed[0] ?? '' })).user.email).toBe(secondEmail);
    expect(await second.setSecurityPolicy({ requireMfa: true })).toEqual({ requireMfa: true });
    // Joining a tenant that requires a factor: the invitation answers the enrolment step, which signs in.
    const enrolleeEmail = uniqueEmail('enrollee');
    const invitation = await inbox.receive(enrolleeEmail, () =>
      second.createInvitation({ email: enrolleeEmail, role: 'member' }),
    );
    const { client: enrollee } = client();
    const enrolleeToken = TestInbox.tokenOf(invitation, '/accept-invitation');
    // 1.1's acceptInvitation() creates the account but throws the step as the server's error.
    const oldStyleEmail = uniqueEmail('old-style');
    const oldStyleInvitation = await inbox.receive(oldStyleEmail, () =>
      second.createInvitation({ email: oldStyleEmail, role: 'member' }),
    );
    const { client: oldStyle } = client();
    const lockedOut = await caught(
      oldStyle.acceptInvitation({
        token: TestInbox.tokenOf(oldStyleInvitation, '/accept-invitation'),
        password: PASSWORD,
      }),
    );
    expect(lockedOut).toMatchObject({ code: 'mfa_setup_required', status: 401 });
    expect(lockedOut.problem?.mfaToken).toEqual(expect.any(String));
    expect(await oldStyle.getSession()).toBeNull();
    // acceptInvitationStep() answers the step as a result.
    const step = await enrollee.acceptInvitationStep({
      token: enrolleeToken,
      password: PASSWORD,
    });
    if (step.type !== 'mfa_setup_required') throw new Error(`expected mfa_setup_required, got ${step.type}`);
    expect(await enrollee.getSession()).toBeNull();
    const enrolment = await enrollee.setupTotp({ mfaToken: step.mfaToken });
    const joinedEnrolled = await enrollee.confirmTotp({
      mfaToken: step.mfaToken,
      code: totpCode(enrolment.secret, clock.now()),
    });
    expect(joinedEnrolled.recoveryCodes).toHaveLength(10);
    expect(joinedEnrolled.state?.session.amr).toEqual(['pwd', 'otp', 'mfa']);
    expect((await enrollee.getMe()).mfa.totp).toBe(true);
    // Its password alone now asks for the factor.
    const { client: later } = client();
    expect(await later.loginStep({ email: enrolleeEmail, password: PASSWORD })).toMatchObject({
      type: 'mfa_required',
    });
    await second.disableTotp().then(
      () => expect.unreachable('the tenant requires a factor'),
      (err: unknown) => expect(isTenantAuthClientError(err, 'mfa_required_by_tenant')).toBe(true),
    );

    // Passkeys, through request() with a software authenticator (client.passkeys needs a browser's WebAuthn).
    const { client: third } = client();
    const thirdEmail = uniqueEmail('passkey');
    await third.register({ email: thirdEmail, password: PASSWORD });
    const authenticator = new SoftwareAuthenticator('https://app.test');
    const creation = await third.request('passkeyRegistrationOptions', {});
    const added = await third.request('addPasskey', {
      body: { credential: authenticator.register(creation) as never, name: 'Node' },
    });
    expect(added).toMatchObject({ passkey: { name: 'Node' } });
    expect((await third.request('listPasskeys', {})).passkeys).toHaveLength(1);
    const loginOptions = await third.request('passkeyLoginOptions', {});
    const viaPasskey = await third.request('passkeyLogin', {
      body: { credential: authenticator.authenticate(loginOptions) as never },
    });
    expect(viaPasskey.session.amr).toEqual(['hwk', 'mfa']);
    const passkeyChallenge = await third.loginStep({ email: thirdEmail, password: PASSWORD });
    if (passkeyChallenge.type !== 'mfa_required')
      throw new Error(`expected a challenge, not ${passkeyChallenge.type}`);
    expect(passkeyChallenge.methods).toEqual(['passkey']);
    const { mfaToken } = passkeyChallenge;
    const mfaOptions = await third.request('mfaPasskeyOptions', { body: { mfaToken } });
    const viaSecond = await third.request('verifyMfa', {
      body: { mfaToken, method: 'passkey', credential: authenticator.authenticate(mfaOptions) as never },
    });
    expect(viaSecond.session.amr).toEqual(['pwd', 'hwk', 'mfa']);
    const reauthOptions = await third.request('reauthenticationOptions', {});
    const reauthenticated = await third.request('reauthenticate', {
      body: { method: 'passkey', credential: authenticator.authenticate(reauthOptions) as never },
    });
    expect(reauthenticated.session.amr).toEqual(['hwk', 'mfa']);
    // The client still holds the registration's password-only token: removal needs a recent second factor.
    const removal = await third.request('removePasskey', { params: { id: added.passkey.id } }).then(
      () => expect.unreachable('a password-only token is not recent enough'),
      (err: unknown) => err,
    );
    expect(isTenantAuthClientError(removal, 'reauthentication_required')).toBe(true);

    // API 1.2's single sign-on routes, through their methods and sso.start() (the full flows against a
    // real provider are sso.test.ts's and sso-admin.test.ts's).
    const { client: sso } = client();
    await sso.register({ email: `owner@sso-${Date.now().toString(36)}.example.com`, password: PASSWORD });
    const domain = await sso.addDomain({ domain: 'client-test.example.com' });
    expect(domain).toMatchObject({ name: 'client-test.example.com', verified: false });
    expect(domain.verification.name).toBe('_tenant-auth-challenge.client-test.example.com');
    expect((await sso.listDomains()).map((d) => d.name)).toEqual(['client-test.example.com']);
    const notYet = await caught(sso.verifyDomain(domain.name));
    expect(isTenantAuthClientError(notYet, 'domain_not_verified')).toBe(true);
    await sso.removeDomain(domain.name);
    expect(await sso.listDomains()).toEqual([]);
    const unreachable = await caught(
      sso.configureSso({ issuer: 'https://127.0.0.1:9', clientId: 'a', clientSecret: 'b' }),
    );
    expect(isTenantAuthClientError(unreachable, 'validation_failed')).toBe(true);
    expect(await sso.getSso()).toBeNull();
    expect(isTenantAuthClientError(await caught(sso.removeSso()), 'not_found')).toBe(true);
    const noSso = await caught(sso.sso.start({ email: 'nobody@client-test.example.com' }));
    expect(isTenantAuthClientError(noSso, 'not_found')).toBe(true);
    // No connection in the caller's tenant: nothing to re-authenticate at.
    expect(isTenantAuthClientError(await caught(sso.sso.reauthenticate()), 'not_found')).toBe(true);
    // The callback is a browser navigation: without its cookie, straight to the app's error page.
    const callback = await sso.fetch(`${server.baseUrl}/api/v1/auth/sso/callback?state=x`, {
      redirect: 'manual',
    });
    expect(callback.status).toBe(303);

    // 1.3's SAML browser routes (sso-saml.test.ts drives them with a real IdP): this tenant has no SAML
    // connection, so no metadata, and a post without the state cookie goes to the app's error page.
    const tenantId = (await sso.getMyTenant()).id;
    const metadata = await sso.fetch(`${server.baseUrl}/api/v1/auth/sso/saml/${tenantId}/metadata`);
    expect(metadata.status).toBe(404);
    const acs = await sso.fetch(`${server.baseUrl}/api/v1/auth/sso/saml/${tenantId}/acs`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'SAMLResponse=PHg%2F&RelayState=x',
    });
    expect(acs.status).toBe(303);
    expect(acs.headers.get('location')).toContain('/sso-error?code=');

    // 1.3's webhooks through their methods (deliveries to a receiver: webhooks.test.ts).
    expect(await sso.listWebhooks()).toEqual([]);
    const internal = await caught(sso.createWebhook({ url: 'https://10.0.0.1/hooks' }));
    expect(isTenantAuthClientError(internal, 'validation_failed')).toBe(true);
    expect(internal.errors.map((e) => e.code)).toEqual(['invalid_url']);
    const noHook = '01900000-0000-7000-8000-000000000000';
    for (const call of [
      () => sso.updateWebhook(noHook, { enabled: false }),
      () => sso.deleteWebhook(noHook),
      () => sso.testWebhook(noHook),
      () => sso.listWebhookDeliveries(noHook),
    ]) {
      expect(isTenantAuthClientError(await caught(call()), 'not_found')).toBe(true);
    }

    // 1.3's SCIM token and group roles through their methods (a directory's /scim/v2 calls: scim.test.ts).
    expect(await sso.getScim()).toMatchObject({ enabled: false, groupRoles: [] });
    const scimToken = await sso.createScimToken();
    expect(scimToken.token).toMatch(/^tas_[\w-]{43}$/);
    expect(scimToken.baseUrl).toMatch(/\/scim\/v2$/);
    const mapping = [{ group: 'Admins', role: 'admin' as const }];
    expect(await sso.setScimGroupRoles(mapping)).toEqual(mapping);
    const scim = await sso.getScim();
    expect(scim).toMatchObject({ enabled: true, baseUrl: scimToken.baseUrl, groupRoles: mapping });
    expect(JSON.stringify(scim)).not.toContain(scimToken.token);
    await sso.revokeScimToken();
    expect(isTenantAuthClientError(await caught(sso.revokeScimToken()), 'not_found')).toBe(true);

    // API 1.2's API keys through request() (a back-end with a key: api-key-client.test.ts). This owner
    // cannot create one (its address is not verified: 403 email_not_verified); the list is empty; an
    // unknown id is 404.
    const newKey = sso.request('createApiKey', { body: { name: 'CI', role: 'member' } });
    expect(isTenantAuthClientError(await caught(newKey), 'email_not_verified')).toBe(true);
    expect(await sso.request('listApiKeys', {})).toEqual({ apiKeys: [] });
    const unknownKey = sso.request('revokeApiKey', {
      params: { id: '01900000-0000-7000-8000-000000000000' },
    });
    expect(isTenantAuthClientError(await caught(unknownKey), 'not_found')).toBe(true);

    // Every operation of the document was called.
    const called = new Set(requests.map((r) => `${r.method} ${r.path}`));
    const document = referenceOpenApiDocument() as { paths: Record<string, Record<string, unknown>> };
    for (const [path, item] of Object.entries(document.paths)) {
      for (const method of Object.keys(item)) {
        const pattern = new RegExp(
          `^${method.toUpperCase()} /api/v1${path.replaceAll('.', '\\.').replace(/\{\w+\}/g, '[^/]+')}$`,
        );
        expect(
          [...called].some((c) => pattern.test(c)),
          `${method} ${path}`,
        ).toBe(true);
      }
    }
  });

  it('maps the problems of the server to typed errors', async () => {
    const { client: c } = client();
    const weak = await caught(c.register({ email: 'not-an-email', password: 'short' }));
    expect(weak).toMatchObject({ code: 'validation_failed', status: 400 });
    expect(weak.errors.map((e) => `${e.field}:${e.code}`).sort()).toEqual([
      'email:invalid_email',
      'password:missing_character_classes',
      'password:too_short',
    ]);
    const wrong = await caught(c.login({ email: uniqueEmail('nobody'), password: PASSWORD }));
    expect(wrong).toMatchObject({ code: 'invalid_credentials', status: 401 });
    expect(isTenantAuthClientError(wrong, 'invalid_credentials')).toBe(true);
    expect((await caught(c.listSessions())).code).toBe('invalid_token');
  });

  it('refreshes before a request once the access token has expired, and once after a 401', async () => {
    const { client: c, changes } = client();
    await c.login({ email: (await registered()).email, password: PASSWORD });
    // The client's clock says the access token has expired: it refreshes first, no 401 needed.
    clock.advance(16 * 60_000);
    expect((await c.listSessions()).filter((s) => s.current)).toHaveLength(1);
    expect(refreshes()).toHaveLength(1);
    expect(requests.filter((r) => r.status === 401)).toHaveLength(0);

    // The server revoked the access token's session-less validity: it answers 401; ten requests at once
    // make one refresh between them and are each retried once.
    const storage = memoryTokenStorage();
    const { client: d } = client({ storage });
    await d.login({ email: (await registered()).email, password: PASSWORD });
    const tokens = await storage.get();
    // A client whose clock lags: it still believes in an access token the server has seen expire.
    await storage.set(tokens ? { ...tokens, accessTokenExpiresAt: Number.MAX_SAFE_INTEGER } : null);
    clock.advance(16 * 60_000);
    requests = [];
    const results = await Promise.all(Array.from({ length: 10 }, () => d.listSessions()));
    expect(results.every((list) => list.some((s) => s.current))).toBe(true);
    expect(refreshes()).toHaveLength(1);
    expect(requests.filter((r) => r.status === 401)).toHaveLength(10);
    expect(changes.map((x) => x.type)).toEqual(['signed_in', 'refreshed']);
  });

  it('re-authenticates a session whose access token expired: refreshed first, then renewed, never stuck', async () => {
    const { client: c, changes } = client();
    const state = await c.login({ email: (await registered()).email, password: PASSWORD });
    // A re-authentication dialog left open for 16 minutes: the access token expired meanwhile.
    clock.advance(16 * 60_000);
    requests = [];
    let stuck: ReturnType<typeof setTimeout> | undefined;
    const renewed = await Promise.race([
      c.reauthenticate({ password: PASSWORD }),
      new Promise<never>((_, reject) => {
        stuck = setTimeout(() => reject(new Error('reauthenticate never finished')), 5_000);
      }),
    ]).finally(() => clearTimeout(stuck));
    expect(renewed.session.id).toBe(state.session.id);
    expect(requests.map((r) => `${r.path} ${r.status}`)).toEqual([
      '/api/v1/auth/refresh 200',
      '/api/v1/auth/reauthenticate 200',
    ]);
    expect(changes.map((x) => x.type)).toEqual(['signed_in', 'refreshed', 'refreshed']);
    // The renewed refresh token is the one the client presents next: no replay, the session goes on.
    await c.refresh();
    expect((await c.listSessions()).filter((s) => s.current)).toHaveLength(1);
  });

  it('refreshes on its timer shortly before the access token expires', async () => {
    const timers = new ManualTimers(clock);
    const { client: c, changes } = client({ timers, autoRefresh: true });
    const state = await c.login({ email: (await registered()).email, password: PASSWORD });
    expect(timers.nextAt()).toBe(state.accessTokenExpiresAt - 30_000);
    clock.set(timers.nextAt() ?? 0);
    timers.fireDue();
    await expect.poll(() => changes.map((x) => x.type)).toEqual(['signed_in', 'refreshed']);
    expect(refreshes()).toHaveLength(1);
    expect(timers.nextAt()).toBeGreaterThan(clock.now().getTime() + 800_000);
  });

  it('reports `revoked` when a replayed refresh token has revoked the session', async () => {
    const storage = memoryTokenStorage();
    const { client: c, changes } = client({ storage });
    await c.login({ email: (await registered()).email, password: PASSWORD });
    const stolen = (await storage.get())?.refreshToken;
    await c.refresh();
    // After the grace period, someone presents the old refresh token: a replay; the session is revoked.
    clock.advance(11_000);
    const replay = await fetch(`${server.baseUrl}/api/v1/auth/refresh`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refreshToken: stolen }),
    });
    expect(replay.status).toBe(401);
    const err = await caught(c.refresh());
    expect(err.code).toBe('invalid_token');
    expect(changes.map((x) => x.type)).toEqual(['signed_in', 'refreshed', 'revoked']);
    expect(await c.getSession()).toBeNull();
  });

  /** A fresh account of its own tenant. */
  async function registered(): Promise<{ email: string }> {
    const email = uniqueEmail('client');
    const { client: c } = client();
    await c.register({ email, password: PASSWORD });
    c.close();
    return { email };
  }
});
