import { type KeyObject, randomBytes } from 'node:crypto';
import {
  type AssertionFields,
  appendChild,
  assertionXml,
  CM_HOLDER_OF_KEY,
  DIGEST_SHA1,
  DIGEST_SHA256,
  DS,
  EXC_C14N_WITH_COMMENTS,
  insertSignature,
  NAMEID_PERSISTENT,
  type ResponseFields,
  RSA_SHA1,
  RSA_SHA256,
  responseXml,
  STATUS_AUTHN_FAILED,
  STATUS_REQUESTER,
  STATUS_RESPONDER,
  standardAssertion,
  toSamlResponse,
} from './saml-builder.js';
import { selfSignedCertificate, type TestCertificate } from './x509.js';

/*
 * The hostile-response corpus of a SAML service provider: each case a response (the base64 `SAMLResponse`
 * an identity provider's page would post) and the answer a correct response check gives it. It imports
 * no XML library: responses are written from templates and signed by the signer the caller passes, so
 * an application that brings its own SAML library runs the same cases (the shape tenant-auth-core's
 * testing entry point can export; see test-support/saml/README.md).
 */

/**
 * Signs for the corpus: an enveloped XML signature (exclusive canonicalization, one reference to `#id`)
 * over `xml`, an element whose `ID` is `id`. Returns the `<Signature>` element alone; the corpus puts it
 * where SAML's schema wants it (after the element's `Issuer`), or somewhere an attacker would.
 *
 * @example
 * // SignedXml: xml-crypto's, or any XML signature library's equivalent.
 * const signer: SamlSigner = {
 *   sign({ xml, id, privateKey, signatureAlgorithm, digestAlgorithm }) {
 *     const sig = new SignedXml({ privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }), signatureAlgorithm, canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#' });
 *     sig.addReference({ xpath: `//*[@ID='${id}']`, digestAlgorithm, transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'] });
 *     sig.computeSignature(xml);
 *     return sig.getSignatureXml();
 *   },
 * };
 */
export interface SamlSigner {
  sign(input: {
    xml: string;
    id: string;
    privateKey: KeyObject;
    /** PEM; a signer may put it in `KeyInfo`, where a verifier must not take it from. */
    certificate: string;
    signatureAlgorithm: string;
    digestAlgorithm: string;
    /** For `SignedInfo` and the reference's transform; default exclusive canonicalization without comments. */
    canonicalizationAlgorithm?: string;
  }): string;
}

/**
 * A service provider: one tenant's entity ID and assertion consumer service.
 *
 * @example
 * const { entityId, acsUrl }: SamlCorpusServiceProvider = world.sp;
 */
export interface SamlCorpusServiceProvider {
  entityId: string;
  acsUrl: string;
}

/**
 * Everything a case is built from: an identity provider, the tenant's service provider, the request the
 * browser's state holds.
 *
 * @example
 * const world: SamlCorpusWorld = createSamlCorpusWorld({ signer });
 * const result = await myAcsCheck(SAML_CORPUS[0].samlResponse(world), corpusConnection(world), world.sp, world.requestId, world.now);
 */
export interface SamlCorpusWorld {
  /** The instant the response check runs at (its clock). */
  now: Date;
  idp: {
    entityId: string;
    ssoUrl: string;
    /** The certificate the identity provider signs with. */
    signing: TestCertificate;
    /** Its next certificate (key rollover): the connection trusts both. */
    next: TestCertificate;
  };
  /** A key the connection does not trust. */
  attacker: TestCertificate;
  /** The tenant's service provider (audience, ACS). */
  sp: SamlCorpusServiceProvider;
  /** Another tenant's service provider at the same identity provider. */
  otherSp: SamlCorpusServiceProvider;
  /** The `AuthnRequest` ID this browser's state holds. */
  requestId: string;
  /** An `AuthnRequest` ID issued to another browser (or tenant). */
  otherRequestId: string;
  /** The tenant's verified domain. */
  verifiedDomain: string;
  signer: SamlSigner;
}

/**
 * The connection the world's responses are checked against: the identity provider's entity ID, its
 * sign-in URL and the two certificates it may sign with (key rollover).
 *
 * @example
 * const { entityId, certificates } = corpusConnection(world);
 */
export function corpusConnection(world: SamlCorpusWorld) {
  return {
    entityId: world.idp.entityId,
    ssoUrl: world.idp.ssoUrl,
    certificates: [world.idp.signing.pem, world.idp.next.pem],
  };
}

/**
 * Options of {@link createSamlCorpusWorld}.
 *
 * @example
 * const options: SamlCorpusWorldOptions = { signer, publicUrl: 'https://auth.example.com' };
 */
