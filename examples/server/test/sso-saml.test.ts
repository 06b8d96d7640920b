import { randomUUID } from 'node:crypto';
import {
  CORPUS_USER,
  createSamlCorpusWorld,
  SAML_CORPUS,
  type SamlCorpusWorld,
} from 'tenant-auth-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeIdp, type FakeIdp } from '../../../test-support/saml/fake-idp.js';
import { selfSignedCertificate } from '../../../test-support/saml/x509.js';
import { xmlCryptoSigner } from '../../../test-support/saml/xml-crypto-signer.js';
import { startTxtDnsServer, type TxtDnsServer } from './helpers/dns-txt.js';
import { api, PASSWORD } from './helpers/http.js';
import { claimsOf } from './helpers/mfa.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from './helpers/postgres.js';
import { authnRequestOf, postAcs, type SamlTenant, samlTenant, startSaml } from './helpers/saml.js';
import { APP_URL, type CallbackAnswer, ssoErrorCode } from './helpers/sso.js';
import { startTestServer, type TestServer } from './helpers/test-server.js';

/*
 * API 1.3, "SAML 2.0 single sign-on per tenant", over real HTTP on PGlite and PostgreSQL: connections by
 * fields and by metadata, the per-tenant service provider metadata, SP-initiated sign-in through the ACS
 * (a form post from the identity provider's page) with a fake identity provider that signs with keys
 * made here, the hostile-response corpus of test-support/saml posted to the ACS, and re-authentication
 * at the identity provider.
 */

const backends = [{ name: 'pglite' }, ...(TEST_DATABASE_URL ? [{ name: 'postgres' }] : [])];

const signedIn = (answer: CallbackAnswer) => answer.cookies.access_token?.value ?? '';

