import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTxtDnsServer, type TxtDnsServer } from './helpers/dns-txt.js';
import { api, PASSWORD } from './helpers/http.js';
import { claimsOf, enrolTotp } from './helpers/mfa.js';
import { startOpenIdProvider, type TestOpenIdProvider } from './helpers/oidc-provider.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from './helpers/postgres.js';
import { callback, newDomain, REDIRECT_URI, ssoErrorCode, ssoTenant, startSso } from './helpers/sso.js';
import { startTestServer, type TestServer } from './helpers/test-server.js';
import { startTokenEndpointProvider, type TokenEndpointProvider } from './helpers/token-endpoint-provider.js';

/*
 * API 1.3, "Single sign-on: rules that change in 1.3" and "Rules that change in 1.3": what the server
 * reads of a provider's claims (the userinfo endpoint, `email_verified`) and what it logs when it refuses
 * a callback, over real HTTP on PGlite and PostgreSQL, against oidc-provider at its default
 * configuration and a small token-endpoint provider for answers a real provider never gives.
 */

/** The log lines (pino JSON) at `warn`. */
const warnLines = (server: TestServer) =>
  server.logs
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.level === 'warn');

const backends = [{ name: 'pglite' }, ...(TEST_DATABASE_URL ? [{ name: 'postgres' }] : [])];