export interface SamlCorpusWorldOptions {
  signer: SamlSigner;
  /** Default: now. */
  now?: Date;
  /** The service provider's public base URL. Default `https://auth.example.com`. */
  publicUrl?: string;
}

const newId = () => `_${randomBytes(16).toString('hex')}`;

/**
 * Keys, certificates (made here with node:crypto), entity IDs and request IDs for the corpus.
 *
 * @example
 * const world = createSamlCorpusWorld({ signer: xmlCryptoSigner });
 * for (const c of SAML_CORPUS) check(c.samlResponse(world), corpusConnection(world));
 */
export function createSamlCorpusWorld(options: SamlCorpusWorldOptions): SamlCorpusWorld {
  const publicUrl = options.publicUrl ?? 'https://auth.example.com';
  const sp = (tenant: string) => ({
    entityId: `${publicUrl}/api/v1/auth/sso/saml/${tenant}/metadata`,
    acsUrl: `${publicUrl}/api/v1/auth/sso/saml/${tenant}/acs`,
  });
  return {
    now: options.now ?? new Date(),
    idp: {
      entityId: 'https://idp.example.com/saml/metadata',
      ssoUrl: 'https://idp.example.com/saml/sso',
      signing: selfSignedCertificate({ commonName: 'idp.example.com' }),
      next: selfSignedCertificate({ commonName: 'idp.example.com (next)' }),
    },
    attacker: selfSignedCertificate({ commonName: 'idp.example.com' }),
    sp: sp('t_tenant'),
    otherSp: sp('t_other'),
    requestId: newId(),
    otherRequestId: newId(),
    verifiedDomain: 'example.com',
    signer: options.signer,
  };
}

/**
 * The user the identity provider signs in (in the tenant's verified domain).
 *
 * @example
 * if (result.ok) expect(result.email).toBe(CORPUS_USER);
 */
export const CORPUS_USER = 'alice@example.com';
/**
 * The attacker's own account at the same identity provider: the assertions a wrapping attack starts from.
 *
 * @example
 * if (result.ok) expect(result.email).not.toBe(CORPUS_ATTACKER);
 */
export const CORPUS_ATTACKER = 'mallory@example.com';

/**
 * What a correct response check answers: the subject and address of an accepted response, or the port's
 * failure code (`ProviderFailure`) of a refused one.
 *
 * @example
 * const refused = (e: SamlCorpusExpectation) => !e.ok && e.reason === 'invalid_response';
 */
export type SamlCorpusExpectation =
  | { ok: true; subject: string; email: string }
  | { ok: false; reason: 'invalid_response' | 'idp_error' | 'invalid_state' };

/**
 * One case of the corpus.
 *
 * @example
 * const hostile: SamlCorpusCase[] = SAML_CORPUS.filter((c) => !c.expect.ok);
 */
export interface SamlCorpusCase {
  /** Stable, kebab-case. */
  name: string;
  /** The attack (or, for an accepted case, what it shows), in words. */
  threat: string;
  /** A fresh response (new IDs on every call; the `replay` case posts one twice). */
  samlResponse(world: SamlCorpusWorld): string;
  expect: SamlCorpusExpectation;
  /**
   * What the application must still refuse after the response check accepted it: the same response
   * posted a second time (`replay`: `invalid_response`), or an address outside the tenant's verified
   * domains (`domain_mismatch`).
   */
  application?: 'replay' | 'domain_mismatch';
}

interface Key {
  cert: TestCertificate;
  signatureAlgorithm?: string;
  digestAlgorithm?: string;
  canonicalizationAlgorithm?: string;
}

function signature(world: SamlCorpusWorld, xml: string, id: string, key: Key = { cert: world.idp.signing }) {
  return world.signer.sign({
    xml,
    id,
    privateKey: key.cert.privateKey,
    certificate: key.cert.pem,
    signatureAlgorithm: key.signatureAlgorithm ?? RSA_SHA256,
    digestAlgorithm: key.digestAlgorithm ?? DIGEST_SHA256,
    ...(key.canonicalizationAlgorithm ? { canonicalizationAlgorithm: key.canonicalizationAlgorithm } : {}),
  });
}

/** An element signed in place: its signature after its `Issuer`. */
function signed(world: SamlCorpusWorld, xml: string, id: string, key?: Key) {
  return insertSignature(xml, signature(world, xml, id, key));
}

/** The assertion the identity provider issues for the user, answering the world's request. */
const assertion = (world: SamlCorpusWorld, overrides: Partial<AssertionFields> = {}): AssertionFields => ({
  ...standardAssertion({
    id: newId(),
    now: world.now,
    issuer: world.idp.entityId,
    nameId: CORPUS_USER,
    audience: world.sp.entityId,
    recipient: world.sp.acsUrl,
    inResponseTo: world.requestId,
  }),
  ...overrides,
});

