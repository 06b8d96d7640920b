import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTxtDnsServer, type TxtDnsServer } from './helpers/dns-txt.js';
import { api, expectProblem, PASSWORD, setCookies } from './helpers/http.js';
import { claimsOf, passwordStep, totpCode } from './helpers/mfa.js';
import { startOpenIdProvider, type TestOpenIdProvider } from './helpers/oidc-provider.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from './helpers/postgres.js';
import {
  APP_URL,
  type CallbackAnswer,
  callback,
  REDIRECT_URI,
  ssoErrorCode,
  ssoTenant,
  startSso,
} from './helpers/sso.js';
import { startTestServer, type TestServer } from './helpers/test-server.js';
import { startTokenEndpointProvider, type TokenEndpointProvider } from './helpers/token-endpoint-provider.js';

/*
 * API 1.3, "Single sign-on: rules that change in 1.3": `POST /auth/sso/reauthenticate` and its callback,
 * over real HTTP on PGlite and PostgreSQL, against panva's oidc-provider on loopback (its own login
 * pages) and, for an ID token a real provider would not issue (an old `auth_time`), a small
 * token-endpoint provider.
 */

const backends = [{ name: 'pglite' }, ...(TEST_DATABASE_URL ? [{ name: 'postgres' }] : [])];

/** A session as the callback's cookies carry it. */
interface Signed {
  accessToken: string;
  refreshToken: string;
}

const signedOf = (answer: CallbackAnswer): Signed => ({
  accessToken: answer.cookies.access_token?.value ?? '',
  refreshToken: answer.cookies.refresh_token?.value ?? '',
});