describe.each(backends)('SAML single sign-on on $name', ({ name }) => {
  let server: TestServer;
  let db: TestDatabase | undefined;
  let dns: TxtDnsServer;
  let url: string;
  let idp: FakeIdp;
  let fields: { entityId: string; ssoUrl: string; certificates: string[] };

  beforeAll(async () => {
    dns = await startTxtDnsServer();
    if (name === 'postgres') db = await createTestDatabase(TEST_DATABASE_URL as string);
    server = await startTestServer({
      DATABASE_URL: db?.url ?? 'memory:',
      DNS_SERVERS: dns.address,
      OUTBOUND_ALLOW_LOOPBACK: 'true',
    });
    url = server.baseUrl;
    idp = createFakeIdp({ baseUrl: 'https://idp.example.net' });
    fields = { entityId: idp.entityId, ssoUrl: idp.ssoUrl, certificates: [idp.certificate.pem] };
  });
  afterAll(async () => {
    await server?.close();
    await db?.drop();
    await dns?.close();
  });

  /** The address of the user an access token is of (`GET /users/me`). */
  async function emailOf(accessToken: string): Promise<string> {
    const me = await api<{ email: string }>(url, '/users/me', { token: accessToken });
    expect(me.status).toBe(200);
    return me.body.email;
  }

  /** Signs `email` in at `tenant` through the fake identity provider: the ACS's answer. */
  async function signIn(tenant: SamlTenant, nameId: string, returnTo?: string) {
    const { request, stateCookie } = await startSaml(url, nameId, returnTo);
    const samlResponse = idp.response({ sp: tenant.sp, inResponseTo: request.id, user: { nameId } });
    return postAcs(
      url,
      tenant.tenantId,
      { SAMLResponse: samlResponse, RelayState: request.relayState },
      stateCookie,
    );
  }

  describe('connections', () => {
    it('PUT by fields answers the connection as the contract shows it, and GET the same', async () => {
      const tenant = await samlTenant(url, dns, fields);
      const expected = {
        protocol: 'saml',
        entityId: idp.entityId,
        ssoUrl: idp.ssoUrl,
        certificates: [
          { fingerprintSha256: expect.stringMatching(/^[0-9a-f]{64}$/), notAfter: expect.any(String) },
        ],
        spEntityId: `http://localhost:4000/api/v1/auth/sso/saml/${tenant.tenantId}/metadata`,
        acsUrl: `http://localhost:4000/api/v1/auth/sso/saml/${tenant.tenantId}/acs`,
        metadataUrl: `http://localhost:4000/api/v1/auth/sso/saml/${tenant.tenantId}/metadata`,
        enforce: false,
        defaultRole: 'member',
        trustUnverifiedEmail: false,
        trustProviderMfa: false,
        updatedAt: expect.any(String),
      };
      expect(tenant.sso).toEqual(expected);
      const got = await api<{ sso: unknown }>(url, '/tenants/me/sso', { token: tenant.ownerToken });
      expect(got.status).toBe(200);
      expect(got.body.sso).toEqual(expected);
      expect(JSON.stringify(got.body)).not.toContain('BEGIN CERTIFICATE');
    });

    it('PUT by metadata XML reads the entity ID, the HTTP-Redirect SSO URL and the signing certificate', async () => {
      // As large as Entra ID's (about 25 KiB with its WS-Federation roles): more than the 16 KiB of JSON bodies.
      const large = idp
        .metadataXml()
        .replace('<md:IDPSSODescriptor', `<!--${'x'.repeat(40_000)}--><md:IDPSSODescriptor`);
      const tenant = await samlTenant(url, dns, { metadataXml: large });
      expect(tenant.sso).toMatchObject({ protocol: 'saml', entityId: idp.entityId, ssoUrl: idp.ssoUrl });
      expect(tenant.sso.certificates).toHaveLength(1);
    });

    it('keeps several certificates for a key rollover, and accepts a response signed by the next one', async () => {
      const next = createFakeIdp({ baseUrl: 'https://idp.example.net' });
      const tenant = await samlTenant(url, dns, {
        ...fields,
        certificates: [idp.certificate.pem, next.certificate.pem],
      });
      expect(tenant.sso.certificates).toHaveLength(2);
      const email = `ada@${tenant.domain}`;
      const { request, stateCookie } = await startSaml(url, email);
      const answer = await postAcs(
        url,
        tenant.tenantId,
        {
          SAMLResponse: next.response({ sp: tenant.sp, inResponseTo: request.id, user: { nameId: email } }),
          RelayState: request.relayState,
        },
        stateCookie,
      );
      expect(answer.status).toBe(303);
      expect(signedIn(answer)).not.toBe('');
    });

    it.each([
      ['not a certificate', ['-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----']],
      [
        'expired',
        [
          selfSignedCertificate({
            notBefore: new Date(Date.now() - 7200_000),
            notAfter: new Date(Date.now() - 3600_000),
          }).pem,
        ],
      ],
      ['an RSA key under 2048 bits', [selfSignedCertificate({ modulusLength: 1024 }).pem]],
      ['an EC key', [selfSignedCertificate({ keyType: 'ec' }).pem]],
      ['none', []],
    ])('refuses a certificate that is %s (certificates: invalid_certificate)', async (_, certificates) => {
      const tenant = await samlTenant(url, dns, fields);
      const put = await api<{ errors: { field: string; code: string }[] }>(url, '/tenants/me/sso', {
        method: 'PUT',
        token: tenant.ownerToken,
        body: { protocol: 'saml', ...fields, certificates },
      });
      expect(put.status).toBe(400);
      expect(put.body.errors).toContainEqual(
        expect.objectContaining({ field: 'certificates', code: 'invalid_certificate' }),
      );
    });

    it('refuses an http SSO URL off loopback (ssoUrl: invalid_url) and unusable metadata (metadataXml: invalid_metadata)', async () => {
      const tenant = await samlTenant(url, dns, fields);
      const put = (body: Record<string, unknown>) =>
        api<{ errors: { field: string; code: string }[] }>(url, '/tenants/me/sso', {
          method: 'PUT',
          token: tenant.ownerToken,
          body: { protocol: 'saml', ...body },
        });
      const http = await put({ ...fields, ssoUrl: 'http://idp.example.net/sso' });
      expect(http.status).toBe(400);
      expect(http.body.errors).toContainEqual(
        expect.objectContaining({ field: 'ssoUrl', code: 'invalid_url' }),
      );
      const loopback = await put({ ...fields, ssoUrl: 'http://127.0.0.1:9/sso' });
      expect(loopback.status).toBe(200);
      for (const metadataXml of [
        '<nope/>',
        '<!DOCTYPE x [<!ENTITY a "b">]><x/>',
        idp.metadataXml().replace(/X509Certificate>[^<]+</, 'X509Certificate>AAAA<'),
      ]) {
        const bad = await put({ metadataXml });
        expect(bad.status, metadataXml).toBe(400);
        expect(bad.body.errors).toContainEqual(
          expect.objectContaining({ field: 'metadataXml', code: 'invalid_metadata' }),
        );
      }
    });

    it('publishes the service provider metadata per tenant, and 404 without a SAML connection', async () => {
      const tenant = await samlTenant(url, dns, fields);
      const res = await fetch(`${url}/api/v1/auth/sso/saml/${tenant.tenantId}/metadata`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('application/samlmetadata+xml');
      const xml = await res.text();
      expect(xml).toContain(`entityID="${tenant.sp.entityId}"`);
      expect(xml).toContain(`Location="${tenant.sp.acsUrl}"`);
      expect(xml).toContain('WantAssertionsSigned="true"');
      expect(xml).toContain('urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST');
      expect(xml).toContain('nameid-format:emailAddress');
      expect(xml).toContain('nameid-format:persistent');
      expect((await fetch(`${url}/api/v1/auth/sso/saml/${randomUUID()}/metadata`)).status).toBe(404);
    });
  });

  describe('sign-in', () => {
    it('starts with an HTTP-Redirect AuthnRequest and a SameSite=None state cookie, and the ACS signs in with amr sso', async () => {
      const tenant = await samlTenant(url, dns, fields);
      const email = `ada@${tenant.domain}`;
      const { request, stateCookie, cookie } = await startSaml(url, email, `${APP_URL}/home`);
      expect(`${request.url.origin}${request.url.pathname}`).toBe(idp.ssoUrl);
      expect(request.xml).toContain(`Destination="${idp.ssoUrl}"`);
      expect(request.xml).toContain(`AssertionConsumerServiceURL="${tenant.sp.acsUrl}"`);
      expect(request.xml).toContain(`>${tenant.sp.entityId}</saml:Issuer>`);
      expect(request.xml).not.toContain('ForceAuthn="true"');
      expect(cookie?.attributes).toMatchObject({
        path: '/api/v1/auth/sso',
        httponly: true,
        secure: true,
        samesite: 'None',
        'max-age': '600',
      });
      const answer = await postAcs(
        url,
        tenant.tenantId,
        {
          SAMLResponse: idp.response({ sp: tenant.sp, inResponseTo: request.id, user: { nameId: email } }),
          RelayState: request.relayState,
        },
        stateCookie,
      );
      expect(answer.status).toBe(303);
      expect(answer.location).toBe(`${APP_URL}/home`);
      expect(claimsOf(signedIn(answer)).amr).toEqual(['sso']);
      expect(await emailOf(signedIn(answer))).toBe(email);
      expect(answer.cookies.sso_state?.attributes['max-age']).toBe('0');
    });

    it("refuses a post without the state cookie, with another browser's, or with a state already used (invalid_state)", async () => {
      const tenant = await samlTenant(url, dns, fields);
      const email = `ada@${tenant.domain}`;
      const mine = await startSaml(url, email);
      const theirs = await startSaml(url, email);
      const form = {
        SAMLResponse: idp.response({ sp: tenant.sp, inResponseTo: mine.request.id, user: { nameId: email } }),
        RelayState: mine.request.relayState,
      };
      expect(ssoErrorCode(await postAcs(url, tenant.tenantId, form, undefined))).toBe('invalid_state');
      expect(ssoErrorCode(await postAcs(url, tenant.tenantId, form, theirs.stateCookie))).toBe(
        'invalid_state',
      );
      // With another browser's RelayState too: the response answers another request (InResponseTo).
      expect(
        ssoErrorCode(
          await postAcs(
            url,
            tenant.tenantId,
            { ...form, RelayState: theirs.request.relayState },
            theirs.stateCookie,
          ),
        ),
      ).toBe('invalid_state');
      const ok = await postAcs(url, tenant.tenantId, form, mine.stateCookie);
      expect(ok.status).toBe(303);
      expect(signedIn(ok)).not.toBe('');
      // The same post again (a replay): the state finished a sign-in already.
      expect(ssoErrorCode(await postAcs(url, tenant.tenantId, form, mine.stateCookie))).toBe('invalid_state');
    });

    it.runIf(name === 'postgres')(
      'refuses at a second instance on the same database a response the first accepted (the marks of used states and assertions are shared)',
      async () => {
        const other = await startTestServer({
          DATABASE_URL: db?.url ?? '',
          DNS_SERVERS: dns.address,
          OUTBOUND_ALLOW_LOOPBACK: 'true',
        });
        try {
          const tenant = await samlTenant(url, dns, fields);
          const email = `ada@${tenant.domain}`;
          const { request, stateCookie } = await startSaml(url, email);
          const form = {
            SAMLResponse: idp.response({ sp: tenant.sp, inResponseTo: request.id, user: { nameId: email } }),
            RelayState: request.relayState,
          };
          // Started at this instance, finished at the other: the state opens on any instance.
          const first = await postAcs(other.baseUrl, tenant.tenantId, form, stateCookie);
          expect(ssoErrorCode(first)).toBeNull();
          expect(signedIn(first)).not.toBe('');
          // The same post (state cookie, RelayState, assertion) here: refused, no session, since the
          // other instance marked the state and the assertion used in the database.
          const replayed = await postAcs(url, tenant.tenantId, form, stateCookie);
          expect(ssoErrorCode(replayed)).toBe('invalid_state');
          expect(signedIn(replayed)).toBe('');
        } finally {
          await other.close();
        }
      },
    );

    it('refuses an unsolicited (IdP-initiated) response (invalid_state)', async () => {
      const tenant = await samlTenant(url, dns, fields);
      const email = `ada@${tenant.domain}`;
      const unsolicited = idp.response({ sp: tenant.sp, inResponseTo: null, user: { nameId: email } });
      expect(
        ssoErrorCode(await postAcs(url, tenant.tenantId, { SAMLResponse: unsolicited }, undefined)),
      ).toBe('invalid_state');
      // Even with a state of this browser: the response answers no request.
      const { request, stateCookie } = await startSaml(url, email);
      expect(
        ssoErrorCode(
          await postAcs(
            url,
            tenant.tenantId,
            { SAMLResponse: unsolicited, RelayState: request.relayState },
            stateCookie,
          ),
        ),
      ).toBe('invalid_state');
    });

    it("refuses a state posted to another tenant's ACS (invalid_state), and a response for another tenant's SP (invalid_response)", async () => {
      const [a, b] = [await samlTenant(url, dns, fields), await samlTenant(url, dns, fields)];
      const email = `ada@${a.domain}`;
      const first = await startSaml(url, email);
      const forA = idp.response({ sp: a.sp, inResponseTo: first.request.id, user: { nameId: email } });
      expect(
        ssoErrorCode(
          await postAcs(
            url,
            b.tenantId,
            { SAMLResponse: forA, RelayState: first.request.relayState },
            first.stateCookie,
          ),
        ),
      ).toBe('invalid_state');
      const second = await startSaml(url, email);
      const forB = idp.response({ sp: b.sp, inResponseTo: second.request.id, user: { nameId: email } });
      const answer = await postAcs(
        url,
        a.tenantId,
        { SAMLResponse: forB, RelayState: second.request.relayState },
        second.stateCookie,
      );
      expect(ssoErrorCode(answer)).toBe('invalid_response');
      expect(server.logs.some((l) => l.includes('SSO callback refused') && l.includes('not the ACS'))).toBe(
        true,
      );
    });

    it("refuses an address outside the tenant's verified domains (domain_mismatch)", async () => {
      const tenant = await samlTenant(url, dns, fields);
      const { request, stateCookie } = await startSaml(url, `ada@${tenant.domain}`);
      const answer = await postAcs(
        url,
        tenant.tenantId,
        {
          SAMLResponse: idp.response({
            sp: tenant.sp,
            inResponseTo: request.id,
            user: { nameId: 'ada@elsewhere.example.org' },
          }),
          RelayState: request.relayState,
        },
        stateCookie,
      );
      expect(ssoErrorCode(answer)).toBe('domain_mismatch');
    });
  });

  describe('the 1.3 rules of users, for SAML as for OpenID Connect', () => {
    it("an owner's address is link_required; the owner links by a re-authentication, then signs in", async () => {
      const tenant = await samlTenant(url, dns, fields);
      const first = await signIn(tenant, tenant.ownerEmail);
      expect(ssoErrorCode(first)).toBe('link_required');
      const started = await api<{ url: string }>(url, '/auth/sso/reauthenticate', {
        token: tenant.ownerToken,
        body: {},
      });
      expect(started.status).toBe(200);
      const request = authnRequestOf(started.body.url);
      const stateCookie = /sso_state=([^;]+)/.exec(started.res.headers.getSetCookie().join('\n'))?.[1] ?? '';
      const linked = await postAcs(
        url,
        tenant.tenantId,
        {
          SAMLResponse: idp.response({
            sp: tenant.sp,
            inResponseTo: request.id,
            user: { nameId: tenant.ownerEmail },
          }),
          RelayState: request.relayState,
        },
        stateCookie,
      );
      expect(linked.status).toBe(303);
      expect(ssoErrorCode(linked)).toBeNull();
      const again = await signIn(tenant, tenant.ownerEmail);
      expect(ssoErrorCode(again)).toBeNull();
      expect(await emailOf(signedIn(again))).toBe(tenant.ownerEmail);
    });

    it('an address that belongs to a user of another tenant is email_taken', async () => {
      const domain = `acme-${randomUUID().slice(0, 8)}.example.com`;
      const email = `ada@${domain}`;
      // Registered in a tenant of its own before any tenant verified the domain.
      const other = await api(url, '/auth/register', { body: { email, password: PASSWORD } });
      expect(other.status).toBe(201);
      const tenant = await samlTenant(url, dns, fields, { domain });
      expect(ssoErrorCode(await signIn(tenant, email))).toBe('email_taken');
    });
  });

  describe('re-authentication', () => {
    it("asks for ForceAuthn, then rotates the same session when the NameID is the user's", async () => {
      const tenant = await samlTenant(url, dns, fields);
      const email = `ada@${tenant.domain}`;
      const before = await signIn(tenant, email);
      const accessToken = signedIn(before);
      const started = await api<{ url: string }>(url, '/auth/sso/reauthenticate', {
        token: accessToken,
        body: { returnTo: `${APP_URL}/settings` },
      });
      expect(started.status).toBe(200);
      const request = authnRequestOf(started.body.url);
      expect(request.xml).toContain('ForceAuthn="true"');
      const stateCookie = /sso_state=([^;]+)/.exec(started.res.headers.getSetCookie().join('\n'))?.[1] ?? '';
      expect(started.res.headers.getSetCookie().join('\n')).toContain('SameSite=None');
      const answer = await postAcs(
        url,
        tenant.tenantId,
        {
          SAMLResponse: idp.response({ sp: tenant.sp, inResponseTo: request.id, user: { nameId: email } }),
          RelayState: request.relayState,
        },
        stateCookie,
      );
      expect(answer.status).toBe(303);
      expect(answer.location).toBe(`${APP_URL}/settings`);
      expect(claimsOf(signedIn(answer)).sid).toBe(claimsOf(accessToken).sid);
      expect(claimsOf(signedIn(answer)).amr).toEqual(['sso']);
    });

    it('refuses another NameID (identity_mismatch)', async () => {
      const tenant = await samlTenant(url, dns, fields);
      const email = `ada@${tenant.domain}`;
      const accessToken = signedIn(await signIn(tenant, email));
      const started = await api<{ url: string }>(url, '/auth/sso/reauthenticate', {
        token: accessToken,
        body: {},
      });
      const request = authnRequestOf(started.body.url);
      const stateCookie = /sso_state=([^;]+)/.exec(started.res.headers.getSetCookie().join('\n'))?.[1] ?? '';
      const answer = await postAcs(
        url,
        tenant.tenantId,
        {
          SAMLResponse: idp.response({
            sp: tenant.sp,
            inResponseTo: request.id,
            user: { nameId: `bob@${tenant.domain}` },
          }),
          RelayState: request.relayState,
        },
        stateCookie,
      );
      expect(ssoErrorCode(answer)).toBe('identity_mismatch');
      expect(answer.cookies.access_token).toBeUndefined();
    });
  });

  describe('the hostile-response corpus, posted to the ACS', () => {
    let world: SamlCorpusWorld;
    let tenant: SamlTenant;

    beforeAll(async () => {
      world = createSamlCorpusWorld({ signer: xmlCryptoSigner, publicUrl: 'http://localhost:4000' });
      tenant = await samlTenant(
        url,
        dns,
        {
          entityId: world.idp.entityId,
          ssoUrl: world.idp.ssoUrl,
          certificates: [world.idp.signing.pem, world.idp.next.pem],
        },
        { domain: world.verifiedDomain },
      );
    });

    /** Removes the user the corpus signs in, so that the next accepted case (another NameID) provisions it afresh. */
    async function forgetCorpusUser() {
      const members = await api<{ members: { id: string; email: string }[] }>(url, '/tenants/me/members', {
        token: tenant.ownerToken,
      });
      for (const m of members.body.members.filter((m) => m.email !== tenant.ownerEmail)) {
        const removed = await api(url, `/tenants/me/members/${m.id}`, {
          method: 'DELETE',
          token: tenant.ownerToken,
        });
        expect(removed.status).toBe(204);
      }
    }

    it.each(SAML_CORPUS.map((c) => [c.name, c] as const))('%s', async (_, c) => {
      const { request, stateCookie } = await startSaml(url, CORPUS_USER);
      const caseWorld: SamlCorpusWorld = {
        ...world,
        now: new Date(),
        sp: tenant.sp,
        otherSp: {
          entityId:
            'http://localhost:4000/api/v1/auth/sso/saml/0190d5a0-0000-7000-8000-000000000000/metadata',
          acsUrl: 'http://localhost:4000/api/v1/auth/sso/saml/0190d5a0-0000-7000-8000-000000000000/acs',
        },
        requestId: request.id,
      };
      const form = { SAMLResponse: c.samlResponse(caseWorld), RelayState: request.relayState };
      const answer = await postAcs(url, tenant.tenantId, form, stateCookie);
      expect(answer.status).toBe(303);
      if (!c.expect.ok) {
        expect(ssoErrorCode(answer), c.threat).toBe(c.expect.reason);
        expect(signedIn(answer)).toBe('');
        return;
      }
      if (c.application === 'domain_mismatch') {
        expect(ssoErrorCode(answer), c.threat).toBe('domain_mismatch');
        return;
      }
      expect(ssoErrorCode(answer), c.threat).toBeNull();
      expect(await emailOf(signedIn(answer))).toBe(c.expect.email);
      if (c.application === 'replay')
        expect(ssoErrorCode(await postAcs(url, tenant.tenantId, form, stateCookie))).toBe('invalid_state');
      await forgetCorpusUser();
    });
  });
});