function response(world: SamlCorpusWorld, overrides: Partial<ResponseFields> = {}): ResponseFields {
  return {
    id: newId(),
    issueInstant: world.now,
    issuer: world.idp.entityId,
    destination: world.sp.acsUrl,
    inResponseTo: world.requestId,
    ...overrides,
  };
}

interface Build {
  assertion?: Partial<AssertionFields>;
  response?: Partial<ResponseFields>;
  /** Sign the assertion (default) with this key, or not (`false`). */
  signAssertion?: Key | boolean;
  /** Sign the whole response (default not). */
  signResponse?: Key | boolean;
  /** Applied to the final XML (an attacker's edit after signing). */
  edit?: (xml: string) => string;
}

const keyOf = (world: SamlCorpusWorld, k: Key | boolean | undefined, dflt: boolean): Key | null =>
  k === undefined
    ? dflt
      ? { cert: world.idp.signing }
      : null
    : k === true
      ? { cert: world.idp.signing }
      : k || null;

/** A response with one assertion, signed as asked, as XML. */
function build(world: SamlCorpusWorld, b: Build = {}): string {
  const a = assertion(world, b.assertion);
  const aKey = keyOf(world, b.signAssertion, true);
  const aXml = aKey ? signed(world, assertionXml(a), a.id, aKey) : assertionXml(a);
  const r = response(world, b.response);
  const rKey = keyOf(world, b.signResponse, false);
  const xml = rKey ? signed(world, responseXml(r, aXml), r.id, rKey) : responseXml(r, aXml);
  return b.edit ? b.edit(xml) : xml;
}

const base64 = (xml: string) => toSamlResponse(xml);
const accepted = (subject = CORPUS_USER, email = subject) => ({ ok: true as const, subject, email });
const invalidResponse = { ok: false, reason: 'invalid_response' } as const;
const invalidState = { ok: false, reason: 'invalid_state' } as const;
const at = (world: SamlCorpusWorld, seconds: number) => new Date(world.now.getTime() + seconds * 1000);

const CLAIM_EMAIL = 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress';
const LONG_ADDRESS = 'alice@example.com.evil.test';

/** A signed assertion and its parts (the wrapping attacks start from the attacker's own). */
function signedAssertion(world: SamlCorpusWorld, overrides: Partial<AssertionFields> = {}) {
  const a = assertion(world, overrides);
  const unsignedXml = assertionXml(a);
  const sig = signature(world, unsignedXml, a.id);
  return { id: a.id, unsignedXml, signature: sig, signedXml: insertSignature(unsignedXml, sig) };
}

const attackersSignedAssertion = (world: SamlCorpusWorld) =>
  signedAssertion(world, { nameId: CORPUS_ATTACKER });

/** The victim's assertion an attacker writes (unsigned). */
const forgedAssertion = (world: SamlCorpusWorld, overrides: Partial<AssertionFields> = {}) =>
  assertionXml(assertion(world, overrides));

/** The attacker's own response, signed whole by the identity provider (its assertion unsigned). */
function attackersSignedResponse(world: SamlCorpusWorld) {
  const r = response(world);
  const unsignedXml = responseXml(r, assertionXml(assertion(world, { nameId: CORPUS_ATTACKER })));
  const sig = signature(world, unsignedXml, r.id);
  return { id: r.id, unsignedXml, signature: sig, signedXml: insertSignature(unsignedXml, sig) };
}

/**
 * The corpus. Every hostile case differs from an accepted response in the one way it names, so a check
 * that lacks that defence accepts it.
 *
 * @example
 * for (const c of SAML_CORPUS) {
 *   it(c.name, async () => {
 *     const result = await myAcsCheck(c.samlResponse(world), corpusConnection(world), world.sp, world.requestId, world.now);
 *     expect(result.ok ? { ok: true, subject: result.subject, email: result.email } : { ok: false, reason: result.reason }).toEqual(c.expect);
 *   });
 * }
 */
