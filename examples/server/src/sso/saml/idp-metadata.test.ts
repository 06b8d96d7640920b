import { describe, expect, it } from 'vitest';
import { createFakeIdp } from '../../../../../test-support/saml/fake-idp.js';
import { selfSignedCertificate } from '../../../../../test-support/saml/x509.js';
import { checkCertificates } from './certificates.js';
import { MAX_METADATA_BYTES, parseIdpMetadata } from './idp-metadata.js';

const signing = selfSignedCertificate();
const next = selfSignedCertificate();
const encryption = selfSignedCertificate();
const REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
const POST = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';

const keyDescriptor = (base64: string, use?: string) =>
  `<KeyDescriptor${use ? ` use="${use}"` : ''}><KeyInfo xmlns="http://www.w3.org/2000/09/xmldsig#"><X509Data><X509Certificate>${base64.match(/.{1,64}/g)?.join('\n') ?? ''}</X509Certificate></X509Data></KeyInfo></KeyDescriptor>`;

/** The shape ADFS and Entra ID publish: default namespace, WS-Federation roles first, an encryption key. */
const adfsLike = (idp: string) => `<?xml version="1.0" encoding="utf-8"?>
<EntityDescriptor ID="_5c2a" entityID="http://adfs.contoso.com/adfs/services/trust" xmlns="urn:oasis:names:tc:SAML:2.0:metadata">
  <RoleDescriptor xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:fed="http://docs.oasis-open.org/wsfed/federation/200706" xsi:type="fed:SecurityTokenServiceType" protocolSupportEnumeration="http://docs.oasis-open.org/wsfed/federation/200706">
    ${keyDescriptor(encryption.base64, 'signing')}
  </RoleDescriptor>
  ${idp}
</EntityDescriptor>`;

const idpDescriptor = (inner: string, protocols = 'urn:oasis:names:tc:SAML:2.0:protocol') =>
  `<IDPSSODescriptor protocolSupportEnumeration="${protocols}">${inner}</IDPSSODescriptor>`;

describe('parseIdpMetadata', () => {
  it("reads the fake identity provider's metadata (prefixed namespaces)", () => {
    const idp = createFakeIdp({ baseUrl: 'https://idp.example.com' });
    expect(parseIdpMetadata(idp.metadataXml())).toEqual({
      ok: true,
      metadata: { entityId: idp.entityId, ssoUrl: idp.ssoUrl, certificates: [idp.certificate.pem] },
    });
  });

  it('reads ADFS-shaped metadata: the SAML role only, signing keys only (several: rollover), the HTTP-Redirect service', () => {
    const xml = adfsLike(
      idpDescriptor(
        keyDescriptor(encryption.base64, 'encryption') +
          keyDescriptor(signing.base64, 'signing') +
          keyDescriptor(next.base64) +
          `<SingleSignOnService Binding="${POST}" Location="https://adfs.contoso.com/adfs/ls/post"/>` +
          `<SingleSignOnService Binding="${REDIRECT}" Location="https://adfs.contoso.com/adfs/ls/"/>`,
        'urn:oasis:names:tc:SAML:1.1:protocol urn:oasis:names:tc:SAML:2.0:protocol',
      ),
    );
    const result = parseIdpMetadata(xml);
    expect(result).toEqual({
      ok: true,
      metadata: {
        entityId: 'http://adfs.contoso.com/adfs/services/trust',
        ssoUrl: 'https://adfs.contoso.com/adfs/ls/',
        certificates: [signing.pem, next.pem],
      },
    });
    // What it reads is what the certificate checks take.
    if (result.ok) expect(checkCertificates(result.metadata.certificates, new Date()).ok).toBe(true);
  });

  it('reads an EntitiesDescriptor that holds exactly one entity', () => {
    const idp = createFakeIdp({ baseUrl: 'https://idp.example.com' });
    const wrapped = `<md:EntitiesDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata">${idp.metadataXml()}</md:EntitiesDescriptor>`;
    expect(parseIdpMetadata(wrapped)).toMatchObject({ ok: true, metadata: { entityId: idp.entityId } });
    expect(
      parseIdpMetadata(
        wrapped.replace('</md:EntitiesDescriptor>', `${idp.metadataXml()}</md:EntitiesDescriptor>`),
      ),
    ).toMatchObject({ ok: false, reason: 'invalid_metadata' });
  });

  const sso = (location = 'https://adfs.contoso.com/adfs/ls/', binding = REDIRECT) =>
    `<SingleSignOnService Binding="${binding}" Location="${location}"/>`;
  /** ADFS-shaped metadata that is valid but for what `parts` change. */
  const doc = (parts: { keys?: string; services?: string; protocols?: string; extraRole?: boolean } = {}) => {
    const role = idpDescriptor(
      (parts.keys ?? keyDescriptor(signing.base64, 'signing')) + (parts.services ?? sso()),
      parts.protocols,
    );
    return adfsLike(parts.extraRole ? role + role : role);
  };

  it('reads the valid document the refusals below each change in one way', () => {
    expect(parseIdpMetadata(doc())).toMatchObject({ ok: true, metadata: { certificates: [signing.pem] } });
  });

  it.each([
    ['not XML', 'hello', /no root element/],
    [
      'not metadata',
      '<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol"/>',
      /not a SAML 2.0 EntityDescriptor/,
    ],
    ['a DTD', `<!DOCTYPE EntityDescriptor [<!ENTITY e "x">]>${doc()}`, /document type declaration/],
    ['no entityID', doc().replace(/entityID="[^"]*"/, ''), /entityID is missing/],
    [
      'an entityID over 1024 characters',
      doc().replace(/entityID="[^"]*"/, `entityID="https://x.test/${'a'.repeat(1024)}"`),
      /longer than 1024/,
    ],
    [
      'no SAML 2.0 IdP role',
      doc({ protocols: 'urn:oasis:names:tc:SAML:1.1:protocol' }),
      /has 0 SAML 2.0 IDPSSODescriptors/,
    ],
    ['two SAML 2.0 IdP roles', doc({ extraRole: true }), /has 2 SAML 2.0 IDPSSODescriptors/],
    [
      'no HTTP-Redirect service',
      doc({ services: sso(undefined, POST) }),
      /no SingleSignOnService with the HTTP-Redirect binding/,
    ],
    ['a relative service URL', doc({ services: sso('/sso') }), /Location is not a URL/],
    ['a javascript: service URL', doc({ services: sso('javascript:alert(1)') }), /not an http or https URL/],
    [
      'an encryption key only',
      doc({ keys: keyDescriptor(signing.base64, 'encryption') }),
      /no signing certificate/,
    ],
    ['an empty certificate', doc({ keys: keyDescriptor('') }), /X509Certificate .* is empty/],
    ['too large', `${doc()}${' '.repeat(MAX_METADATA_BYTES)}`, /larger than/],
  ])('refuses %s (invalid_metadata)', (_what, xml, detail) => {
    expect(parseIdpMetadata(xml)).toMatchObject({
      ok: false,
      reason: 'invalid_metadata',
      detail: expect.stringMatching(detail),
    });
  });
});
