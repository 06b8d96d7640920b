import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTxtDnsServer, type TxtDnsServer } from './helpers/dns-txt.js';
import { api, expectProblem, PASSWORD } from './helpers/http.js';
import { startOpenIdProvider, type TestOpenIdProvider } from './helpers/oidc-provider.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from './helpers/postgres.js';
import { describeLeaks, SecretSet } from './helpers/secret-scan.js';
import { TestInbox } from './helpers/smtp.js';
import { callback, newDomain, REDIRECT_URI, ssoTenant, startSso, verifiedDomain } from './helpers/sso.js';
import { startTestServer, type TestServer } from './helpers/test-server.js';
import { startTokenEndpointProvider, type TokenEndpointProvider } from './helpers/token-endpoint-provider.js';

/*
 * API 1.2, single sign-on administration (domains, the connection, tenant isolation, secrets), over real
 * HTTP on PGlite and PostgreSQL, against
 * panva's oidc-provider on loopback (its own login and consent pages), a small token-endpoint provider
 * for the ID tokens a real provider never issues, and a DNS server on loopback for the TXT records.
 */

const backends = [{ name: 'pglite' }, ...(TEST_DATABASE_URL ? [{ name: 'postgres' }] : [])];

describe.each(backends)('single sign-on administration on $name', ({ name }) => {
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
      // The 1.2 name of OUTBOUND_ALLOW_LOOPBACK, on purpose: it still opens loopback for the test providers.
      SSO_ALLOW_INSECURE_ISSUERS: 'true',
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

  /** Signs `email` in through oidc-provider as `sub`: the callback's answer. */
  async function signInWithProvider(email: string, sub: string, returnTo?: string) {
    const { authorizationUrl, stateCookie } = await startSso(url, email, returnTo);
    const back = await op.signIn(authorizationUrl, sub);
    return callback(url, back, stateCookie);
  }

  describe('domains', () => {
    it('adds a domain with its TXT record, verifies it once the record holds the value, lists and removes it', async () => {
      const domain = newDomain();
      const reg = await api<{ accessToken: string }>(url, '/auth/register', {
        body: { email: `owner@${domain}`, password: PASSWORD },
      });
      const token = reg.body.accessToken;
      const added = await api<{
        domain: Record<string, unknown> & { verification: { name: string; value: string } };
      }>(url, '/tenants/me/domains', { token, body: { domain } });
      expect(added.status).toBe(201);
      expect(added.body.domain).toMatchObject({ name: domain, verified: false, verifiedAt: null });
      expect(added.body.domain.verification).toMatchObject({
        type: 'TXT',
        name: `_tenant-auth-challenge.${domain}`,
        value: expect.stringMatching(/^tenant-auth-domain-verification=[A-Za-z0-9_-]{32}$/),
      });
      // No record yet, then a wrong one: not verified.
      const early = await api(url, `/tenants/me/domains/${domain}/verify`, { method: 'POST', token });
      expectProblem(early, 409, 'domain_not_verified');
      dns.records.set(added.body.domain.verification.name, [['tenant-auth-domain-verification=wrong']]);
      expectProblem(
        await api(url, `/tenants/me/domains/${domain}/verify`, { method: 'POST', token }),
        409,
        'domain_not_verified',
      );
      // A long value split into several strings of one record counts as one.
      const value = added.body.domain.verification.value;
      dns.records.set(added.body.domain.verification.name, [
        ['v=spf1 -all'],
        [value.slice(0, 20), value.slice(20)],
      ]);
      const verified = await api<{ domain: { verified: boolean; verifiedAt: string } }>(
        url,
        `/tenants/me/domains/${domain}/verify`,
        { method: 'POST', token },
      );
      expect(verified.status).toBe(200);
      expect(verified.body.domain.verified).toBe(true);
      const list = await api<{ domains: { name: string; verified: boolean }[] }>(url, '/tenants/me/domains', {
        token,
      });
      expect(list.body.domains).toEqual([expect.objectContaining({ name: domain, verified: true })]);
      expect((await api(url, `/tenants/me/domains/${domain}`, { method: 'DELETE', token })).status).toBe(204);
      expectProblem(
        await api(url, `/tenants/me/domains/${domain}`, { method: 'DELETE', token }),
        404,
        'not_found',
      );
    });

    it('refuses public suffixes and names that are not lower-case host names (invalid_domain)', async () => {
      const reg = await api<{ accessToken: string }>(url, '/auth/register', {
        body: { email: `o-${randomUUID().slice(0, 6)}@example.org`, password: PASSWORD },
      });
      for (const domain of [
        'com',
        'co.uk',
        'github.io',
        'Example.com',
        'exa mple.com',
        '127.0.0.1',
        'localhost',
      ]) {
        const r = await api(url, '/tenants/me/domains', { token: reg.body.accessToken, body: { domain } });
        expectProblem(r, 400, 'validation_failed');
        expect(r.body).toMatchObject({ errors: [{ field: 'domain', code: 'invalid_domain' }] });
      }
    });

    it('a domain verified by one tenant is taken for another: adding and verifying answer domain_taken', async () => {
      const domain = newDomain();
      const first = await api<{ accessToken: string }>(url, '/auth/register', {
        body: { email: `a@${domain}`, password: PASSWORD },
      });
      const second = await api<{ accessToken: string }>(url, '/auth/register', {
        body: { email: `b-${randomUUID().slice(0, 6)}@example.org`, password: PASSWORD },
      });
      // The second tenant adds it first, unverified; the first verifies it.
      const pending = await api<{ domain: { verification: { name: string; value: string } } }>(
        url,
        '/tenants/me/domains',
        { token: second.body.accessToken, body: { domain } },
      );
      expect(pending.status).toBe(201);
      await verifiedDomain(url, dns, first.body.accessToken, domain);
      dns.records.set(pending.body.domain.verification.name, [[pending.body.domain.verification.value]]);
      const taken = await api(url, `/tenants/me/domains/${domain}/verify`, {
        method: 'POST',
        token: second.body.accessToken,
      });
      expectProblem(taken, 409, 'domain_taken');
      const again = await api(url, '/tenants/me/domains', {
        token: second.body.accessToken,
        body: { domain },
      });
      expectProblem(again, 409, 'domain_taken');
    });

    it('of two tenants verifying one domain at once, one gets it and the other domain_taken', async () => {
      const domain = newDomain();
      const tokens = await Promise.all(
        [0, 1].map(async (i) => {
          const r = await api<{ accessToken: string }>(url, '/auth/register', {
            body: { email: `race${i}-${randomUUID().slice(0, 6)}@example.org`, password: PASSWORD },
          });
          return r.body.accessToken;
        }),
      );
      const records: string[][] = [];
      for (const token of tokens) {
        const added = await api<{ domain: { verification: { name: string; value: string } } }>(
          url,
          '/tenants/me/domains',
          { token, body: { domain } },
        );
        records.push([added.body.domain.verification.value]);
        dns.records.set(added.body.domain.verification.name, records);
      }
      const answers = await Promise.all(
        tokens.map((token) => api(url, `/tenants/me/domains/${domain}/verify`, { method: 'POST', token })),
      );
      expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
      expect(answers.find((a) => a.status === 409)?.body).toMatchObject({ code: 'domain_taken' });
    });
  });

  describe('the connection', () => {
    it('checks the issuer first, seals the client secret and never answers it', async () => {
      const tenant = await ssoTenant(url, dns, op);
      const got = await api<{ sso: Record<string, unknown> }>(url, '/tenants/me/sso', {
        token: tenant.ownerToken,
      });
      expect(got.body.sso).toEqual({
        // API 1.3: the answer names its protocol.
        protocol: 'oidc',
        issuer: op.issuer,
        clientId: op.clientId,
        enforce: false,
        defaultRole: 'member',
        trustUnverifiedEmail: false,
        trustProviderMfa: false,
        redirectUri: REDIRECT_URI,
        updatedAt: expect.any(String),
      });
      expect(JSON.stringify(got.body)).not.toContain(op.clientSecret);
      const unreachable = await api(url, '/tenants/me/sso', {
        method: 'PUT',
        token: tenant.ownerToken,
        body: { issuer: 'http://127.0.0.1:9', clientId: 'x', clientSecret: 'y' },
      });
      expectProblem(unreachable, 400, 'validation_failed');
      expect(unreachable.body).toMatchObject({ errors: [{ field: 'issuer', code: 'issuer_unreachable' }] });
      expect(server.logs.join('\n')).not.toContain(op.clientSecret);
      expect((await api(url, '/tenants/me/sso', { method: 'DELETE', token: tenant.ownerToken })).status).toBe(
        204,
      );
      expect((await api(url, '/tenants/me/sso', { token: tenant.ownerToken })).body).toEqual({ sso: null });
    });
  });

  describe('in another tenant', () => {
    it('every admin route acts on the caller’s own tenant only', async () => {
      const a = await ssoTenant(url, dns, op);
      const b = await ssoTenant(url, dns, op);
      // b cannot see, verify or remove a's domain, nor read a's connection.
      const listed = await api<{ domains: { name: string }[] }>(url, '/tenants/me/domains', {
        token: b.ownerToken,
      });
      expect(listed.body.domains.map((d) => d.name)).toEqual([b.domain]);
      expectProblem(
        await api(url, `/tenants/me/domains/${a.domain}/verify`, { method: 'POST', token: b.ownerToken }),
        404,
        'not_found',
      );
      expectProblem(
        await api(url, `/tenants/me/domains/${a.domain}`, { method: 'DELETE', token: b.ownerToken }),
        404,
        'not_found',
      );
      const conn = await api<{ sso: { issuer: string } }>(url, '/tenants/me/sso', { token: b.ownerToken });
      expect(conn.body.sso.issuer).toBe(op.issuer);
      // b's removal of its connection leaves a's in place.
      expect((await api(url, '/tenants/me/sso', { method: 'DELETE', token: b.ownerToken })).status).toBe(204);
      expect(
        (await api<{ sso: unknown }>(url, '/tenants/me/sso', { token: a.ownerToken })).body.sso,
      ).not.toBeNull();
      expect((await api(url, '/tenants/me/domains', { token: a.ownerToken })).body).toMatchObject({
        domains: [{ name: a.domain, verified: true }],
      });
      // A member may not change anything.
      const memberEmail = `m@${a.domain}`;
      op.accounts.set('sub-m-a', { email: memberEmail });
      const member = (await signInWithProvider(memberEmail, 'sub-m-a')).cookies.access_token?.value ?? '';
      expectProblem(await api(url, '/tenants/me/domains', { token: member }), 403, 'forbidden');
      expectProblem(
        await api(url, '/tenants/me/domains', { token: member, body: { domain: newDomain() } }),
        403,
        'forbidden',
      );
      expectProblem(await api(url, '/tenants/me/sso', { token: member }), 403, 'forbidden');
      expectProblem(await api(url, '/tenants/me/sso', { method: 'DELETE', token: member }), 403, 'forbidden');
    });
  });

  describe('client secrets', () => {
    it('never reach a log line, an audit event or a response (the sealed value is all the database holds)', async () => {
      const tenant = await ssoTenant(url, dns, op);
      const secrets = new SecretSet();
      secrets.addPassword(op.clientSecret);
      secrets.addPassword(fake.clientSecret);
      const events = await api(url, '/tenants/me/audit-events?limit=100', { token: tenant.ownerToken });
      const answers = [
        JSON.stringify(events.body),
        JSON.stringify((await api(url, '/tenants/me/sso', { token: tenant.ownerToken })).body),
      ];
      const leaks = [...secrets.scanLines(server.logs), ...secrets.scanLines(answers)];
      expect(leaks, describeLeaks(leaks, [...server.logs, ...answers])).toEqual([]);
      // The scanner does find a secret where one is.
      expect(secrets.scanLines([`{"clientSecret":"${op.clientSecret}"}`])).toHaveLength(1);
    });
  });
});