export const SAML_CORPUS: readonly SamlCorpusCase[] = [
  // Accepted: the shapes real identity providers send.
  {
    name: 'valid-assertion-signed',
    threat: 'none: the assertion is signed (what Entra ID, Okta and Google send by default)',
    samlResponse: (w) => base64(build(w)),
    expect: accepted(),
  },
  {
    name: 'valid-response-signed',
    threat: 'none: only the whole response is signed, which covers the assertion inside it',
    samlResponse: (w) => base64(build(w, { signAssertion: false, signResponse: true })),
    expect: accepted(),
  },
  {
    name: 'valid-both-signed',
    threat: 'none: the assertion and the response are each signed',
    samlResponse: (w) => base64(build(w, { signResponse: true })),
    expect: accepted(),
  },
  {
    name: 'valid-next-certificate',
    threat: 'none: the identity provider rolled its key over to the second certificate of the connection',
    samlResponse: (w) => base64(build(w, { signAssertion: { cert: w.idp.next } })),
    expect: accepted(),
  },
  {
    name: 'valid-within-clock-skew',
    threat: "none: the identity provider's clock is 55 seconds off both ways, within the 60 seconds allowed",
    samlResponse: (w) =>
      base64(
        build(w, {
          assertion: {
            conditions: {
              notBefore: at(w, 55),
              notOnOrAfter: at(w, -55),
              audienceRestrictions: [[w.sp.entityId]],
            },
            subjectConfirmations: [
              {
                recipient: w.sp.acsUrl,
                notBefore: at(w, 55),
                notOnOrAfter: at(w, -55),
                inResponseTo: w.requestId,
              },
            ],
          },
        }),
      ),
    expect: accepted(),
  },
  {
    name: 'valid-email-attribute-by-name-order',
    threat:
      'none: a persistent NameID; the email is the attribute `email` before `mail` and the claim URI, whatever their order',
    samlResponse: (w) =>
      base64(
        build(w, {
          assertion: {
            nameId: 'a4f2c19e-persistent',
            nameIdFormat: NAMEID_PERSISTENT,
            attributes: {
              [CLAIM_EMAIL]: ['claim@example.com'],
              mail: ['mail@example.com'],
              email: [CORPUS_USER],
            },
          },
        }),
      ),
    expect: accepted('a4f2c19e-persistent', CORPUS_USER),
  },
  {
    name: 'valid-email-from-mail',
    threat: 'none: a persistent NameID; no `email` attribute, so `mail` (before the claim URI)',
    samlResponse: (w) =>
      base64(
        build(w, {
          assertion: {
            nameId: 'a4f2c19e-persistent',
            nameIdFormat: NAMEID_PERSISTENT,
            attributes: { [CLAIM_EMAIL]: ['claim@example.com'], mail: [CORPUS_USER] },
          },
        }),
      ),
    expect: accepted('a4f2c19e-persistent', CORPUS_USER),
  },
  {
    name: 'valid-email-from-claim-uri',
    threat: "none: a persistent NameID and only the emailaddress claim (Entra ID's default)",
    samlResponse: (w) =>
      base64(
        build(w, {
          assertion: {
            nameId: 'a4f2c19e-persistent',
            nameIdFormat: NAMEID_PERSISTENT,
            attributes: { [CLAIM_EMAIL]: [CORPUS_USER] },
          },
        }),
      ),
    expect: accepted('a4f2c19e-persistent', CORPUS_USER),
  },
  {
    name: 'valid-email-nameid-over-attributes',
    threat: 'none: a NameID of format emailAddress is the email, whatever the attributes say',
    samlResponse: (w) =>
      base64(build(w, { assertion: { attributes: { email: ['someone-else@example.com'] } } })),
    expect: accepted(),
  },
  {
    name: 'comment-in-nameid',
    threat:
      "CVE-2017-11428 family: a comment inside a signed NameID (canonicalization drops it, so the signature holds) must not truncate it to the victim's address",
    samlResponse: (w) =>
      base64(
        build(w, {
          assertion: { nameId: LONG_ADDRESS },
          edit: (xml) => xml.replace(LONG_ADDRESS, 'alice@example.com<!---->.evil.test'),
        }),
      ),
    expect: accepted(LONG_ADDRESS),
    application: 'domain_mismatch',
  },
  {
    name: 'comment-in-email-attribute',
    threat: 'the same trick in the email attribute of an assertion with a persistent NameID',
    samlResponse: (w) =>
      base64(
        build(w, {
          assertion: {
            nameId: 'a4f2c19e-persistent',
            nameIdFormat: NAMEID_PERSISTENT,
            attributes: { email: [LONG_ADDRESS] },
          },
          edit: (xml) => xml.replace(LONG_ADDRESS, 'alice@example.com<!-- -->.evil.test'),
        }),
      ),
    expect: accepted('a4f2c19e-persistent', LONG_ADDRESS),
    application: 'domain_mismatch',
  },
  {
    name: 'outside-verified-domains',
    threat: "a genuine response for an address outside the tenant's verified domains",
    samlResponse: (w) => base64(build(w, { assertion: { nameId: 'alice@not-verified.test' } })),
    expect: accepted('alice@not-verified.test'),
    application: 'domain_mismatch',
  },
  {
    name: 'replay',
    threat: 'a genuine response posted again (captured from a log, a proxy or the browser history)',
    samlResponse: (w) => base64(build(w)),
    expect: accepted(),
    application: 'replay',
  },

  // Signature wrapping: a validly signed element somewhere, the identity read from another.
  {
    name: 'unsigned',
    threat: 'a response nobody signed',
    samlResponse: (w) => base64(build(w, { signAssertion: false })),
    expect: invalidResponse,
  },
  {
    name: 'xsw-unsigned-assertion-before-signed',
    threat:
      "a forged assertion for the victim put before the attacker's own signed one (read the first, verify the other)",
    samlResponse: (w) =>
      base64(responseXml(response(w), forgedAssertion(w) + attackersSignedAssertion(w).signedXml)),
    expect: invalidResponse,
  },
  {
    name: 'xsw-signed-assertion-in-extensions',
    threat: "the attacker's signed assertion moved into samlp:Extensions, a forged one in its place",
    samlResponse: (w) =>
      base64(responseXml(response(w), forgedAssertion(w), attackersSignedAssertion(w).signedXml)),
    expect: invalidResponse,
  },
  {
    name: 'xsw-signed-assertion-in-signature-object',
    threat:
      "a forged assertion carrying the attacker's signature, the signed original inside that signature's ds:Object (the digest still matches)",
    samlResponse: (w) => {
      const original = attackersSignedAssertion(w);
      const wrapped = appendChild(
        original.signature,
        `<ds:Object xmlns:ds="${DS}">${original.unsignedXml}</ds:Object>`,
      );
      return base64(responseXml(response(w), insertSignature(forgedAssertion(w), wrapped)));
    },
    expect: invalidResponse,
  },
  {
    name: 'xsw-two-signed-assertions',
    threat: 'two assertions, each validly signed: which one is read is up to the reader',
    samlResponse: (w) =>
      base64(responseXml(response(w), attackersSignedAssertion(w).signedXml + signedAssertion(w).signedXml)),
    expect: invalidResponse,
  },
  {
    name: 'xsw-signed-response-in-signature-object',
    threat:
      "a forged, unsigned assertion in a new response that carries the attacker's signed response inside its signature's ds:Object",
    samlResponse: (w) => {
      const original = attackersSignedResponse(w);
      const wrapped = appendChild(
        original.signature,
        `<ds:Object xmlns:ds="${DS}">${original.unsignedXml}</ds:Object>`,
      );
      return base64(insertSignature(responseXml(response(w), forgedAssertion(w)), wrapped));
    },
    expect: invalidResponse,
  },
  {
    name: 'xsw-signed-response-in-extensions',
    threat:
      "a forged, unsigned assertion in a new response that carries the attacker's signed response in samlp:Extensions",
    samlResponse: (w) =>
      base64(responseXml(response(w), forgedAssertion(w), attackersSignedResponse(w).signedXml)),
    expect: invalidResponse,
  },
  {
    name: 'assertion-not-under-response',
    threat: 'the one signed assertion hidden in samlp:Extensions instead of directly under the response',
    samlResponse: (w) => base64(responseXml(response(w), '', signedAssertion(w).signedXml)),
    expect: invalidResponse,
  },
  {
    name: 'signature-reference-to-another-element',
    threat:
      "the signature inside the assertion is the response's (its reference names the response, not the assertion)",
    samlResponse: (w) => {
      const r = response(w);
      const a = assertionXml(assertion(w));
      const sig = signature(w, responseXml(r, a), r.id);
      return base64(responseXml(r, insertSignature(a, sig)));
    },
    expect: invalidResponse,
  },
  {
    name: 'duplicate-id-attribute',
    threat:
      "another element carries the signed assertion's ID in a namespaced ID attribute, so a verifier and a reader can pick different nodes",
    samlResponse: (w) => {
      const original = signedAssertion(w);
      return base64(
        responseXml(
          response(w),
          original.signedXml,
          `<x:Decoy xmlns:x="urn:example:decoy" x:ID="${original.id}"/>`,
        ),
      );
    },
    expect: invalidResponse,
  },
  {
    name: 'two-signatures-on-assertion',
    threat: 'an assertion carrying two signatures (a verifier checks one, a reader trusts the other)',
    samlResponse: (w) => {
      const a = signedAssertion(w);
      return base64(responseXml(response(w), insertSignature(a.signedXml, a.signature)));
    },
    expect: invalidResponse,
  },
  {
    name: 'tampered-nameid',
    threat: "the attacker's signed assertion with its NameID changed to the victim's",
    samlResponse: (w) =>
      base64(
        build(w, {
          assertion: { nameId: CORPUS_ATTACKER },
          edit: (xml) => xml.replace(CORPUS_ATTACKER, CORPUS_USER),
        }),
      ),
    expect: invalidResponse,
  },
  {
    name: 'sha1-signature',
    threat: 'a signature with RSA-SHA1 and a SHA-1 digest (collisions are practical)',
    samlResponse: (w) =>
      base64(
        build(w, {
          signAssertion: { cert: w.idp.signing, signatureAlgorithm: RSA_SHA1, digestAlgorithm: DIGEST_SHA1 },
        }),
      ),
    expect: invalidResponse,
  },
  {
    name: 'sha1-digest',
    threat: 'an RSA-SHA256 signature over a SHA-1 digest of the assertion',
    samlResponse: (w) =>
      base64(build(w, { signAssertion: { cert: w.idp.signing, digestAlgorithm: DIGEST_SHA1 } })),
    expect: invalidResponse,
  },
  {
    name: 'comments-canonicalization',
    threat: 'a signature whose canonicalization keeps comments (only the comment-free ones are allowed)',
    samlResponse: (w) =>
      base64(
        build(w, {
          signAssertion: { cert: w.idp.signing, canonicalizationAlgorithm: EXC_C14N_WITH_COMMENTS },
        }),
      ),
    expect: invalidResponse,
  },
  {
    name: 'signed-by-another-key',
    threat: 'signed by a key the connection does not trust, its certificate offered in KeyInfo',
    samlResponse: (w) => base64(build(w, { signAssertion: { cert: w.attacker } })),
    expect: invalidResponse,
  },
  {
    name: 'dtd-with-entity-declaration',
    threat: 'a DTD declaring entities (XXE, billion laughs, and text the signature does not see)',
    samlResponse: (w) =>
      base64(`<?xml version="1.0"?><!DOCTYPE samlp:Response [<!ENTITY idp "${w.idp.entityId}">]>${build(w)}`),
    expect: invalidResponse,
  },
  {
    name: 'malformed-xml',
    threat:
      'XML a parser has to repair (an unclosed element in the unsigned Extensions): what was signed and what is read may differ',
    samlResponse: (w) =>
      base64(
        build(w, {
          edit: (xml) =>
            xml.replace(
              '<samlp:Status>',
              '<samlp:Extensions><x:Junk xmlns:x="urn:example:junk"></samlp:Extensions><samlp:Status>',
            ),
        }),
      ),
    expect: invalidResponse,
  },
  {
    name: 'encrypted-assertion',
    threat: 'an EncryptedAssertion (the server holds no decryption key and does not decrypt)',
    samlResponse: (w) => {
      const r = response(w);
      const encrypted =
        `<saml:EncryptedAssertion><xenc:EncryptedData xmlns:xenc="http://www.w3.org/2001/04/xmlenc#">` +
        '<xenc:CipherData><xenc:CipherValue>AAAA</xenc:CipherValue></xenc:CipherData></xenc:EncryptedData></saml:EncryptedAssertion>';
      return base64(signed(w, responseXml(r, encrypted), r.id));
    },
    expect: invalidResponse,
  },
  {
    name: 'wrong-assertion-issuer',
    threat:
      'an assertion from another entity signed with the same key (an identity provider hosting several)',
    samlResponse: (w) =>
      base64(
        build(w, { assertion: { issuer: 'https://idp.example.com/other-app' }, response: { issuer: null } }),
      ),
    expect: invalidResponse,
  },
  {
    name: 'wrong-response-issuer',
    threat: 'a response whose own Issuer names another entity',
    samlResponse: (w) => base64(build(w, { response: { issuer: 'https://idp.example.com/other-app' } })),
    expect: invalidResponse,
  },
  {
    name: 'wrong-audience',
    threat: 'an assertion issued for another service provider',
    samlResponse: (w) =>
      base64(
        build(w, {
          assertion: {
            conditions: {
              notBefore: at(w, -30),
              notOnOrAfter: at(w, 300),
              audienceRestrictions: [['https://another-app.example.net/saml']],
            },
          },
        }),
      ),
    expect: invalidResponse,
  },
  {
    name: 'no-audience-restriction',
    threat: 'an assertion valid for any service provider (no AudienceRestriction)',
    samlResponse: (w) =>
      base64(
        build(w, {
          assertion: {
            conditions: { notBefore: at(w, -30), notOnOrAfter: at(w, 300), audienceRestrictions: [] },
          },
        }),
      ),
    expect: invalidResponse,
  },
  {
    name: 'audience-missing-from-one-restriction',
    threat: 'two AudienceRestrictions, only one naming this service provider (each must)',
    samlResponse: (w) =>
      base64(
        build(w, {
          assertion: {
            conditions: {
              notBefore: at(w, -30),
              notOnOrAfter: at(w, 300),
              audienceRestrictions: [[w.sp.entityId], ['https://another-app.example.net/saml']],
            },
          },
        }),
      ),
    expect: invalidResponse,
  },
  {
    name: 'unknown-condition',
    threat: 'a condition the service provider does not understand (SAML core 2.5.1: not valid)',
    samlResponse: (w) =>
      base64(
        build(w, {
          assertion: {
            conditions: {
              notBefore: at(w, -30),
              notOnOrAfter: at(w, 300),
              audienceRestrictions: [[w.sp.entityId]],
              extra:
                '<saml:Condition xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:x="urn:example:conditions" xsi:type="x:OnlyOnTuesdays"/>',
            },
          },
        }),
      ),
    expect: invalidResponse,
  },
  {
    name: 'wrong-recipient',
    threat: 'a bearer assertion for another assertion consumer service',
    samlResponse: (w) =>
      base64(
        build(w, {
          assertion: {
            subjectConfirmations: [
              {
                recipient: 'https://another-app.example.net/acs',
                notOnOrAfter: at(w, 300),
                inResponseTo: w.requestId,
              },
            ],
          },
        }),
      ),
    expect: invalidResponse,
  },
  {
    name: 'no-recipient',
    threat: 'a bearer subject confirmation without Recipient (usable at any ACS)',
    samlResponse: (w) =>
      base64(
        build(w, {
          assertion: { subjectConfirmations: [{ notOnOrAfter: at(w, 300), inResponseTo: w.requestId }] },
        }),
      ),
    expect: invalidResponse,
  },
  {
    name: 'holder-of-key-confirmation',
    threat: 'no bearer subject confirmation (only holder-of-key, which a browser post cannot prove)',
    samlResponse: (w) =>
      base64(
        build(w, {
          assertion: {
            subjectConfirmations: [
              {
                method: CM_HOLDER_OF_KEY,
                recipient: w.sp.acsUrl,
                notOnOrAfter: at(w, 300),
                inResponseTo: w.requestId,
              },
            ],
          },
        }),
      ),
    expect: invalidResponse,
  },
  {
    name: 'wrong-destination',
    threat: 'a response addressed to another endpoint (forwarded)',
    samlResponse: (w) =>
      base64(build(w, { response: { destination: 'https://another-app.example.net/acs' } })),
    expect: invalidResponse,
  },
  {
    name: 'another-tenants-sp',
    threat:
      "a genuine response of the same identity provider for another tenant's service provider (its audience and ACS)",
    samlResponse: (w) =>
      base64(
        build(w, {
          assertion: {
            conditions: {
              notBefore: at(w, -30),
              notOnOrAfter: at(w, 300),
              audienceRestrictions: [[w.otherSp.entityId]],
            },
            subjectConfirmations: [
              { recipient: w.otherSp.acsUrl, notOnOrAfter: at(w, 300), inResponseTo: w.requestId },
            ],
          },
          response: { destination: w.otherSp.acsUrl },
        }),
      ),
    expect: invalidResponse,
  },
  {
    name: 'expired-conditions',
    threat: 'an assertion past its Conditions NotOnOrAfter by more than the clock skew',
    samlResponse: (w) =>
      base64(
        build(w, {
          assertion: {
            conditions: {
              notBefore: at(w, -600),
              notOnOrAfter: at(w, -90),
              audienceRestrictions: [[w.sp.entityId]],
            },
          },
        }),
      ),
    expect: invalidResponse,
  },
  {
    name: 'not-yet-valid-conditions',
    threat: 'an assertion before its Conditions NotBefore by more than the clock skew',
    samlResponse: (w) =>
      base64(
        build(w, {
          assertion: {
            conditions: {
              notBefore: at(w, 90),
              notOnOrAfter: at(w, 600),
              audienceRestrictions: [[w.sp.entityId]],
            },
          },
        }),
      ),
    expect: invalidResponse,
  },
  {
    name: 'expired-subject-confirmation',
    threat: 'a bearer confirmation past its NotOnOrAfter by more than the clock skew',
    samlResponse: (w) =>
      base64(
        build(w, {
          assertion: {
            subjectConfirmations: [
              { recipient: w.sp.acsUrl, notOnOrAfter: at(w, -90), inResponseTo: w.requestId },
            ],
          },
        }),
      ),
    expect: invalidResponse,
  },
  {
    name: 'not-yet-valid-subject-confirmation',
    threat: 'a bearer confirmation before its NotBefore by more than the clock skew',
    samlResponse: (w) =>
      base64(
        build(w, {
          assertion: {
            subjectConfirmations: [
              {
                recipient: w.sp.acsUrl,
                notBefore: at(w, 90),
                notOnOrAfter: at(w, 600),
                inResponseTo: w.requestId,
              },
            ],
          },
        }),
      ),
    expect: invalidResponse,
  },
  {
    name: 'subject-confirmation-without-expiry',
    threat: 'a bearer confirmation with no NotOnOrAfter (valid forever)',
    samlResponse: (w) =>
      base64(
        build(w, {
          assertion: { subjectConfirmations: [{ recipient: w.sp.acsUrl, inResponseTo: w.requestId }] },
        }),
      ),
    expect: invalidResponse,
  },

  // Binding to the request this browser made.
  {
    name: 'unknown-in-response-to',
    threat: 'a response to a request this server never issued',
    samlResponse: (w) =>
      base64(
        build(w, {
          assertion: {
            subjectConfirmations: [
              { recipient: w.sp.acsUrl, notOnOrAfter: at(w, 300), inResponseTo: newId() },
            ],
          },
          response: { inResponseTo: null },
        }),
      ),
    expect: invalidState,
  },
  {
    name: 'foreign-in-response-to',
    threat: 'a response to a request issued to another browser or tenant (login CSRF, session fixation)',
    samlResponse: (w) =>
      base64(
        build(w, {
          assertion: {
            subjectConfirmations: [
              { recipient: w.sp.acsUrl, notOnOrAfter: at(w, 300), inResponseTo: w.otherRequestId },
            ],
          },
          response: { inResponseTo: w.otherRequestId },
        }),
      ),
    expect: invalidState,
  },
  {
    name: 'in-response-to-rewritten-on-response',
    threat:
      "another browser's response whose unsigned Response/@InResponseTo was rewritten to this browser's request",
    samlResponse: (w) =>
      base64(
        build(w, {
          assertion: {
            subjectConfirmations: [
              { recipient: w.sp.acsUrl, notOnOrAfter: at(w, 300), inResponseTo: w.otherRequestId },
            ],
          },
        }),
      ),
    expect: invalidState,
  },
  {
    name: 'in-response-to-disagrees',
    threat: 'a response whose own InResponseTo names another request than its assertion does',
    samlResponse: (w) => base64(build(w, { response: { inResponseTo: w.otherRequestId } })),
    expect: invalidState,
  },
  {
    name: 'unsolicited',
    threat: 'an IdP-initiated response (no InResponseTo): refused, sign-in starts at the service provider',
    samlResponse: (w) =>
      base64(
        build(w, {
          assertion: { subjectConfirmations: [{ recipient: w.sp.acsUrl, notOnOrAfter: at(w, 300) }] },
          response: { inResponseTo: null },
        }),
      ),
    expect: invalidState,
  },

  // Status and content.
  {
    name: 'idp-error-status',
    threat: 'none: the identity provider refused the sign-in (a Responder status, no assertion)',
    samlResponse: (w) =>
      base64(
        responseXml(response(w, { status: { code: STATUS_RESPONDER, subcode: STATUS_AUTHN_FAILED } }), ''),
      ),
    expect: { ok: false, reason: 'idp_error' },
  },
  {
    name: 'error-status-with-assertion',
    threat: 'a non-Success status that still carries a signed assertion',
    samlResponse: (w) => base64(build(w, { response: { status: { code: STATUS_REQUESTER } } })),
    expect: invalidResponse,
  },
  {
    name: 'no-nameid',
    threat: 'an assertion without a NameID (no one to sign in)',
    samlResponse: (w) =>
      base64(build(w, { assertion: { nameId: null, attributes: { email: [CORPUS_USER] } } })),
    expect: invalidResponse,
  },
  {
    name: 'two-nameids',
    threat: 'a subject with two NameIDs (which one signs in is up to the reader)',
    samlResponse: (w) =>
      base64(
        build(w, {
          assertion: { nameId: CORPUS_ATTACKER, subjectExtra: `<saml:NameID>${CORPUS_USER}</saml:NameID>` },
        }),
      ),
    expect: invalidResponse,
  },
  {
    name: 'no-authn-statement',
    threat: 'an assertion that says nothing of an authentication (an attribute assertion is not a sign-in)',
    samlResponse: (w) => base64(build(w, { assertion: { authnInstant: null } })),
    expect: invalidResponse,
  },
  {
    name: 'malformed-time',
    threat: 'a NotOnOrAfter that is not an xs:dateTime (a lenient date parser reads it as some date)',
    samlResponse: (w) =>
      base64(
        build(w, {
          assertion: {
            conditions: { notBefore: at(w, -30), notOnOrAfter: '9', audienceRestrictions: [[w.sp.entityId]] },
          },
        }),
      ),
    expect: invalidResponse,
  },
  {
    name: 'no-email',
    threat: 'a persistent NameID and none of the email attributes',
    samlResponse: (w) =>
      base64(
        build(w, {
          assertion: {
            nameId: 'a4f2c19e-persistent',
            nameIdFormat: NAMEID_PERSISTENT,
            attributes: { name: ['Alice'] },
          },
        }),
      ),
    expect: invalidResponse,
  },
];