describe.each(backends)('SSO claims and refusals on $name', ({ name }) => {
  let server: TestServer;
  let db: TestDatabase | undefined;
  let dns: TxtDnsServer;
  let op: TestOpenIdProvider;
  let fake: TokenEndpointProvider;
  let url: string;

  beforeAll(async () => {
    dns = await startTxtDnsServer();
    op = await startOpenIdProvider(REDIRECT_URI, { providerDefaults: true });
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

  /** Signs in through the token-endpoint provider with what `next` says: the callback's answer. */
  async function fakeSignIn(email: string, next: TokenEndpointProvider['next']) {
    fake.next = next;
    const { authorizationUrl, stateCookie } = await startSso(url, email);
    return callback(url, await fake.signIn(authorizationUrl), stateCookie);
  }

  describe('the userinfo endpoint', () => {
    it('signs in through oidc-provider at its defaults, whose ID token has no email: the address comes from userinfo', async () => {
      const tenant = await ssoTenant(url, dns, op);
      const email = `uma@${tenant.domain}`;
      const sub = `sub-${randomUUID()}`;
      op.accounts.set(sub, { email });
      const { authorizationUrl, stateCookie } = await startSso(url, email);
      const answer = await callback(url, await op.signIn(authorizationUrl, sub), stateCookie);
      expect(answer.status).toBe(303);
      expect(ssoErrorCode(answer)).toBeNull();
      const access = answer.cookies.access_token?.value ?? '';
      expect(claimsOf(access).amr).toEqual(['sso']);
      const me = await api<{ email: string; emailVerified: boolean }>(url, '/users/me', { token: access });
      expect(me.body).toMatchObject({ email, emailVerified: true });
    });

    it('refuses a userinfo answer about another subject (invalid_id_token)', async () => {
      const tenant = await ssoTenant(url, dns, fake);
      const email = `ivy@${tenant.domain}`;
      const answer = await fakeSignIn(email, {
        sub: 'sub-ivy',
        userinfo: { sub: 'sub-someone-else', email, email_verified: true },
      });
      expect(ssoErrorCode(answer)).toBe('invalid_id_token');
      expect(answer.cookies.access_token).toBeUndefined();
      // The same answer about the right subject signs in.
      const right = await fakeSignIn(email, {
        sub: 'sub-ivy',
        userinfo: { sub: 'sub-ivy', email, email_verified: true },
      });
      expect(right.status).toBe(303);
      expect(ssoErrorCode(right)).toBeNull();
    });
  });

  describe('refused callbacks', () => {
    it('write exactly one warn line each, naming the reason in words, without a token, code or secret', async () => {
      // An address of the domain, registered in a tenant of its own before the domain was verified.
      const domain = newDomain();
      const stray = `stray@${domain}`;
      expect((await api(url, '/auth/register', { body: { email: stray, password: PASSWORD } })).status).toBe(
        201,
      );
      const tenant = await ssoTenant(url, dns, fake, { domain });
      const other = await ssoTenant(url, dns, fake);
      /** The callback's answer to `refused()`, and the warn lines it wrote. */
      const refusal = async (refused: () => Promise<Awaited<ReturnType<typeof callback>>>) => {
        const before = warnLines(server).length;
        const answer = await refused();
        return { code: ssoErrorCode(answer), lines: warnLines(server).slice(before) };
      };
      const back = async (email: string, next: TokenEndpointProvider['next']) => {
        fake.next = next;
        const started = await startSso(url, email);
        return { ...started, back: await fake.signIn(started.authorizationUrl) };
      };
      const linked = `linked@${tenant.domain}`;
      expect((await fakeSignIn(linked, { sub: 'sub-linked', email: linked })).status).toBe(303);
      const cases: [string, RegExp, () => Promise<Awaited<ReturnType<typeof callback>>>][] = [
        [
          'invalid_state',
          /sso_state/,
          async () => callback(url, (await back(linked, { sub: 's' })).back, undefined),
        ],
        [
          'invalid_state',
          /state/,
          async () => {
            const first = await back(linked, { sub: 's' });
            const second = await startSso(url, linked);
            return callback(url, first.back, second.stateCookie);
          },
        ],
        [
          'invalid_id_token',
          /nonce|claim/i,
          () => fakeSignIn(linked, { sub: 's', email: linked, tamper: 'nonce' }),
        ],
        [
          'idp_error',
          /access_denied/,
          async () => {
            const { authorizationUrl, stateCookie } = await startSso(url, linked);
            const denied = new URL(REDIRECT_URI);
            const state = new URL(authorizationUrl).searchParams.get('state') ?? '';
            denied.search = new URLSearchParams({ error: 'access_denied', state }).toString();
            return callback(url, denied, stateCookie);
          },
        ],
        [
          'domain_mismatch',
          /no email claim and the userinfo endpoint gave none/,
          () => fakeSignIn(linked, { sub: 'sub-no-email' }),
        ],
        [
          'domain_mismatch',
          /not a verified domain/,
          () => fakeSignIn(linked, { sub: 's2', email: other.ownerEmail }),
        ],
        ['email_taken', /another tenant/, () => fakeSignIn(stray, { sub: 'sub-stray', email: stray })],
        [
          'identity_mismatch',
          /another subject/,
          () => fakeSignIn(linked, { sub: 'sub-impostor', email: linked }),
        ],
      ];
      for (const [code, words, refused] of cases) {
        const { code: answered, lines } = await refusal(refused);
        expect(answered, code).toBe(code);
        expect(lines, code).toEqual([
          expect.objectContaining({
            msg: 'tenant-auth: SSO callback refused',
            reason: code,
            detail: expect.stringMatching(words),
          }),
        ]);
      }
      const logs = server.logs.join('\n');
      expect(logs).not.toContain(fake.clientSecret);
      expect(logs).not.toMatch(/[?&]code=/);
      expect(logs).not.toContain(linked);
    });
  });

  describe('email_verified', () => {
    it('provisions only an address the provider says is verified (the boolean true), unless the connection trusts unverified ones', async () => {
      const tenant = await ssoTenant(url, dns, fake);
      const shown = await api<{ sso: Record<string, unknown> }>(url, '/tenants/me/sso', {
        token: tenant.ownerToken,
      });
      expect(shown.body.sso).toMatchObject({ trustUnverifiedEmail: false, trustProviderMfa: false });
      const cases: [string, unknown][] = [
        ['false', false],
        ['the string "false"', 'false'],
        ['the string "true"', 'true'],
        ['missing', null],
      ];
      for (const [what, emailVerified] of cases) {
        const email = `unverified-${randomUUID().slice(0, 6)}@${tenant.domain}`;
        const answer = await fakeSignIn(email, { sub: `sub-${randomUUID()}`, email, emailVerified });
        expect(ssoErrorCode(answer), what).toBe('email_not_verified');
        expect(answer.cookies.access_token, what).toBeUndefined();
      }
      // The same rule for an address the userinfo endpoint gives.
      const fromUserinfo = `userinfo-${randomUUID().slice(0, 6)}@${tenant.domain}`;
      const viaUserinfo = await fakeSignIn(fromUserinfo, {
        sub: 'sub-userinfo',
        userinfo: { sub: 'sub-userinfo', email: fromUserinfo, email_verified: 'true' },
      });
      expect(ssoErrorCode(viaUserinfo)).toBe('email_not_verified');
      // Entra ID never sends email_verified: the owner trusts its provider with that.
      const put = await api<{ sso: Record<string, unknown> }>(url, '/tenants/me/sso', {
        method: 'PUT',
        token: tenant.ownerToken,
        body: {
          issuer: fake.issuer,
          clientId: fake.clientId,
          clientSecret: fake.clientSecret,
          trustUnverifiedEmail: true,
        },
      });
      expect(put.status).toBe(200);
      expect(put.body.sso).toMatchObject({ trustUnverifiedEmail: true, trustProviderMfa: false });
      const got = await api<{ sso: Record<string, unknown> }>(url, '/tenants/me/sso', {
        token: tenant.ownerToken,
      });
      expect(got.body.sso).toMatchObject({ trustUnverifiedEmail: true });
      const email = `entra-${randomUUID().slice(0, 6)}@${tenant.domain}`;
      const trusted = await fakeSignIn(email, { sub: `sub-${randomUUID()}`, email, emailVerified: null });
      expect(trusted.status).toBe(303);
      expect(ssoErrorCode(trusted)).toBeNull();
      // A PUT without it replaces the connection: not sent is false again.
      const replaced = await api<{ sso: Record<string, unknown> }>(url, '/tenants/me/sso', {
        method: 'PUT',
        token: tenant.ownerToken,
        body: { issuer: fake.issuer, clientId: fake.clientId, clientSecret: fake.clientSecret },
      });
      expect(replaced.body.sso).toMatchObject({ trustUnverifiedEmail: false });
      const again = `again-${randomUUID().slice(0, 6)}@${tenant.domain}`;
      expect(
        ssoErrorCode(
          await fakeSignIn(again, { sub: `sub-${randomUUID()}`, email: again, emailVerified: null }),
        ),
      ).toBe('email_not_verified');
      const wrongType = await api(url, '/tenants/me/sso', {
        method: 'PUT',
        token: tenant.ownerToken,
        body: {
          issuer: fake.issuer,
          clientId: fake.clientId,
          clientSecret: fake.clientSecret,
          trustUnverifiedEmail: 'yes',
        },
      });
      expect(wrongType.status).toBe(400);
    });
  });

  describe('the sso_state of a finished sign-in', () => {
    it('cannot be used again, even with the same answer (invalid_state)', async () => {
      const tenant = await ssoTenant(url, dns, fake);
      const email = `once@${tenant.domain}`;
      fake.next = { sub: 'sub-once', email };
      const { authorizationUrl, stateCookie } = await startSso(url, email);
      const back = await fake.signIn(authorizationUrl);
      const first = await callback(url, back, stateCookie);
      expect(first.status).toBe(303);
      expect(ssoErrorCode(first)).toBeNull();
      const replayed = await callback(url, back, stateCookie);
      expect(ssoErrorCode(replayed)).toBe('invalid_state');
      expect(replayed.cookies.access_token).toBeUndefined();
      // A fresh answer of the provider with the same cookie is refused too: the state is spent.
      fake.next = { sub: 'sub-once', email };
      const again = await fake.signIn(authorizationUrl);
      expect(ssoErrorCode(await callback(url, again, stateCookie))).toBe('invalid_state');
    });
  });

  describe('recency from the provider', () => {
    it('takes the session’s auth_time from the ID token: an authentication an hour old is not recent', async () => {
      const tenant = await ssoTenant(url, dns, fake);
      const email = `old-${randomUUID().slice(0, 6)}@${tenant.domain}`;
      const hourAgo = Math.floor(Date.now() / 1000) - 3600;
      const answer = await fakeSignIn(email, { sub: `sub-${randomUUID()}`, email, authTime: hourAgo });
      const access = answer.cookies.access_token?.value ?? '';
      expect(claimsOf(access).auth_time).toBe(hourAgo);
      const setup = await api(url, '/auth/mfa/totp/setup', { method: 'POST', token: access });
      expect(setup.status).toBe(403);
      expect((setup.body as { code: string }).code).toBe('reauthentication_required');
    });

    it('signs in with an ID token that has no auth_time, but never as recent: recent routes answer reauthentication_required', async () => {
      const tenant = await ssoTenant(url, dns, fake);
      const email = `when-${randomUUID().slice(0, 6)}@${tenant.domain}`;
      const sub = `sub-${randomUUID()}`;
      const answer = await fakeSignIn(email, { sub, email });
      expect(answer.status).toBe(303);
      expect(ssoErrorCode(answer)).toBeNull();
      const access = answer.cookies.access_token?.value ?? '';
      // Not the callback's time: the provider did not say when the user authenticated.
      expect(claimsOf(access).auth_time).toBe(0);
      expect((await api(url, '/users/me', { token: access })).status).toBe(200);
      const setup = await api(url, '/auth/mfa/totp/setup', { method: 'POST', token: access });
      expect(setup.status).toBe(403);
      expect((setup.body as { code: string }).code).toBe('reauthentication_required');
      // A sign-in whose ID token says now is recent.
      const fresh = await fakeSignIn(email, { sub, email, authTime: Math.floor(Date.now() / 1000) });
      const recent = await api(url, '/auth/mfa/totp/setup', {
        method: 'POST',
        token: fresh.cookies.access_token?.value ?? '',
      });
      expect(recent.status).toBe(200);
    });

    it('lets the provider’s mfa stand in for the user’s own factor on recent routes only with trustProviderMfa', async () => {
      const tenant = await ssoTenant(url, dns, fake);
      const email = `mfa-${randomUUID().slice(0, 6)}@${tenant.domain}`;
      const sub = `sub-${randomUUID()}`;
      const authTime = () => Math.floor(Date.now() / 1000);
      const first = await fakeSignIn(email, { sub, email, authTime: authTime() });
      await enrolTotp(url, first.cookies.access_token?.value ?? '', new Date());
      const newCodes = async () => {
        const viaSso = await fakeSignIn(email, { sub, email, amr: ['pwd', 'mfa'], authTime: authTime() });
        const access = viaSso.cookies.access_token?.value ?? '';
        expect(claimsOf(access).amr).toEqual(['sso', 'mfa']);
        return api(url, '/auth/mfa/recovery-codes', { method: 'POST', token: access });
      };
      const untrusted = await newCodes();
      expect(untrusted.status).toBe(403);
      expect((untrusted.body as { code: string }).code).toBe('reauthentication_required');
      const put = await api(url, '/tenants/me/sso', {
        method: 'PUT',
        token: tenant.ownerToken,
        body: {
          issuer: fake.issuer,
          clientId: fake.clientId,
          clientSecret: fake.clientSecret,
          trustProviderMfa: true,
        },
      });
      expect(put.status).toBe(200);
      expect((await newCodes()).status).toBe(200);
    });
  });
});
