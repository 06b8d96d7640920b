import { randomBytes } from 'node:crypto';
import {
  assertionXml,
  DIGEST_SHA256,
  insertSignature,
  NAMEID_EMAIL,
  NAMEID_PERSISTENT,
  RSA_SHA256,
  responseXml,
  standardAssertion,
  toSamlResponse,
  xmlEscape,
} from './saml-builder.js';
import type { SamlSigner } from './saml-corpus.js';
import { selfSignedCertificate, type TestCertificate } from './x509.js';
import { xmlCryptoSigner } from './xml-crypto-signer.js';

/** Who the fake identity provider signs in. */
export interface FakeIdpUser {
  nameId: string;
  /** Default emailAddress. */
  nameIdFormat?: string;
  attributes?: Record<string, string[]>;
}

/** What a response answers: the service provider's request. */
export interface FakeIdpResponseInput {
  sp: { entityId: string; acsUrl: string };
  /** The `AuthnRequest`'s ID; `null` for an IdP-initiated response. */
  inResponseTo: string | null;
  user: FakeIdpUser;
  /** Default now. */
  now?: Date;
  /** Sign the whole response instead of the assertion (default: the assertion, as most providers do). */
  signResponse?: boolean;
}

/** An identity provider made in the test: its own keys and certificate, its metadata, signed responses. */
export interface FakeIdp {
  entityId: string;
  ssoUrl: string;
  certificate: TestCertificate;
  /** Its SAML 2.0 metadata (HTTP-Redirect and HTTP-POST `SingleSignOnService`s, the signing certificate). */
  metadataXml(): string;
  /** A signed response, as the `SAMLResponse` form field (base64). */
  response(input: FakeIdpResponseInput): string;
}

/**
 * A fake identity provider at `baseUrl` (entity ID `<baseUrl>/metadata`, single sign-on at `<baseUrl>/sso`).
 *
 * @example
 * const idp = createFakeIdp({ baseUrl: 'https://idp.example.com' });
 * const samlResponse = idp.response({ sp, inResponseTo: requestId, user: { nameId: 'alice@example.com' } });
 */
export function createFakeIdp(options: { baseUrl: string; signer?: SamlSigner }): FakeIdp {
  const signer = options.signer ?? xmlCryptoSigner;
  const entityId = `${options.baseUrl}/metadata`;
  const ssoUrl = `${options.baseUrl}/sso`;
  const certificate = selfSignedCertificate({ commonName: new URL(options.baseUrl).hostname });
  const sign = (xml: string, id: string) =>
    insertSignature(
      xml,
      signer.sign({
        xml,
        id,
        privateKey: certificate.privateKey,
        certificate: certificate.pem,
        signatureAlgorithm: RSA_SHA256,
        digestAlgorithm: DIGEST_SHA256,
      }),
    );
  return {
    entityId,
    ssoUrl,
    certificate,
    metadataXml: () =>
      `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${xmlEscape(entityId)}">` +
      '<md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol" WantAuthnRequestsSigned="false">' +
      `<md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${certificate.base64}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>` +
      `<md:NameIDFormat>${NAMEID_EMAIL}</md:NameIDFormat><md:NameIDFormat>${NAMEID_PERSISTENT}</md:NameIDFormat>` +
      `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${xmlEscape(ssoUrl)}"/>` +
      `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${xmlEscape(ssoUrl)}"/>` +
      '</md:IDPSSODescriptor></md:EntityDescriptor>',
    response(input) {
      const now = input.now ?? new Date();
      const id = (prefix: string) => `_${prefix}${randomBytes(16).toString('hex')}`;
      const a = standardAssertion({
        id: id('a'),
        now,
        issuer: entityId,
        nameId: input.user.nameId,
        ...(input.user.nameIdFormat ? { nameIdFormat: input.user.nameIdFormat } : {}),
        ...(input.user.attributes ? { attributes: input.user.attributes } : {}),
        audience: input.sp.entityId,
        recipient: input.sp.acsUrl,
        inResponseTo: input.inResponseTo,
      });
      const r = {
        id: id('r'),
        issueInstant: now,
        issuer: entityId,
        destination: input.sp.acsUrl,
        inResponseTo: input.inResponseTo,
      };
      const xml = input.signResponse
        ? sign(responseXml(r, assertionXml(a)), r.id)
        : responseXml(r, sign(assertionXml(a), a.id));
      return toSamlResponse(xml);
    },
  };
}