describe.each(backends)('SSO re-authentication on $name', ({ name }) => {
  let server: TestServer;
  let db: TestDatabase | undefined;
  let dns: TxtDnsServer;
  let op: TestOpenIdProvider;
  let fake: TokenEndpointProvider;
  let url: string;

  beforeAll(async () => {
    dns = await startTxtDnsServer();
    op = await startOpenIdProvider(REDIRECT_URI);
    fake = await startTokenEndpointProvider();
    if (name === 'postgres') db = await createTestDatabase(TEST_DATABASE_URL as string);
    server = await startTestServer({
      DATABASE_URL: db?.url ?? 'memory:',
      DNS_SERVERS: dns.address,
      OUTBOUND_ALLOW_LOOPBACK: 'true',
    });
    url = server.baseUrl;
  });
  afterAll(async () => {
    await server?.close();
    await db?.drop();
    await op?.close();
    await fake?.close();
    await dns?.close();
  });

  /** Signs `email` in through oidc-provider as `sub`: the new session. */
  async function signIn(email: string, sub: string): Promise<Signed> {
    const { authorizationUrl, stateCookie } = await startSso(url, email);
    const answer = await callback(url, await op.signIn(authorizationUrl, sub), stateCookie);
    expect(answer.status).toBe(303);
    return signedOf(answer);
  }

  /** `POST /auth/sso/reauthenticate`: the authorization URL and the `sso_state` cookie. */
  async function reauthenticate(accessToken: string, returnTo?: string) {
    const r = await api<{ url: string }>(url, '/auth/sso/reauthenticate', {
      token: accessToken,
      body: returnTo === undefined ? {} : { returnTo },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const cookie = setCookies(r.res).sso_state;
    expect(cookie?.value).toBeTruthy();
    return { authorizationUrl: r.body.url, stateCookie: cookie?.value ?? '', cookie };
  }

  const refresh = (refreshToken: string) => api(url, '/auth/refresh', { body: { refreshToken } });

  it('asks the provider for a fresh login, then rotates the same session (auth_time now, amr keeps sso) and 303s to returnTo', async () => {
    const tenant = await ssoTenant(url, dns, op);
    const email = `ada@${tenant.domain}`;
    const sub = `sub-${randomUUID()}`;
    op.accounts.set(sub, { email });
    const before = await signIn(email, sub);
    const started = await reauthenticate(before.accessToken, `${APP_URL}/settings`);
    expect(started.cookie?.attributes).toMatchObject({ path: '/api/v1/auth/sso', httponly: true });
    const authorization = new URL(started.authorizationUrl);
    expect(authorization.origin).toBe(op.issuer);
    expect(authorization.searchParams.get('prompt')).toBe('login');
    expect(authorization.searchParams.get('max_age')).toBe('0');
    const answer = await callback(url, await op.signIn(started.authorizationUrl, sub), started.stateCookie);
    expect(answer.status).toBe(303);
    expect(answer.location).toBe(`${APP_URL}/settings`);
    const after = signedOf(answer);
    const [old, rotated] = [claimsOf(before.accessToken), claimsOf(after.accessToken)];
    expect(rotated.sid).toBe(old.sid);
    expect(rotated.amr).toEqual(['sso']);
    expect(rotated.auth_time as number).toBeGreaterThanOrEqual(old.auth_time as number);
    expect(after.refreshToken).not.toBe(before.refreshToken);
    // The new refresh token works; the previous one is spent (no grace): a replay.
    expect((await refresh(after.refreshToken)).status).toBe(200);
    expect((await refresh(before.refreshToken)).status).toBe(401);
  });

  it('refuses another identity (identity_mismatch) with a warn line, and leaves the session as it was', async () => {
    const tenant = await ssoTenant(url, dns, op);
    const [ada, bob] = [`ada@${tenant.domain}`, `bob@${tenant.domain}`];
    const [adaSub, bobSub] = [`sub-${randomUUID()}`, `sub-${randomUUID()}`];
    op.accounts.set(adaSub, { email: ada });
    op.accounts.set(bobSub, { email: bob });
    const session = await signIn(ada, adaSub);
    const started = await reauthenticate(session.accessToken);
    const answer = await callback(
      url,
      await op.signIn(started.authorizationUrl, bobSub),
      started.stateCookie,
    );
    expect(ssoErrorCode(answer)).toBe('identity_mismatch');
    expect(answer.cookies.access_token).toBeUndefined();
    expect(server.logs.some((l) => l.includes('SSO callback refused') && l.includes('another subject'))).toBe(
      true,
    );
    // Unchanged: its refresh token is still the current one.
    expect((await refresh(session.refreshToken)).status).toBe(200);
  });

  it('refuses an ID token whose auth_time is older than REAUTH_MAX_AGE_SECONDS (invalid_id_token)', async () => {
    const tenant = await ssoTenant(url, dns, fake);
    const email = `ada@${tenant.domain}`;
    const sub = `sub-${randomUUID()}`;
    const now = Math.floor(Date.now() / 1000);
    fake.next = { sub, email, authTime: now };
    const first = await startSso(url, email);
    const session = signedOf(
      await callback(url, await fake.signIn(first.authorizationUrl), first.stateCookie),
    );
    fake.next = { sub, email, authTime: now - 3600 };
    const started = await reauthenticate(session.accessToken);
    const answer = await callback(url, await fake.signIn(started.authorizationUrl), started.stateCookie);
    expect(ssoErrorCode(answer)).toBe('invalid_id_token');
    expect((await refresh(session.refreshToken)).status).toBe(200);
  });

  it('links an owner after link_required when the provider’s verified address is the owner’s, and audits it', async () => {
    const tenant = await ssoTenant(url, dns, op);
    const sub = `sub-${randomUUID()}`;
    op.accounts.set(sub, { email: tenant.ownerEmail });
    const { authorizationUrl, stateCookie } = await startSso(url, tenant.ownerEmail);
    expect(ssoErrorCode(await callback(url, await op.signIn(authorizationUrl, sub), stateCookie))).toBe(
      'link_required',
    );
    // A provider address other than the owner's links nothing.
    const stranger = `sub-${randomUUID()}`;
    op.accounts.set(stranger, { email: `someone@${tenant.domain}` });
    const wrong = await reauthenticate(tenant.ownerToken);
    const refused = await callback(url, await op.signIn(wrong.authorizationUrl, stranger), wrong.stateCookie);
    expect(ssoErrorCode(refused)).toBe('identity_mismatch');
    const started = await reauthenticate(tenant.ownerToken);
    const answer = await callback(url, await op.signIn(started.authorizationUrl, sub), started.stateCookie);
    expect(answer.status).toBe(303);
    expect(answer.location).toBe(APP_URL);
    const linked = signedOf(answer);
    expect(claimsOf(linked.accessToken)).toMatchObject({
      sid: claimsOf(tenant.ownerToken).sid,
      amr: ['sso'],
      role: 'owner',
    });
    // From now on the owner signs in through the provider.
    const again = await startSso(url, tenant.ownerEmail);
    const signedIn = await callback(url, await op.signIn(again.authorizationUrl, sub), again.stateCookie);
    expect(ssoErrorCode(signedIn)).toBeNull();
    expect(claimsOf(signedIn.cookies.access_token?.value ?? '')).toMatchObject({ role: 'owner' });
    const events = await api<{ events: { type: string }[] }>(url, '/tenants/me/audit-events', {
      token: linked.accessToken,
    });
    const types = events.body.events.map((e) => e.type);
    expect(types.filter((t) => t === 'sso_identity_linked')).toHaveLength(1);
    expect(types).toContain('reauthenticated');
  });

  it('links an owner only from a recent session: one without the owner’s second factor is 403 reauthentication_required', async () => {
    const tenant = await ssoTenant(url, dns, op);
    const setup = await api<{ secret: string }>(url, '/auth/mfa/totp/setup', {
      method: 'POST',
      token: tenant.ownerToken,
    });
    const confirmed = await api<{ recoveryCodes: string[] }>(url, '/auth/mfa/totp/confirm', {
      token: tenant.ownerToken,
      body: { code: totpCode(setup.body.secret, new Date()) },
    });
    expect(confirmed.status).toBe(200);
    const strong = await api<{ accessToken: string }>(url, '/auth/mfa/verify', {
      body: {
        mfaToken: await passwordStep(url, tenant.ownerEmail),
        method: 'recovery_code',
        code: confirmed.body.recoveryCodes[0],
      },
    });
    expect(strong.status).toBe(200);
    // The token from before the factor has no `mfa`: by the rule of every recent route, it links nothing.
    const stale = await api(url, '/auth/sso/reauthenticate', { token: tenant.ownerToken, body: {} });
    expectProblem(stale, 403, 'reauthentication_required');
    expect(setCookies(stale.res).sso_state).toBeUndefined();
    const sub = `sub-${randomUUID()}`;
    op.accounts.set(sub, { email: tenant.ownerEmail });
    const started = await reauthenticate(strong.body.accessToken);
    const answer = await callback(url, await op.signIn(started.authorizationUrl, sub), started.stateCookie);
    expect(answer.status).toBe(303);
    expect(ssoErrorCode(answer)).toBeNull();
    // Once linked, a re-authentication is no link: the owner's own identity, from any session.
    const again = await api(url, '/auth/sso/reauthenticate', { token: tenant.ownerToken, body: {} });
    expect(again.status).toBe(200);
  });

  it('lets a user SSO provisioned (no password) delete its account without a password after a recent re-authentication', async () => {
    const tenant = await ssoTenant(url, dns, fake);
    const email = `ada@${tenant.domain}`;
    const sub = `sub-${randomUUID()}`;
    // A sign-in an hour old: not recent.
    fake.next = { sub, email, authTime: Math.floor(Date.now() / 1000) - 3600 };
    const first = await startSso(url, email);
    const session = signedOf(
      await callback(url, await fake.signIn(first.authorizationUrl), first.stateCookie),
    );
    const remove = (accessToken: string, body: Record<string, unknown>) =>
      api(url, '/users/me', { method: 'DELETE', token: accessToken, body });
    expectProblem(await remove(session.accessToken, {}), 403, 'reauthentication_required');
    fake.next = { sub, email, authTime: Math.floor(Date.now() / 1000) };
    const started = await reauthenticate(session.accessToken);
    const answer = await callback(url, await fake.signIn(started.authorizationUrl), started.stateCookie);
    expect(answer.status).toBe(303);
    const recent = signedOf(answer);
    expect((await remove(recent.accessToken, {})).status).toBe(204);
    expect((await api(url, '/users/me', { token: recent.accessToken })).status).toBe(401);
  });

  it('still asks a user with a password for it, even after a recent SSO authentication', async () => {
    const tenant = await ssoTenant(url, dns, op);
    const sub = `sub-${randomUUID()}`;
    op.accounts.set(sub, { email: tenant.ownerEmail });
    const started = await reauthenticate(tenant.ownerToken);
    const linked = signedOf(
      await callback(url, await op.signIn(started.authorizationUrl, sub), started.stateCookie),
    );
    expect(claimsOf(linked.accessToken).amr).toEqual(['sso']);
    expectProblem(
      await api(url, '/users/me', { method: 'DELETE', token: linked.accessToken, body: {} }),
      400,
      'validation_failed',
    );
  });

  it('is not_found for a tenant without an SSO connection', async () => {
    const reg = await api<{ accessToken: string }>(url, '/auth/register', {
      body: { email: `solo-${randomUUID().slice(0, 8)}@example.com`, password: PASSWORD },
    });
    expect(reg.status).toBe(201);
    expectProblem(
      await api(url, '/auth/sso/reauthenticate', { token: reg.body.accessToken, body: {} }),
      404,
      'not_found',
    );
  });
});
