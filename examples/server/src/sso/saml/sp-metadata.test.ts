import { describe, expect, it } from 'vitest';
import { attribute, childrenNamed, MD, parseXml, textOf } from './saml-xml.js';
import { serviceProviderMetadata } from './sp-metadata.js';

const sp = {
  entityId: 'https://auth.example.com/api/v1/auth/sso/saml/t_1/metadata',
  acsUrl: 'https://auth.example.com/api/v1/auth/sso/saml/t_1/acs',
};

describe('serviceProviderMetadata', () => {
  it('states the entity ID, one HTTP-POST ACS, WantAssertionsSigned, and the NameID formats emailAddress and persistent', () => {
    const parsed = parseXml(serviceProviderMetadata(sp));
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const root = parsed.root;
    expect([root.namespaceURI, root.localName, attribute(root, 'entityID')]).toEqual([
      MD,
      'EntityDescriptor',
      sp.entityId,
    ]);
    const [descriptor, ...others] = childrenNamed(root, MD, 'SPSSODescriptor');
    expect(others).toEqual([]);
    if (!descriptor) return;
    expect(attribute(descriptor, 'protocolSupportEnumeration')).toBe('urn:oasis:names:tc:SAML:2.0:protocol');
    expect(attribute(descriptor, 'WantAssertionsSigned')).toBe('true');
    expect(attribute(descriptor, 'AuthnRequestsSigned')).toBe('false');
    expect(childrenNamed(descriptor, MD, 'NameIDFormat').map(textOf)).toEqual([
      'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
      'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
    ]);
    const acs = childrenNamed(descriptor, MD, 'AssertionConsumerService');
    expect(acs.map((a) => [attribute(a, 'Binding'), attribute(a, 'Location')])).toEqual([
      ['urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST', sp.acsUrl],
    ]);
    expect(childrenNamed(descriptor, MD, 'KeyDescriptor')).toEqual([]);
  });

  it('escapes what it puts in attributes', () => {
    const parsed = parseXml(
      serviceProviderMetadata({ entityId: 'https://a.test/?x="1"&y=<2>', acsUrl: sp.acsUrl }),
    );
    expect(parsed.ok && attribute(parsed.root, 'entityID')).toBe('https://a.test/?x="1"&y=<2>');
  });
});
