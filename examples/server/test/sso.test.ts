import { randomUUID } from 'node:crypto';
import { createTenantAuthClient } from 'tenant-auth-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SoftwareAuthenticator } from '../../../test-support/software-authenticator.js';
import { startTxtDnsServer, type TxtDnsServer } from './helpers/dns-txt.js';
import { api, expectProblem, PASSWORD, setCookies } from './helpers/http.js';
import { claimsOf, enrolTotp, passwordStep } from './helpers/mfa.js';
import { startOpenIdProvider, type TestOpenIdProvider } from './helpers/oidc-provider.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from './helpers/postgres.js';
import { TestInbox } from './helpers/smtp.js';
import {
  APP_URL,
  callback,
  newDomain,
  REDIRECT_URI,
  type SsoTenant,
  ssoErrorCode,
  ssoTenant,
  startSso,
} from './helpers/sso.js';
import { startTestServer, type TestServer } from './helpers/test-server.js';
import { startTokenEndpointProvider, type TokenEndpointProvider } from './helpers/token-endpoint-provider.js';

/*
 * API 1.2, "Single sign-on (OpenID Connect) per tenant", over real HTTP on PGlite and PostgreSQL, against
 * panva's oidc-provider on loopback (its own login and consent pages), a small token-endpoint provider
 * for the ID tokens a real provider never issues, and a DNS server on loopback for the TXT records.
 */

const backends = [{ name: 'pglite' }, ...(TEST_DATABASE_URL ? [{ name: 'postgres' }] : [])];

