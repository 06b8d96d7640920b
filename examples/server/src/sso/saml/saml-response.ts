import { SAML, ValidateInResponseTo } from '@node-saml/node-saml';
import type {
  SamlConnection,
  SamlIdentity,
  SamlResponseFailure,
  SamlResponseResult,
  SamlServiceProvider,
} from './saml-types.js';
import {
  allElements,
  attribute,
  childrenNamed,
  DS,
  elementChildren,
  elementsNamedAnywhere,
  is,
  parseXml,
  SAML as SAML_NS,
  SAMLP,
  textOf,
  type XmlElement,
} from './saml-xml.js';

/*
 * The check of a posted SAMLResponse (docs/http-api.md, "SAML 2.0 single sign-on per tenant"). The work
 * is split so that each rule is stated once:
 *
 * - node-saml 5.1 verifies the XML signature: exactly one enveloped signature on the response or on its
 *   assertion, one reference, to the element that carries it, that ID unique in the document, the
 *   digest and the RSA signature against the connection's certificates (never a certificate the response
 *   carries itself). Its own checks of time, audience and InResponseTo are turned off: it reads the
 *   clock itself, so they move here, where the caller's clock is, with the rest of the protocol's rules.
 * - This module parses the response once (the same parser, at the same version, node-saml and xml-crypto
 *   verify with, on the same normalised bytes), refuses anything that could let the verified element and
 *   the one read differ (a DTD, a second or encrypted assertion, an assertion anywhere but under the
 *   response, a signature elsewhere than on the response or the assertion, a reference to another
 *   element, a repeated ID, an algorithm other than RSA-SHA256/512 and SHA-256/512), and reads the
 *   identity from that one assertion, which every signature node-saml can have verified covers.
 */

/** The clock skew allowed on every `NotBefore` and `NotOnOrAfter`. */
export const CLOCK_SKEW_MS = 60_000;

/** The largest decoded response read (the ACS takes form bodies up to 256 KiB). */
export const MAX_RESPONSE_BYTES = 256 * 1024;

const STATUS_SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success';
const NAMEID_EMAIL = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
const CM_BEARER = 'urn:oasis:names:tc:SAML:2.0:cm:bearer';
/** The attributes an email is read from when the NameID is not an email address, first found first. */
const EMAIL_ATTRIBUTES = [
  'email',
  'mail',
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress',
];

const SIGNATURE_ALGORITHMS = new Set([
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha512',
]);
const DIGEST_ALGORITHMS = new Set([
  'http://www.w3.org/2001/04/xmlenc#sha256',
  'http://www.w3.org/2001/04/xmlenc#sha512',
]);
const CANONICALIZATIONS = new Set([
  'http://www.w3.org/2001/10/xml-exc-c14n#',
  'http://www.w3.org/TR/2001/REC-xml-c14n-20010315',
]);
const TRANSFORMS = new Set([...CANONICALIZATIONS, 'http://www.w3.org/2000/09/xmldsig#enveloped-signature']);
/** Conditions this service provider understands (SAML core 2.5.1: any other makes the assertion invalid). */
const KNOWN_CONDITIONS = new Set(['AudienceRestriction', 'OneTimeUse', 'ProxyRestriction']);
const ID_ATTRIBUTES = new Set(['ID', 'Id', 'id']);

class Refusal extends Error {
  constructor(
    readonly reason: SamlResponseFailure,
    readonly detail: string,
  ) {
    super(detail);
  }
}

const refuse = (detail: string, reason: SamlResponseFailure = 'invalid_response'): never => {
  throw new Refusal(reason, detail);
};

/** A value from the response, for a log line: quoted, cut short, no control characters. */
const quote = (value: string) => JSON.stringify(value.length > 200 ? `${value.slice(0, 200)}…` : value);

/** Exactly one child `{ns}localName` of `parent`, else a refusal naming `what`. */
function single(parent: XmlElement, ns: string, localName: string, what: string): XmlElement {
  const found = childrenNamed(parent, ns, localName);
  if (found.length !== 1)
    refuse(found.length === 0 ? `${what} is missing` : `${what} appears ${found.length} times`);
  return found[0] as XmlElement;
}

