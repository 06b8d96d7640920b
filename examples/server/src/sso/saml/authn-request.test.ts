import { inflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { selfSignedCertificate } from '../../../../../test-support/saml/x509.js';
import { createAuthnRequest } from './authn-request.js';
import { attribute, childrenNamed, parseXml, SAML, SAMLP, textOf } from './saml-xml.js';

const connection = {
  entityId: 'https://idp.example.com/metadata',
  ssoUrl: 'https://login.idp.example.com/saml2?tenant=contoso',
  certificates: [selfSignedCertificate().pem],
};
const sp = {
  entityId: 'https://auth.example.com/api/v1/auth/sso/saml/t_1/metadata',
  acsUrl: 'https://auth.example.com/api/v1/auth/sso/saml/t_1/acs',
};

function decode(url: string) {
  const u = new URL(url);
  const xml = inflateRawSync(Buffer.from(u.searchParams.get('SAMLRequest') ?? '', 'base64')).toString('utf8');
  const parsed = parseXml(xml);
  if (!parsed.ok) throw new Error(parsed.detail);
  return { u, root: parsed.root };
}

describe('createAuthnRequest', () => {
  it('redirects to the ssoUrl (its own query kept) with a deflated AuthnRequest and the RelayState', async () => {
    const { url, requestId } = await createAuthnRequest({ connection, sp, relayState: 'state-handle' });
    const { u, root } = decode(url);
    expect(`${u.origin}${u.pathname}`).toBe('https://login.idp.example.com/saml2');
    expect(u.searchParams.get('tenant')).toBe('contoso');
    expect(u.searchParams.get('RelayState')).toBe('state-handle');
    expect(u.searchParams.has('Signature')).toBe(false);
    expect(root.namespaceURI).toBe(SAMLP);
    expect(root.localName).toBe('AuthnRequest');
    expect(attribute(root, 'ID')).toBe(requestId);
    expect(attribute(root, 'Version')).toBe('2.0');
    expect(attribute(root, 'Destination')).toBe(connection.ssoUrl);
    expect(attribute(root, 'AssertionConsumerServiceURL')).toBe(sp.acsUrl);
    expect(attribute(root, 'ProtocolBinding')).toBe('urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST');
    expect(attribute(root, 'ForceAuthn')).toBeNull();
    expect(childrenNamed(root, SAML, 'Issuer').map(textOf)).toEqual([sp.entityId]);
  });

  it('asks for no NameID format and no authentication context, so any sign-in method the provider uses is served', async () => {
    const { root } = decode((await createAuthnRequest({ connection, sp, relayState: 's' })).url);
    const policy = childrenNamed(root, SAMLP, 'NameIDPolicy');
    expect(policy).toHaveLength(1);
    expect(attribute(policy[0]!, 'Format')).toBeNull();
    expect(childrenNamed(root, SAMLP, 'RequestedAuthnContext')).toEqual([]);
  });

  it('makes a fresh ID each time: an XML ID (not starting with a digit) of 160 random bits', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++)
      ids.add((await createAuthnRequest({ connection, sp, relayState: 's' })).requestId);
    expect(ids.size).toBe(20);
    for (const id of ids) expect(id).toMatch(/^_[0-9a-f]{40}$/);
  });

  it('asks the provider to authenticate again with ForceAuthn="true" for a re-authentication', async () => {
    const { root } = decode(
      (await createAuthnRequest({ connection, sp, relayState: 's', forceAuthn: true })).url,
    );
    expect(attribute(root, 'ForceAuthn')).toBe('true');
  });
});