describe.each(backends)('single sign-on on $name', ({ name }) => {
  let server: TestServer;
  let db: TestDatabase | undefined;
  let dns: TxtDnsServer;
  let op: TestOpenIdProvider;
  let fake: TokenEndpointProvider;
  let url: string;
  let inbox: TestInbox;

  beforeAll(async () => {
    inbox = await new TestInbox().start();
    dns = await startTxtDnsServer();
    op = await startOpenIdProvider(REDIRECT_URI);
    fake = await startTokenEndpointProvider();
    if (name === 'postgres') db = await createTestDatabase(TEST_DATABASE_URL as string);
    server = await startTestServer({
      DATABASE_URL: db?.url ?? 'memory:',
      DNS_SERVERS: dns.address,
      SMTP_URL: inbox.url,
      OUTBOUND_ALLOW_LOOPBACK: 'true',
      LOG_LEVEL: 'debug',
    });
    url = server.baseUrl;
  });
  afterAll(async () => {
    if (process.env.SSO_DEBUG) console.log(server.logs.filter((l) => l.includes('SSO')).join('\n'));
    await server?.close();
    await db?.drop();
    await op?.close();
    await fake?.close();
    await dns?.close();
    await inbox?.stop();
  });

  /** Verifies the owner's address with the link its registration mailed (inviting needs it). */
  async function verifyOwnerEmail(tenant: SsoTenant) {
    const mail = await inbox.waitFor(tenant.ownerEmail, 1);
    const token = TestInbox.tokenOf(mail, '/verify-email');
    expect((await api(url, '/auth/email/verify', { body: { token } })).status).toBe(204);
  }

  /** A member of the tenant at `email` with a password (invited by the owner, accepted): its id. */
  async function invitedMember(tenant: SsoTenant, email: string) {
    await verifyOwnerEmail(tenant);
    const token = await inbox.tokenFrom(email, '/accept-invitation', async () => {
      const invited = await api(url, '/tenants/me/invitations', {
        token: tenant.ownerToken,
        body: { email, role: 'member' },
      });
      expect(invited.status).toBe(201);
    });
    type Accepted = { user: { id: string }; accessToken: string; refreshToken: string };
    const accepted = await api<Accepted>(url, '/auth/invitations/accept', {
      body: { token, password: PASSWORD },
    });
    expect(accepted.status, JSON.stringify(accepted.body)).toBeLessThan(300);
    return {
      userId: accepted.body.user.id,
      accessToken: accepted.body.accessToken,
      refreshToken: accepted.body.refreshToken,
    };
  }

  /** Signs `email` in through oidc-provider as `sub`: the callback's answer. */
  async function signInWithProvider(email: string, sub: string, returnTo?: string) {
    const { authorizationUrl, stateCookie } = await startSso(url, email, returnTo);
    const back = await op.signIn(authorizationUrl, sub);
    return callback(url, back, stateCookie);
  }

  describe('signing in through oidc-provider', () => {
    it('creates the user just in time (defaultRole, verified email, amr sso) and 303s to returnTo with the auth cookies', async () => {
      const tenant = await ssoTenant(url, dns, op, { defaultRole: 'admin' });
      const email = `ada@${tenant.domain}`;
      op.accounts.set('sub-ada', { email });
      const start = await startSso(url, email, `${APP_URL}/dashboard?tab=1`);
      expect(start.cookie?.attributes).toMatchObject({
        path: '/api/v1/auth/sso',
        'max-age': '600',
        httponly: true,
        secure: true,
        samesite: 'Lax',
      });
      const authorization = new URL(start.authorizationUrl);
      expect(authorization.origin).toBe(op.issuer);
      expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
      expect(authorization.searchParams.get('state')).toBeTruthy();
      expect(authorization.searchParams.get('nonce')).toBeTruthy();
      expect(authorization.searchParams.get('redirect_uri')).toBe(REDIRECT_URI);
      const back = await op.signIn(start.authorizationUrl, 'sub-ada');
      const answer = await callback(url, back, start.stateCookie);
      expect(answer.status).toBe(303);
      expect(answer.location).toBe(`${APP_URL}/dashboard?tab=1`);
      expect(answer.cookies.sso_state?.attributes['max-age']).toBe('0');
      const access = answer.cookies.access_token?.value ?? '';
      expect(claimsOf(access)).toMatchObject({ amr: ['sso'], role: 'admin', tid: tenant.tenantId });
      const me = await api<{ email: string; emailVerified: boolean; role: string }>(url, '/users/me', {
        token: access,
      });
      expect(me.body).toMatchObject({ email, emailVerified: true, role: 'admin' });
      const events = await api<{ events: { type: string }[] }>(url, '/tenants/me/audit-events', {
        token: tenant.ownerToken,
      });
      const types = events.body.events.map((e) => e.type);
      expect(types).toEqual(
        expect.arrayContaining([
          'sso_user_provisioned',
          'sso_login',
          'sso_configured',
          'domain_verified',
          'domain_added',
        ]),
      );
      // A second login finds the same user by (issuer, sub).
      const again = await signInWithProvider(email, 'sub-ada');
      expect(claimsOf(again.cookies.access_token?.value ?? '').sub).toBe(claimsOf(access).sub);
      expect(JSON.stringify(events.body)).not.toContain(op.clientSecret);
    });

    it('links the first login to the tenant’s user with that address; a changed sub is refused (identity_mismatch)', async () => {
      const tenant = await ssoTenant(url, dns, op);
      const email = `invited-${randomUUID().slice(0, 6)}@${tenant.domain}`;
      const member = await invitedMember(tenant, email);
      const sub = `sub-${randomUUID()}`;
      op.accounts.set(sub, { email });
      const first = await signInWithProvider(email, sub);
      expect(first.status).toBe(303);
      expect(claimsOf(first.cookies.access_token?.value ?? '').sub).toBe(member.userId);
      op.accounts.set('sub-impostor', { email });
      const impostor = await signInWithProvider(email, 'sub-impostor');
      expect(ssoErrorCode(impostor)).toBe('identity_mismatch');
      expect(impostor.cookies.access_token).toBeUndefined();
      const events = await api<{ events: { type: string; subjectId: string | null }[] }>(
        url,
        '/tenants/me/audit-events',
        { token: tenant.ownerToken },
      );
      expect(events.body.events.filter((e) => e.type === 'sso_identity_linked')).toEqual([
        expect.objectContaining({ subjectId: member.userId }),
      ]);
    });

    it('never links an owner by address: its first SSO sign-in is link_required, and nothing is linked', async () => {
      const tenant = await ssoTenant(url, dns, op);
      const sub = `sub-${randomUUID()}`;
      op.accounts.set(sub, { email: tenant.ownerEmail });
      const refused = await signInWithProvider(tenant.ownerEmail, sub);
      expect(ssoErrorCode(refused)).toBe('link_required');
      expect(refused.cookies.access_token).toBeUndefined();
      // Still refused: the refusal linked nothing.
      expect(ssoErrorCode(await signInWithProvider(tenant.ownerEmail, sub))).toBe('link_required');
      const events = await api<{ events: { type: string }[] }>(url, '/tenants/me/audit-events', {
        token: tenant.ownerToken,
      });
      expect(events.body.events.map((e) => e.type)).not.toContain('sso_identity_linked');
    });

    it('refuses an email outside the tenant’s verified domains (domain_mismatch)', async () => {
      const tenant = await ssoTenant(url, dns, op);
      const sub = `sub-${randomUUID()}`;
      op.accounts.set(sub, { email: `mallory@elsewhere-${randomUUID().slice(0, 6)}.example.com` });
      const { authorizationUrl, stateCookie } = await startSso(url, `x@${tenant.domain}`);
      const answer = await callback(url, await op.signIn(authorizationUrl, sub), stateCookie);
      expect(ssoErrorCode(answer)).toBe('domain_mismatch');
      const unverified = `y@unverified-${randomUUID().slice(0, 6)}.example.com`;
      expectProblem(await api(url, '/auth/sso/start', { body: { email: unverified } }), 404, 'not_found');
    });

    it('refuses an address of another tenant (email_taken), and an address of a domain another tenant verified', async () => {
      // An address of the domain, registered in a tenant of its own before the domain was verified.
      const domain = newDomain();
      const stray = `stray@${domain}`;
      const elsewhere = await api(url, '/auth/register', { body: { email: stray, password: PASSWORD } });
      expect(elsewhere.status).toBe(201);
      const tenant = await ssoTenant(url, dns, op, { domain });
      const other = await ssoTenant(url, dns, op);
      // The provider of `tenant` says the user is the owner of `other`.
      const sub = `sub-${randomUUID()}`;
      op.accounts.set(sub, { email: other.ownerEmail });
      const { authorizationUrl, stateCookie } = await startSso(url, `z@${tenant.domain}`);
      const answer = await callback(url, await op.signIn(authorizationUrl, sub), stateCookie);
      expect(ssoErrorCode(answer)).toBe('domain_mismatch');
      // An address of a verified domain of `tenant` whose account lives in another tenant.
      op.accounts.set('sub-stray', { email: stray });
      expect(ssoErrorCode(await signInWithProvider(stray, 'sub-stray'))).toBe('email_taken');
    });

    it('refuses a tampered state, a missing cookie, and another origin as returnTo', async () => {
      const tenant = await ssoTenant(url, dns, op);
      const email = `bob@${tenant.domain}`;
      op.accounts.set('sub-bob', { email });
      const first = await startSso(url, email);
      const back = await op.signIn(first.authorizationUrl, 'sub-bob');
      const tampered = new URL(back);
      tampered.searchParams.set('state', 'tampered');
      expect(ssoErrorCode(await callback(url, tampered, first.stateCookie))).toBe('invalid_state');
      expect(ssoErrorCode(await callback(url, back, undefined))).toBe('invalid_state');
      const second = await startSso(url, email);
      // Another browser's cookie does not go with this state.
      expect(ssoErrorCode(await callback(url, back, second.stateCookie))).toBe('invalid_state');
      const foreign = await startSso(url, email, 'https://evil.example/steal');
      const answer = await callback(
        url,
        await op.signIn(foreign.authorizationUrl, 'sub-bob'),
        foreign.stateCookie,
      );
      expect(answer.status).toBe(303);
      expect(answer.location).toBe(APP_URL);
    });

    it('the typed client starts a sign-in: sso.start answers the authorization URL', async () => {
      const tenant = await ssoTenant(url, dns, op);
      const client = createTenantAuthClient({ baseUrl: `${url}/api/v1`, mode: 'bearer' });
      const { url: authorizationUrl } = await client.sso.start({ email: `kim@${tenant.domain}` });
      expect(new URL(authorizationUrl).origin).toBe(op.issuer);
      client.close();
    });

    it('passes on the provider’s error (idp_error)', async () => {
      const tenant = await ssoTenant(url, dns, op);
      const { authorizationUrl, stateCookie } = await startSso(url, `eve@${tenant.domain}`);
      const state = new URL(authorizationUrl).searchParams.get('state') ?? '';
      const denied = new URL(REDIRECT_URI);
      denied.search = new URLSearchParams({ error: 'access_denied', state, iss: op.issuer }).toString();
      expect(ssoErrorCode(await callback(url, denied, stateCookie))).toBe('idp_error');
    });
  });

  describe('ID tokens a provider must not be trusted with', () => {
    const cases = [
      ['another audience', 'audience'],
      ['another nonce', 'nonce'],
      ['an expired token', 'expired'],
      ['a token signed by a key the provider does not publish', 'unpublished-key'],
      ['another issuer', 'issuer'],
    ] as const;
    it.each(cases)('refuses %s (invalid_id_token)', async (_what, tamper) => {
      const tenant = await ssoTenant(url, dns, fake);
      const email = `t-${tamper}@${tenant.domain}`;
      fake.next = { sub: `sub-${randomUUID()}`, email, tamper };
      const { authorizationUrl, stateCookie } = await startSso(url, email);
      const answer = await callback(url, await fake.signIn(authorizationUrl), stateCookie);
      expect(ssoErrorCode(answer)).toBe('invalid_id_token');
      expect(answer.cookies.access_token).toBeUndefined();
    });

    it('accepts the same flow untampered, with mfa when the provider’s amr says so', async () => {
      const tenant = await ssoTenant(url, dns, fake);
      const email = `t-ok@${tenant.domain}`;
      fake.next = { sub: `sub-${randomUUID()}`, email, amr: ['pwd', 'mfa'] };
      const { authorizationUrl, stateCookie } = await startSso(url, email);
      const answer = await callback(url, await fake.signIn(authorizationUrl), stateCookie);
      expect(answer.status).toBe(303);
      expect(claimsOf(answer.cookies.access_token?.value ?? '').amr).toEqual(['sso', 'mfa']);
    });
  });

  describe('enforce', () => {
    it('lets owners log in with a password under enforce, keeps SSO sessions; a just-in-time user has no password', async () => {
      const tenant = await ssoTenant(url, dns, op);
      // A member with a password, before enforcement.
      const memberEmail = `member@${tenant.domain}`;
      op.accounts.set('sub-member', { email: memberEmail });
      const viaSso = await signInWithProvider(memberEmail, 'sub-member');
      const ssoAccess = viaSso.cookies.access_token?.value ?? '';
      expect((await api(url, '/users/me', { token: ssoAccess })).status).toBe(200);
      const ownerLogin = await api(url, '/auth/login', {
        body: { email: tenant.ownerEmail, password: PASSWORD },
      });
      expect(ownerLogin.status).toBe(200);
      const put = await api(url, '/tenants/me/sso', {
        method: 'PUT',
        token: tenant.ownerToken,
        body: { issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret, enforce: true },
      });
      expect(put.status).toBe(200);
      // The owner keeps the way back in.
      expect(
        (await api(url, '/auth/login', { body: { email: tenant.ownerEmail, password: PASSWORD } })).status,
      ).toBe(200);
      // The member's SSO session stays; a JIT user has no password at all.
      expect((await api(url, '/sessions', { token: ssoAccess })).status).toBe(200);
      expectProblem(
        await api(url, '/auth/login', { body: { email: memberEmail, password: PASSWORD } }),
        401,
        'invalid_credentials',
      );
    });

    it("refuses the passkey login of a held user (sso_required), not an owner's", async () => {
      const tenant = await ssoTenant(url, dns, op);
      const email = `keyed@${tenant.domain}`;
      op.accounts.set('sub-keyed', { email });
      const viaSso = await signInWithProvider(email, 'sub-keyed');
      const ssoAccess = viaSso.cookies.access_token?.value ?? '';
      const passkeyOf = async (token: string) => {
        const authenticator = new SoftwareAuthenticator(APP_URL);
        const options = await api(url, '/auth/passkeys/registration/options', { method: 'POST', token });
        expect(options.status).toBe(200);
        const added = await api(url, '/auth/passkeys', {
          token,
          body: { credential: authenticator.register(options.body as never) },
        });
        expect(added.status).toBe(201);
        return authenticator;
      };
      const passkeyLogin = async (authenticator: SoftwareAuthenticator) => {
        const options = await api(url, '/auth/passkeys/login/options', { method: 'POST' });
        return api(url, '/auth/passkeys/login', {
          body: { credential: authenticator.authenticate(options.body as never) },
        });
      };
      const member = await passkeyOf(ssoAccess);
      expect((await passkeyLogin(member)).status).toBe(200);
      const put = await api(url, '/tenants/me/sso', {
        method: 'PUT',
        token: tenant.ownerToken,
        body: { issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret, enforce: true },
      });
      expect(put.status).toBe(200);
      expectProblem(await passkeyLogin(member), 403, 'sso_required');
      // The owner's way back in holds for passkeys too.
      const owner = await passkeyOf(tenant.ownerToken);
      expect((await passkeyLogin(owner)).status).toBe(200);
    });

    it('refuses the right password and an earlier reset link of a held user (sso_required), revokes its password session, mails no reset', async () => {
      const tenant = await ssoTenant(url, dns, op);
      const email = `held@${tenant.domain}`;
      op.accounts.set('sub-held', { email });
      expect((await signInWithProvider(email, 'sub-held')).status).toBe(303);
      // The user sets a password through a reset link, and logs in with it.
      const forgot = () => api(url, '/auth/password/forgot', { body: { email } });
      const firstLink = await inbox.tokenFrom(email, '/reset-password', forgot);
      expect(
        (await api(url, '/auth/password/reset', { body: { token: firstLink, password: PASSWORD } })).status,
      ).toBe(204);
      const login = await api<{ refreshToken: string }>(url, '/auth/login', {
        body: { email, password: PASSWORD },
      });
      expect(login.status).toBe(200);
      const laterLink = await inbox.tokenFrom(email, '/reset-password', forgot);
      // A reset revoked every session: an SSO session made after it.
      const ssoRefresh = (await signInWithProvider(email, 'sub-held')).cookies.refresh_token?.value ?? '';
      const enforce = await api(url, '/tenants/me/sso', {
        method: 'PUT',
        token: tenant.ownerToken,
        body: { issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret, enforce: true },
      });
      expect(enforce.status).toBe(200);
      // The password session is revoked; the SSO session is not.
      expectProblem(
        await api(url, '/auth/refresh', { body: { refreshToken: login.body.refreshToken } }),
        401,
        'invalid_token',
      );
      expect((await api(url, '/auth/refresh', { body: { refreshToken: ssoRefresh } })).status).toBe(200);
      expectProblem(
        await api(url, '/auth/login', { body: { email, password: PASSWORD } }),
        403,
        'sso_required',
      );
      // A wrong password still answers as a wrong password: nothing is told before the password is right.
      expectProblem(
        await api(url, '/auth/login', { body: { email, password: `${PASSWORD}x` } }),
        401,
        'invalid_credentials',
      );
      expectProblem(
        await api(url, '/auth/password/reset', { body: { token: laterLink, password: `${PASSWORD}-2` } }),
        403,
        'sso_required',
      );
      const mailed = inbox.to(email).length;
      expect((await forgot()).status).toBe(202);
      await server.auth.whenIdle();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(inbox.to(email)).toHaveLength(mailed);
    });

    it('a second-factor challenge begun before enforce gives no password session after it (sso_required)', async () => {
      const tenant = await ssoTenant(url, dns, op);
      const email = `pending@${tenant.domain}`;
      op.accounts.set('sub-pending', { email });
      const viaSso = await signInWithProvider(email, 'sub-pending');
      const ssoAccess = viaSso.cookies.access_token?.value ?? '';
      const { recoveryCodes } = await enrolTotp(url, ssoAccess, new Date());
      // A password, set through a reset link before enforcement.
      const link = await inbox.tokenFrom(email, '/reset-password', () =>
        api(url, '/auth/password/forgot', { body: { email } }),
      );
      expect(
        (await api(url, '/auth/password/reset', { body: { token: link, password: PASSWORD } })).status,
      ).toBe(204);
      const mfaToken = await passwordStep(url, email);
      const put = await api(url, '/tenants/me/sso', {
        method: 'PUT',
        token: tenant.ownerToken,
        body: { issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret, enforce: true },
      });
      expect(put.status).toBe(200);
      const verified = await api(url, '/auth/mfa/verify', {
        body: { mfaToken, method: 'recovery_code', code: recoveryCodes[0] },
      });
      expectProblem(verified, 403, 'sso_required');
      expect(setCookies(verified.res).access_token).toBeUndefined();
    });

    it('accepting an invitation into a held address makes the account but no password session (sso_required)', async () => {
      const tenant = await ssoTenant(url, dns, op, { enforce: true });
      // An owner may invite once its address is verified.
      await verifyOwnerEmail(tenant);
      const ownerToken = tenant.ownerToken;
      const email = `invited@${tenant.domain}`;
      const token = await inbox.tokenFrom(email, '/accept-invitation', async () => {
        const invited = await api(url, '/tenants/me/invitations', {
          token: ownerToken,
          body: { email, role: 'member' },
        });
        expect(invited.status).toBe(201);
      });
      const accepted = await api(url, '/auth/invitations/accept', { body: { token, password: PASSWORD } });
      expectProblem(accepted, 403, 'sso_required');
      expect(setCookies(accepted.res).access_token).toBeUndefined();
      // The account exists (the password stays refused); the provider signs it in.
      expectProblem(
        await api(url, '/auth/login', { body: { email, password: PASSWORD } }),
        403,
        'sso_required',
      );
      op.accounts.set('sub-invited', { email });
      const viaSso = await signInWithProvider(email, 'sub-invited');
      expect(viaSso.status).toBe(303);
      expect(claimsOf(viaSso.cookies.access_token?.value ?? '').amr).toEqual(['sso']);
    });
  });

  describe('1.3: verified domains belong to their tenant, held users stay held', () => {
    it('refuses registering, and accepting another tenant’s invitation, with an address of a connected domain (sso_required)', async () => {
      const tenant = await ssoTenant(url, dns, op);
      const email = `newcomer-${randomUUID().slice(0, 6)}@${tenant.domain}`;
      expectProblem(
        await api(url, '/auth/register', { body: { email, password: PASSWORD } }),
        403,
        'sso_required',
      );
      // Another tenant may invite the address; accepting is refused.
      const other = await ssoTenant(url, dns, op);
      await verifyOwnerEmail(other);
      const token = await inbox.tokenFrom(email, '/accept-invitation', async () => {
        const invited = await api(url, '/tenants/me/invitations', {
          token: other.ownerToken,
          body: { email, role: 'member' },
        });
        expect(invited.status).toBe(201);
      });
      expectProblem(
        await api(url, '/auth/invitations/accept', { body: { token, password: PASSWORD } }),
        403,
        'sso_required',
      );
      // The tenant's own invitation still makes the account.
      expect((await invitedMember(tenant, email)).userId).toBeTruthy();
    });

    it('an owner demoted under enforce loses its password sessions in the same change', async () => {
      const tenant = await ssoTenant(url, dns, op, { enforce: true });
      await verifyOwnerEmail(tenant);
      const email = `second-owner-${randomUUID().slice(0, 6)}@${tenant.domain}`;
      const token = await inbox.tokenFrom(email, '/accept-invitation', async () => {
        const invited = await api(url, '/tenants/me/invitations', {
          token: tenant.ownerToken,
          body: { email, role: 'owner' },
        });
        expect(invited.status).toBe(201);
      });
      // An owner is not held: a password session.
      const accepted = await api<{ user: { id: string }; refreshToken: string }>(
        url,
        '/auth/invitations/accept',
        {
          body: { token, password: PASSWORD },
        },
      );
      expect(accepted.status).toBe(201);
      const demoted = await api(url, `/tenants/me/members/${accepted.body.user.id}`, {
        method: 'PATCH',
        token: tenant.ownerToken,
        body: { role: 'member' },
      });
      expect(demoted.status).toBe(200);
      expectProblem(
        await api(url, '/auth/refresh', { body: { refreshToken: accepted.body.refreshToken } }),
        401,
        'invalid_token',
      );
    });

    it('a confirmed address change into an enforced domain revokes the asking password session', async () => {
      const tenant = await ssoTenant(url, dns, op, { enforce: true });
      const outside = `outside-${randomUUID().slice(0, 6)}@elsewhere-${randomUUID().slice(0, 6)}.example.org`;
      const member = await invitedMember(tenant, outside);
      const refreshOf = await api<{ refreshToken: string }>(url, '/auth/login', {
        body: { email: outside, password: PASSWORD },
      });
      expect(refreshOf.status).toBe(200);
      const newEmail = `moved-${randomUUID().slice(0, 6)}@${tenant.domain}`;
      const token = await inbox.tokenFrom(newEmail, '/confirm-email-change', async () => {
        const asked = await api(url, '/auth/email/change', {
          token: member.accessToken,
          body: { newEmail, password: PASSWORD },
        });
        expect(asked.status).toBe(202);
      });
      const confirmed = await api(url, '/auth/email/change/confirm', { body: { token } });
      expect(confirmed.status).toBeLessThan(300);
      // Every password session is gone: the one that asked as well as the others.
      expectProblem(
        await api(url, '/auth/refresh', { body: { refreshToken: member.refreshToken } }),
        401,
        'invalid_token',
      );
      expectProblem(
        await api(url, '/auth/refresh', { body: { refreshToken: refreshOf.body.refreshToken } }),
        401,
        'invalid_token',
      );
    });

    it('refuses a held user’s re-authentication with a password (sso_required): it happens at the provider', async () => {
      const tenant = await ssoTenant(url, dns, op, { enforce: true });
      const email = `held-reauth-${randomUUID().slice(0, 6)}@${tenant.domain}`;
      const sub = `sub-${randomUUID()}`;
      op.accounts.set(sub, { email });
      const viaSso = await signInWithProvider(email, sub);
      const access = viaSso.cookies.access_token?.value ?? '';
      expectProblem(
        await api(url, '/auth/reauthenticate', { token: access, body: { password: PASSWORD } }),
        403,
        'sso_required',
      );
      // An owner is not held: its re-authentication with a password still works.
      expect(
        (await api(url, '/auth/reauthenticate', { token: tenant.ownerToken, body: { password: PASSWORD } }))
          .status,
      ).toBe(200);
    });
  });
});