/** An xs:dateTime (UTC when it has no zone, as SAML core 1.3.3 wants them all), or a refusal. */
function instant(value: string | null, what: string): Date {
  if (value === null) return refuse(`${what} is missing`);
  const match = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(Z|[+-]\d\d:\d\d)?$/.exec(value);
  const ms = match ? Date.parse(match[1] ? value : `${value}Z`) : Number.NaN;
  return Number.isNaN(ms) ? refuse(`${what} is not an xs:dateTime: ${quote(value)}`) : new Date(ms);
}

/** `NotBefore`/`NotOnOrAfter` of `el` at `now`, with the clock skew; returns `NotOnOrAfter` (or `null`). */
function window(el: XmlElement, now: Date, what: string, notOnOrAfterRequired: boolean): Date | null {
  const notBefore = attribute(el, 'NotBefore');
  if (notBefore !== null && now.getTime() + CLOCK_SKEW_MS < instant(notBefore, `${what} NotBefore`).getTime())
    refuse(`${what} is not valid before ${notBefore}`);
  const raw = attribute(el, 'NotOnOrAfter');
  if (raw === null) return notOnOrAfterRequired ? refuse(`${what} has no NotOnOrAfter`) : null;
  const notOnOrAfter = instant(raw, `${what} NotOnOrAfter`);
  if (now.getTime() - CLOCK_SKEW_MS >= notOnOrAfter.getTime()) refuse(`${what} expired at ${raw}`);
  return notOnOrAfter;
}

function decode(samlResponse: string): string {
  const compact = samlResponse.replace(/[ \t\r\n]+/g, '');
  if (compact.length > Math.ceil(MAX_RESPONSE_BYTES / 3) * 4)
    refuse(`the response is larger than ${MAX_RESPONSE_BYTES} bytes`);
  if (
    !/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(compact) ||
    compact.length === 0
  )
    refuse('SAMLResponse is not base64');
  let xml: string;
  try {
    xml = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(compact, 'base64'));
  } catch {
    return refuse('the response is not UTF-8');
  }
  // XML processors normalise line ends (XML 1.0 2.11) and node-saml does before it verifies: do it once,
  // here, and hand node-saml these bytes, so what is verified and what is read are the same text.
  return xml.replace(/\r\n?/g, '\n');
}

/** The top-level status; a refusal when it is not Success (`idp_error` only when the response carries no assertion). */
function checkStatus(root: XmlElement): void {
  const status = single(root, SAMLP, 'Status', 'the response Status');
  const code = single(status, SAMLP, 'StatusCode', 'the response StatusCode');
  const value = attribute(code, 'Value') ?? '';
  if (value === STATUS_SUCCESS) return;
  const second = childrenNamed(code, SAMLP, 'StatusCode')[0];
  const said = `${quote(value)}${second ? ` (${quote(attribute(second, 'Value') ?? '')})` : ''}`;
  const carriesAssertion =
    elementsNamedAnywhere(root, 'Assertion').length +
      elementsNamedAnywhere(root, 'EncryptedAssertion').length >
    0;
  if (carriesAssertion) refuse(`the status is ${said}, not Success, yet the response carries an assertion`);
  refuse(`the identity provider answered the status ${said}`, 'idp_error');
}

/** The one assertion, directly under the response; a refusal for none, several, an encrypted one, or one elsewhere. */
function theAssertion(root: XmlElement): XmlElement {
  const encrypted = elementsNamedAnywhere(root, 'EncryptedAssertion').length;
  if (encrypted > 0) refuse('the response carries an EncryptedAssertion (assertions are not decrypted here)');
  const assertions = elementsNamedAnywhere(root, 'Assertion');
  if (assertions.length !== 1)
    refuse(`the response carries ${assertions.length} assertions, not exactly one`);
  const assertion = assertions[0] as XmlElement;
  if (!is(assertion, SAML_NS, 'Assertion') || assertion.parentNode !== root)
    refuse('the assertion is not a SAML assertion directly inside the response');
  return assertion;
}

