import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestIdpServer, type TestIdpServer } from '../../../test-support/saml/test-idp-server.js';
import { createAuthnRequest } from '../src/sso/saml/authn-request.js';
import { checkCertificates } from '../src/sso/saml/certificates.js';
import { parseIdpMetadata } from '../src/sso/saml/idp-metadata.js';
import { validateSamlResponse } from '../src/sso/saml/saml-response.js';
import type { SamlConnection } from '../src/sso/saml/saml-types.js';

/*
 * The SAML pieces of the reference server against the test identity provider on a real port: its
 * metadata read over HTTP, an AuthnRequest sent by redirect, its login page's auto-posting form, and
 * the response that form carries checked. (The ACS route and the browser come with the integration.)
 */

const sp = {
  entityId: 'http://localhost:4000/api/v1/auth/sso/saml/t_1/metadata',
  acsUrl: 'http://localhost:4000/api/v1/auth/sso/saml/t_1/acs',
};

let idp: TestIdpServer;
let connection: SamlConnection;

beforeAll(async () => {
  idp = await startTestIdpServer({ user: { nameId: 'alice@example.com' } });
  idp.register(sp);
  const metadata = parseIdpMetadata(await (await fetch(`${idp.url}/metadata`)).text());
  if (!metadata.ok) throw new Error(metadata.detail);
  const certificates = checkCertificates(metadata.metadata.certificates, new Date());
  if (!certificates.ok) throw new Error(certificates.detail);
  connection = { ...metadata.metadata, certificates: certificates.certificates.map((c) => c.pem) };
});

afterAll(() => idp.close());

/** The login page's form: where it posts, and its fields. */
function form(html: string) {
  const action = /<form method="post" action="([^"]+)">/.exec(html)?.[1];
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];
  return { action, samlResponse: field('SAMLResponse'), relayState: field('RelayState') };
}

describe('the test identity provider', () => {
  it('publishes metadata the server reads: entity ID, HTTP-Redirect service, its signing certificate', () => {
    expect(connection).toEqual({
      entityId: `${idp.url}/metadata`,
      ssoUrl: `${idp.url}/sso`,
      certificates: [idp.certificate.pem],
    });
  });

  it('takes the AuthnRequest and answers a page that posts a signed response to the ACS, which the server accepts', async () => {
    const { url, requestId } = await createAuthnRequest({
      connection,
      sp,
      relayState: 'relay-1',
      forceAuthn: true,
    });
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    const html = await res.text();
    expect(html).toContain('document.forms[0].submit()');
    const posted = form(html);
    expect(posted.action).toBe(sp.acsUrl);
    expect(posted.relayState).toBe('relay-1');

    expect(idp.requests.at(-1)).toMatchObject({
      id: requestId,
      issuer: sp.entityId,
      destination: connection.ssoUrl,
      acsUrl: sp.acsUrl,
      protocolBinding: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST',
      forceAuthn: true,
    });

    const result = await validateSamlResponse({
      samlResponse: posted.samlResponse ?? '',
      connection,
      sp,
      requestId,
      now: new Date(),
    });
    expect(result).toMatchObject({
      ok: true,
      identity: { issuer: connection.entityId, subject: 'alice@example.com', email: 'alice@example.com' },
    });
  });

  it('signs in whoever the test sets, and its response answers only the request it was given', async () => {
    idp.user = {
      nameId: 'p-123',
      nameIdFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
      attributes: { mail: ['bob@example.com'] },
    };
    const first = await createAuthnRequest({ connection, sp, relayState: 'r' });
    const second = await createAuthnRequest({ connection, sp, relayState: 'r' });
    const posted = form(await (await fetch(first.url)).text());
    const check = (requestId: string) =>
      validateSamlResponse({
        samlResponse: posted.samlResponse ?? '',
        connection,
        sp,
        requestId,
        now: new Date(),
      });
    expect(await check(first.requestId)).toMatchObject({
      ok: true,
      identity: { subject: 'p-123', email: 'bob@example.com' },
    });
    expect(await check(second.requestId)).toMatchObject({ ok: false, reason: 'invalid_state' });
  });

  it('refuses a service provider it does not know, and an ACS other than the registered one', async () => {
    const stranger = {
      entityId: 'http://localhost:4000/api/v1/auth/sso/saml/t_2/metadata',
      acsUrl: sp.acsUrl,
    };
    const unknown = await createAuthnRequest({ connection, sp: stranger, relayState: 'r' });
    expect((await fetch(unknown.url)).status).toBe(400);
    const elsewhere = await createAuthnRequest({
      connection,
      sp: { ...sp, acsUrl: 'http://evil.test/acs' },
      relayState: 'r',
    });
    expect((await fetch(elsewhere.url)).status).toBe(400);
  });
});
