/*
 * SAML 2.0 responses as strings, written from templates: no XML library, so that the corpus built on
 * them can be run by an application whatever XML stack it has (core's testing entry point imports none).
 * Every element declares the namespaces it uses, so an element keeps its exclusive canonical form
 * (and so its signature) wherever the corpus moves it.
 */

export const SAMLP = 'urn:oasis:names:tc:SAML:2.0:protocol';
export const SAML = 'urn:oasis:names:tc:SAML:2.0:assertion';
export const DS = 'http://www.w3.org/2000/09/xmldsig#';

export const STATUS_SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success';
export const STATUS_RESPONDER = 'urn:oasis:names:tc:SAML:2.0:status:Responder';
export const STATUS_REQUESTER = 'urn:oasis:names:tc:SAML:2.0:status:Requester';
export const STATUS_AUTHN_FAILED = 'urn:oasis:names:tc:SAML:2.0:status:AuthnFailed';

export const NAMEID_EMAIL = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
export const NAMEID_PERSISTENT = 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent';
export const CM_BEARER = 'urn:oasis:names:tc:SAML:2.0:cm:bearer';
export const CM_HOLDER_OF_KEY = 'urn:oasis:names:tc:SAML:2.0:cm:holder-of-key';
export const AC_PASSWORD_PROTECTED = 'urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport';

export const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
export const RSA_SHA1 = 'http://www.w3.org/2000/09/xmldsig#rsa-sha1';
export const DIGEST_SHA256 = 'http://www.w3.org/2001/04/xmlenc#sha256';
export const DIGEST_SHA1 = 'http://www.w3.org/2000/09/xmldsig#sha1';
export const EXC_C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#';
export const EXC_C14N_WITH_COMMENTS = 'http://www.w3.org/2001/10/xml-exc-c14n#WithComments';

/** Escapes text for XML content and attribute values. */
export function xmlEscape(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

const attr = (name: string, value: string | Date | null | undefined) =>
  value == null ? '' : ` ${name}="${xmlEscape(value instanceof Date ? value.toISOString() : value)}"`;

/** What an assertion says. `null` leaves an optional part out. */
export interface AssertionFields {
  id: string;
  issueInstant: Date;
  issuer: string;
  nameId: string | null;
  nameIdFormat?: string | null;
  /** Raw XML added inside `Subject` after the NameID. */
  subjectExtra?: string;
  subjectConfirmations: Array<{
    method?: string;
    recipient?: string | null;
    notBefore?: Date | string | null;
    notOnOrAfter?: Date | string | null;
    inResponseTo?: string | null;
  }>;
  conditions: {
    /** A `Date`, or the attribute's text as is. */
    notBefore?: Date | string | null;
    notOnOrAfter?: Date | string | null;
    /** One `AudienceRestriction` per inner list. */
    audienceRestrictions: string[][];
    /** Raw XML added inside `Conditions`. */
    extra?: string;
  } | null;
  authnInstant: Date | null;
  attributes?: Record<string, string[]>;
  version?: string;
}

/** An assertion, unsigned. */
export function assertionXml(a: AssertionFields): string {
  const subjectConfirmations = a.subjectConfirmations
    .map(
      (sc) =>
        `<saml:SubjectConfirmation${attr('Method', sc.method ?? CM_BEARER)}>` +
        `<saml:SubjectConfirmationData${attr('NotBefore', sc.notBefore)}${attr('NotOnOrAfter', sc.notOnOrAfter)}` +
        `${attr('Recipient', sc.recipient)}${attr('InResponseTo', sc.inResponseTo)}/>` +
        '</saml:SubjectConfirmation>',
    )
    .join('');
  const nameId =
    a.nameId == null
      ? ''
      : `<saml:NameID${attr('Format', a.nameIdFormat)}>${xmlEscape(a.nameId)}</saml:NameID>`;
  const conditions = a.conditions
    ? `<saml:Conditions${attr('NotBefore', a.conditions.notBefore)}${attr('NotOnOrAfter', a.conditions.notOnOrAfter)}>` +
      a.conditions.audienceRestrictions
        .map(
          (audiences) =>
            `<saml:AudienceRestriction>${audiences.map((x) => `<saml:Audience>${xmlEscape(x)}</saml:Audience>`).join('')}</saml:AudienceRestriction>`,
        )
        .join('') +
      (a.conditions.extra ?? '') +
      '</saml:Conditions>'
    : '';
  const authn = a.authnInstant
    ? `<saml:AuthnStatement${attr('AuthnInstant', a.authnInstant)} SessionIndex="${xmlEscape(`${a.id}-session`)}">` +
      `<saml:AuthnContext><saml:AuthnContextClassRef>${AC_PASSWORD_PROTECTED}</saml:AuthnContextClassRef></saml:AuthnContext>` +
      '</saml:AuthnStatement>'
    : '';
  const attributes = Object.entries(a.attributes ?? {});
  const attributeStatement = attributes.length
    ? `<saml:AttributeStatement>${attributes
        .map(
          ([name, values]) =>
            `<saml:Attribute Name="${xmlEscape(name)}" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:unspecified">` +
            values
              .map((v) => `<saml:AttributeValue xsi:type="xs:string">${xmlEscape(v)}</saml:AttributeValue>`)
              .join('') +
            '</saml:Attribute>',
        )
        .join('')}</saml:AttributeStatement>`
    : '';
  return (
    `<saml:Assertion xmlns:saml="${SAML}" xmlns:xs="http://www.w3.org/2001/XMLSchema" ` +
    `xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"${attr('ID', a.id)}${attr('Version', a.version ?? '2.0')}` +
    `${attr('IssueInstant', a.issueInstant)}>` +
    `<saml:Issuer>${xmlEscape(a.issuer)}</saml:Issuer>` +
    `<saml:Subject>${nameId}${a.subjectExtra ?? ''}${subjectConfirmations}</saml:Subject>` +
    conditions +
    authn +
    attributeStatement +
    '</saml:Assertion>'
  );
}