/** Every ID-like attribute (`ID`, `Id`, `id`, in any namespace) names one element only. */
function checkUniqueIds(root: XmlElement): void {
  const seen = new Set<string>();
  for (const el of allElements(root)) {
    for (let i = 0; i < el.attributes.length; i++) {
      const a = el.attributes.item(i);
      if (!a || !ID_ATTRIBUTES.has(a.localName ?? a.name)) continue;
      if (seen.has(a.value)) refuse(`two elements carry the ID ${quote(a.value)}`);
      seen.add(a.value);
    }
  }
}

/** The algorithms and the reference of the signature `signature`, a child of `parent`. */
function checkSignatureShape(signature: XmlElement, parent: XmlElement, what: string): void {
  const signedInfo = single(signature, DS, 'SignedInfo', `the ${what} signature's SignedInfo`);
  const algorithm = (el: XmlElement | undefined) => (el ? (attribute(el, 'Algorithm') ?? '') : '');
  const c14n = algorithm(childrenNamed(signedInfo, DS, 'CanonicalizationMethod')[0]);
  if (!CANONICALIZATIONS.has(c14n))
    refuse(`the ${what} signature's canonicalization ${quote(c14n)} is not allowed`);
  const method = algorithm(childrenNamed(signedInfo, DS, 'SignatureMethod')[0]);
  if (!SIGNATURE_ALGORITHMS.has(method))
    refuse(`the ${what} signature's algorithm ${quote(method)} is not RSA-SHA256 or stronger`);
  const references = childrenNamed(signedInfo, DS, 'Reference');
  if (references.length !== 1) refuse(`the ${what} signature has ${references.length} references, not one`);
  const reference = references[0] as XmlElement;
  const id = attribute(parent, 'ID');
  if (!id || attribute(reference, 'URI') !== `#${id}`)
    refuse(`the ${what} signature's reference is not to the ${what}'s own ID`);
  const digest = algorithm(childrenNamed(reference, DS, 'DigestMethod')[0]);
  if (!DIGEST_ALGORITHMS.has(digest))
    refuse(`the ${what} signature's digest ${quote(digest)} is not SHA-256 or stronger`);
  const transforms = childrenNamed(reference, DS, 'Transforms')[0];
  for (const transform of transforms ? childrenNamed(transforms, DS, 'Transform') : []) {
    if (!TRANSFORMS.has(algorithm(transform)))
      refuse(`the ${what} signature's transform ${quote(algorithm(transform))} is not allowed`);
  }
}

function checkSignatures(root: XmlElement, assertion: XmlElement): void {
  const onResponse = childrenNamed(root, DS, 'Signature');
  const onAssertion = childrenNamed(assertion, DS, 'Signature');
  if (onResponse.length + onAssertion.length === 0)
    refuse('neither the response nor the assertion is signed');
  if (onResponse.length > 1 || onAssertion.length > 1)
    refuse('the response or the assertion carries several signatures');
  for (const s of onResponse) checkSignatureShape(s, root, 'response');
  for (const s of onAssertion) checkSignatureShape(s, assertion, 'assertion');
}

/** Whether node-saml verifies a signature of the response or of its assertion with one of the certificates. */
async function verifySignature(
  xml: string,
  connection: SamlConnection,
  sp: SamlServiceProvider,
): Promise<void> {
  const saml = new SAML({
    callbackUrl: sp.acsUrl,
    issuer: sp.entityId,
    entryPoint: connection.ssoUrl,
    idpIssuer: connection.entityId,
    idpCert: [...connection.certificates],
    // Either the response or the assertion signed (docs/http-api.md), the signature node-saml verifies
    // being the one whose bytes it then reads.
    wantAuthnResponseSigned: false,
    wantAssertionsSigned: false,
    // Checked below with the caller's clock and request ID (node-saml reads Date.now and keeps its own cache).
    acceptedClockSkewMs: -1,
    audience: false,
    validateInResponseTo: ValidateInResponseTo.never,
  });
  try {
    const { profile } = await saml.validatePostResponseAsync({
      SAMLResponse: Buffer.from(xml).toString('base64'),
    });
    if (!profile) refuse('node-saml found no signed assertion');
  } catch (err) {
    if (err instanceof Refusal) throw err;
    refuse(`node-saml refused the response or its signature: ${(err as Error).message}`);
  }
}

