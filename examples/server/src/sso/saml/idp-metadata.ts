import { attribute, childrenNamed, DS, is, MD, parseXml, textOf, type XmlElement } from './saml-xml.js';

/** The largest metadata document read. Entra ID's, with its WS-Federation roles, is about 25 KiB. */
export const MAX_METADATA_BYTES = 512 * 1024;

const REDIRECT_BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
const SAML2_PROTOCOL = 'urn:oasis:names:tc:SAML:2.0:protocol';

/** What a connection takes from the identity provider's metadata. */
export interface IdpMetadata {
  entityId: string;
  /** The `SingleSignOnService` with the HTTP-Redirect binding. */
  ssoUrl: string;
  /** The signing certificates (PEM), in document order; not checked yet (see `checkCertificates`). */
  certificates: string[];
}

/** The result of {@link parseIdpMetadata}: the field `metadataXml` answers `invalid_metadata` on a failure. */
export type IdpMetadataResult =
  | { ok: true; metadata: IdpMetadata }
  | { ok: false; reason: 'invalid_metadata'; detail: string };

const fail = (detail: string): IdpMetadataResult => ({ ok: false, reason: 'invalid_metadata', detail });

const pem = (base64: string) =>
  `-----BEGIN CERTIFICATE-----\n${base64.match(/.{1,64}/g)?.join('\n')}\n-----END CERTIFICATE-----\n`;

/**
 * Reads an identity provider's SAML 2.0 metadata (an `EntityDescriptor`, or an `EntitiesDescriptor` with
 * exactly one): its entity ID, its HTTP-Redirect `SingleSignOnService` (an absolute http or https URL;
 * whether http is allowed is the caller's rule) and the certificates of its `KeyDescriptor`s for signing
 * (those without `use`, or `use="signing"`). No DTD; the metadata's own signature is not checked (the
 * owner who uploads it is what it is trusted for).
 *
 * @example
 * const result = parseIdpMetadata(body.metadataXml);
 * if (!result.ok) throw fieldError('metadataXml', 'invalid_metadata', result.detail);
 */
export function parseIdpMetadata(xml: string): IdpMetadataResult {
  if (Buffer.byteLength(xml, 'utf8') > MAX_METADATA_BYTES)
    return fail(`the metadata is larger than ${MAX_METADATA_BYTES} bytes`);
  const parsed = parseXml(xml.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n'));
  if (!parsed.ok) return fail(parsed.detail);
  let entity = parsed.root;
  if (is(entity, MD, 'EntitiesDescriptor')) {
    const entities = childrenNamed(entity, MD, 'EntityDescriptor');
    if (entities.length !== 1) return fail(`the metadata describes ${entities.length} entities, not one`);
    entity = entities[0] as XmlElement;
  }
  if (!is(entity, MD, 'EntityDescriptor')) return fail('the metadata is not a SAML 2.0 EntityDescriptor');
  const entityId = attribute(entity, 'entityID') ?? '';
  if (entityId === '' || entityId.length > 1024)
    return fail('the entityID is missing or longer than 1024 characters');

  const idps = childrenNamed(entity, MD, 'IDPSSODescriptor').filter((d) =>
    (attribute(d, 'protocolSupportEnumeration') ?? '').split(/\s+/).includes(SAML2_PROTOCOL),
  );
  if (idps.length !== 1) return fail(`the metadata has ${idps.length} SAML 2.0 IDPSSODescriptors, not one`);
  const idp = idps[0] as XmlElement;

  const sso = childrenNamed(idp, MD, 'SingleSignOnService').find(
    (s) => attribute(s, 'Binding') === REDIRECT_BINDING,
  );
  if (!sso) return fail('the identity provider has no SingleSignOnService with the HTTP-Redirect binding');
  const ssoUrl = attribute(sso, 'Location') ?? '';
  let url: URL;
  try {
    url = new URL(ssoUrl);
  } catch {
    return fail('the SingleSignOnService Location is not a URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return fail('the SingleSignOnService Location is not an http or https URL');

  const certificates: string[] = [];
  for (const key of childrenNamed(idp, MD, 'KeyDescriptor')) {
    const use = attribute(key, 'use');
    if (use !== null && use !== 'signing') continue;
    for (const keyInfo of childrenNamed(key, DS, 'KeyInfo'))
      for (const data of childrenNamed(keyInfo, DS, 'X509Data'))
        for (const cert of childrenNamed(data, DS, 'X509Certificate')) {
          const base64 = textOf(cert).replace(/\s+/g, '');
          if (base64 === '') return fail('an X509Certificate of the identity provider is empty');
          certificates.push(pem(base64));
        }
  }
  if (certificates.length === 0) return fail('the identity provider has no signing certificate');
  return { ok: true, metadata: { entityId, ssoUrl, certificates } };
}