/** What a response says around its assertions. */
export interface ResponseFields {
  id: string;
  issueInstant: Date;
  issuer?: string | null;
  destination?: string | null;
  inResponseTo?: string | null;
  status?: { code: string; subcode?: string; message?: string };
  version?: string;
}

/** A response around `content` (assertions, or nothing), unsigned; `extensions` is raw XML for `samlp:Extensions`. */
export function responseXml(r: ResponseFields, content: string, extensions?: string): string {
  const status = r.status ?? { code: STATUS_SUCCESS };
  const statusCode = status.subcode
    ? `<samlp:StatusCode Value="${status.code}"><samlp:StatusCode Value="${status.subcode}"/></samlp:StatusCode>`
    : `<samlp:StatusCode Value="${status.code}"/>`;
  return (
    `<samlp:Response xmlns:samlp="${SAMLP}" xmlns:saml="${SAML}"${attr('ID', r.id)}${attr('Version', r.version ?? '2.0')}` +
    `${attr('IssueInstant', r.issueInstant)}${attr('Destination', r.destination)}${attr('InResponseTo', r.inResponseTo)}>` +
    (r.issuer == null ? '' : `<saml:Issuer>${xmlEscape(r.issuer)}</saml:Issuer>`) +
    (extensions == null ? '' : `<samlp:Extensions>${extensions}</samlp:Extensions>`) +
    `<samlp:Status>${statusCode}${status.message ? `<samlp:StatusMessage>${xmlEscape(status.message)}</samlp:StatusMessage>` : ''}</samlp:Status>` +
    content +
    '</samlp:Response>'
  );
}

/**
 * Puts a `<Signature>` element where SAML's schema wants it in the element that `xml` starts with:
 * right after that element's `Issuer` (its first), or first inside it when it has none.
 */
export function insertSignature(xml: string, signature: string): string {
  const issuerEnd = '</saml:Issuer>';
  const startTagEnd = xml.indexOf('>') + 1;
  const firstChild = xml.indexOf('<', startTagEnd);
  const at = xml.startsWith('<saml:Issuer>', firstChild)
    ? xml.indexOf(issuerEnd) + issuerEnd.length
    : startTagEnd;
  return xml.slice(0, at) + signature + xml.slice(at);
}

/** Adds `content` as the last child of the element `element` (an element string, such as a `<Signature>`). */
export function appendChild(element: string, content: string): string {
  const at = element.lastIndexOf('</');
  return element.slice(0, at) + content + element.slice(at);
}

/** What a well-behaved identity provider puts in an assertion answering a request. */
export interface StandardAssertionInput {
  id: string;
  now: Date;
  issuer: string;
  nameId: string;
  nameIdFormat?: string;
  attributes?: Record<string, string[]>;
  /** The service provider's entity ID. */
  audience: string;
  /** Its ACS URL. */
  recipient: string;
  /** The request's ID; `null` for an IdP-initiated response. */
  inResponseTo: string | null;
}

/**
 * The assertion Entra ID, Okta or Google send: bearer confirmation for the ACS with `InResponseTo`,
 * five minutes of validity, the audience, an authentication statement.
 */
export function standardAssertion(p: StandardAssertionInput): AssertionFields {
  const inFiveMinutes = new Date(p.now.getTime() + 5 * 60_000);
  return {
    id: p.id,
    issueInstant: p.now,
    issuer: p.issuer,
    nameId: p.nameId,
    nameIdFormat: p.nameIdFormat ?? NAMEID_EMAIL,
    subjectConfirmations: [
      { recipient: p.recipient, notOnOrAfter: inFiveMinutes, inResponseTo: p.inResponseTo },
    ],
    conditions: {
      notBefore: new Date(p.now.getTime() - 30_000),
      notOnOrAfter: inFiveMinutes,
      audienceRestrictions: [[p.audience]],
    },
    authnInstant: new Date(p.now.getTime() - 5_000),
    ...(p.attributes ? { attributes: p.attributes } : {}),
  };
}

/** The `SAMLResponse` form field: the response, base64. */
export const toSamlResponse = (xml: string) => Buffer.from(xml, 'utf8').toString('base64');