/** The email of the contract's rule, or a refusal. */
function emailOf(assertion: XmlElement, nameId: XmlElement, subject: string): string {
  if (attribute(nameId, 'Format') === NAMEID_EMAIL) return subject;
  const values = new Map<string, string>();
  for (const statement of childrenNamed(assertion, SAML_NS, 'AttributeStatement')) {
    for (const attr of childrenNamed(statement, SAML_NS, 'Attribute')) {
      const name = attribute(attr, 'Name') ?? '';
      const value = childrenNamed(attr, SAML_NS, 'AttributeValue')
        .map(textOf)
        .find((v) => v !== '');
      if (value !== undefined && !values.has(name)) values.set(name, value);
    }
  }
  for (const name of EMAIL_ATTRIBUTES) {
    const value = values.get(name);
    if (value !== undefined) return value;
  }
  return refuse(
    `the NameID is not an email address and none of the attributes ${EMAIL_ATTRIBUTES.join(', ')} is present`,
  );
}

/**
 * The bearer confirmation that holds: `Recipient` = the ACS, its time window, `InResponseTo` = the
 * request this browser made. Returns its `NotOnOrAfter`; when none holds, the first one's refusal.
 */
function confirmedUntil(subject: XmlElement, sp: SamlServiceProvider, requestId: string, now: Date): Date {
  const bearers = childrenNamed(subject, SAML_NS, 'SubjectConfirmation').filter(
    (sc) => attribute(sc, 'Method') === CM_BEARER,
  );
  if (bearers.length === 0) refuse('the assertion has no bearer SubjectConfirmation');
  let first: Refusal | null = null;
  for (const sc of bearers) {
    try {
      const data = single(sc, SAML_NS, 'SubjectConfirmationData', 'the bearer SubjectConfirmationData');
      const recipient = attribute(data, 'Recipient');
      if (recipient !== sp.acsUrl)
        refuse(
          `the bearer confirmation's Recipient is ${recipient === null ? 'missing' : quote(recipient)}, not the ACS`,
        );
      const until = window(data, now, 'the bearer confirmation', true) as Date;
      const inResponseTo = attribute(data, 'InResponseTo');
      if (inResponseTo === null)
        refuse('the assertion answers no request (unsolicited, IdP-initiated)', 'invalid_state');
      if (inResponseTo !== requestId)
        refuse(
          `the assertion answers the request ${quote(inResponseTo ?? '')}, not this browser's`,
          'invalid_state',
        );
      return until;
    } catch (err) {
      if (!(err instanceof Refusal)) throw err;
      first ??= err;
    }
  }
  throw first;
}

async function check(input: ValidateSamlResponseInput): Promise<SamlIdentity> {
  const { connection, sp, requestId, now } = input;
  const xml = decode(input.samlResponse);
  const parsed = parseXml(xml);
  if (!parsed.ok) return refuse(parsed.detail);
  const root = parsed.root;
  if (!is(root, SAMLP, 'Response')) refuse(`the XML is a ${quote(parsed.root.tagName)}, not a SAML Response`);
  checkStatus(root);
  const assertion = theAssertion(root);
  checkSignatures(root, assertion);
  checkUniqueIds(root);

  for (const responseIssuer of childrenNamed(root, SAML_NS, 'Issuer')) {
    if (textOf(responseIssuer) !== connection.entityId)
      refuse(`the response's Issuer is ${quote(textOf(responseIssuer))}, not the connection's entity ID`);
  }
  const destination = attribute(root, 'Destination');
  if (destination !== null && destination !== sp.acsUrl)
    refuse(`the response's Destination is ${quote(destination)}, not the ACS`);

  await verifySignature(xml, connection, sp);

  // From here on, everything is read from the assertion the verified signature covers.
  const issuer = textOf(single(assertion, SAML_NS, 'Issuer', "the assertion's Issuer"));
  if (issuer !== connection.entityId)
    refuse(`the assertion's Issuer is ${quote(issuer)}, not the connection's entity ID`);

  const conditions = single(assertion, SAML_NS, 'Conditions', 'the assertion Conditions');
  const conditionsUntil = window(conditions, now, 'the assertion Conditions', false);
  const restrictions = childrenNamed(conditions, SAML_NS, 'AudienceRestriction');
  if (restrictions.length === 0) refuse('the assertion has no AudienceRestriction');
  for (const restriction of restrictions) {
    const audiences = childrenNamed(restriction, SAML_NS, 'Audience').map(textOf);
    if (!audiences.includes(sp.entityId))
      refuse(
        `the assertion's audience is ${audiences.map(quote).join(', ') || 'empty'}, not this service provider`,
      );
  }
  for (const condition of elementChildren(conditions)) {
    if (condition.namespaceURI !== SAML_NS || !KNOWN_CONDITIONS.has(condition.localName ?? ''))
      refuse(
        `the assertion has a condition this service provider does not understand (${quote(condition.tagName)})`,
      );
  }

  const responseInResponseTo = attribute(root, 'InResponseTo');
  if (responseInResponseTo !== null && responseInResponseTo !== requestId)
    refuse(
      `the response answers the request ${quote(responseInResponseTo)}, not this browser's`,
      'invalid_state',
    );
  const subjectEl = single(assertion, SAML_NS, 'Subject', 'the assertion Subject');
  const confirmed = confirmedUntil(subjectEl, sp, requestId, now);

  const nameId = single(subjectEl, SAML_NS, 'NameID', 'the NameID');
  const subject = textOf(nameId);
  if (subject === '') refuse('the NameID is empty');
  const email = emailOf(assertion, nameId, subject);

  const authn = childrenNamed(assertion, SAML_NS, 'AuthnStatement')[0];
  if (!authn) refuse('the assertion has no AuthnStatement');
  const authnInstant = instant(attribute(authn as XmlElement, 'AuthnInstant'), 'AuthnInstant');

  const assertionId = attribute(assertion, 'ID');
  if (!assertionId) return refuse('the assertion has no ID');
  const notOnOrAfter =
    conditionsUntil && conditionsUntil.getTime() < confirmed.getTime() ? conditionsUntil : confirmed;
  return { issuer, subject, email, assertionId, notOnOrAfter, authnInstant };
}

/** What {@link validateSamlResponse} checks a response against. */
export interface ValidateSamlResponseInput {
  /** The `SAMLResponse` form field as posted (base64). */
  samlResponse: string;
  connection: SamlConnection;
  sp: SamlServiceProvider;
  /** The `AuthnRequest` ID this browser's state kept (from {@link createAuthnRequest}). */
  requestId: string;
  /** The clock. */
  now: Date;
}

/**
 * Checks a `SAMLResponse` posted to the ACS and reads who signed in, or says why it is refused:
 * `idp_error` (the identity provider answered an error status and no assertion), `invalid_state` (no
 * `InResponseTo`, or another than `requestId`) or `invalid_response` (everything else). It keeps no
 * state: single use of `requestId` and the replay cache of `assertionId` are the caller's.
 *
 * @example
 * const result = await validateSamlResponse({ samlResponse: body.SAMLResponse, connection, sp, requestId, now: new Date() });
 * if (!result.ok) log.warn({ reason: result.reason }, result.detail);
 */
export async function validateSamlResponse(input: ValidateSamlResponseInput): Promise<SamlResponseResult> {
  try {
    return { ok: true, identity: await check(input) };
  } catch (err) {
    if (err instanceof Refusal) return { ok: false, reason: err.reason, detail: err.detail };
    return {
      ok: false,
      reason: 'invalid_response',
      detail: `the response could not be read (${(err as Error).message})`,
    };
  }
}
