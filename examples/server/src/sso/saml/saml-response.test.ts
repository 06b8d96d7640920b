import {
  CORPUS_USER,
  corpusConnection,
  createSamlCorpusWorld,
  SAML_CORPUS,
  type SamlCorpusWorld,
} from 'tenant-auth-core/testing';
import { describe, expect, it } from 'vitest';
import { xmlCryptoSigner } from '../../../../../test-support/saml/xml-crypto-signer.js';
import { CLOCK_SKEW_MS, MAX_RESPONSE_BYTES, validateSamlResponse } from './saml-response.js';

const world = createSamlCorpusWorld({ signer: xmlCryptoSigner });

const check = (
  samlResponse: string,
  w: SamlCorpusWorld = world,
  overrides: { now?: Date; requestId?: string } = {},
) =>
  validateSamlResponse({
    samlResponse,
    connection: corpusConnection(w),
    sp: w.sp,
    requestId: overrides.requestId ?? w.requestId,
    now: overrides.now ?? w.now,
  });

/**
 * What the log line of each refusal says: the check that refused it. (Several cases are refused by
 * node-saml as well; these pin that this module's own check answers, so none of them is dead.)
 */
const DETAIL: Record<string, RegExp> = {
  unsigned: /neither the response nor the assertion is signed/,
  'xsw-unsigned-assertion-before-signed': /carries 2 assertions/,
  'xsw-signed-assertion-in-extensions': /carries 2 assertions/,
  'xsw-signed-assertion-in-signature-object': /carries 2 assertions/,
  'xsw-two-signed-assertions': /carries 2 assertions/,
  'xsw-signed-response-in-signature-object': /carries 2 assertions/,
  'xsw-signed-response-in-extensions': /carries 2 assertions/,
  'assertion-not-under-response': /not a SAML assertion directly inside the response/,
  'signature-reference-to-another-element':
    /the assertion signature's reference is not to the assertion's own ID/,
  'duplicate-id-attribute': /two elements carry the ID/,
  'two-signatures-on-assertion': /several signatures/,
  'tampered-nameid': /node-saml refused the response or its signature: Invalid signature/,
  'sha1-signature': /algorithm "http:\/\/www.w3.org\/2000\/09\/xmldsig#rsa-sha1" is not RSA-SHA256/,
  'sha1-digest': /digest "http:\/\/www.w3.org\/2000\/09\/xmldsig#sha1" is not SHA-256/,
  'comments-canonicalization': /canonicalization ".*#WithComments" is not allowed/,
  'signed-by-another-key': /node-saml refused the response or its signature: Invalid signature/,
  'dtd-with-entity-declaration': /document type declaration/,
  'malformed-xml': /not well-formed/,
  'encrypted-assertion': /EncryptedAssertion/,
  'wrong-assertion-issuer': /the assertion's Issuer is/,
  'wrong-response-issuer': /the response's Issuer is/,
  'wrong-audience': /audience is "https:\/\/another-app/,
  'no-audience-restriction': /no AudienceRestriction/,
  'audience-missing-from-one-restriction': /audience is "https:\/\/another-app/,
  'unknown-condition': /condition this service provider does not understand/,
  'wrong-recipient': /Recipient is "https:\/\/another-app/,
  'no-recipient': /Recipient is missing/,
  'holder-of-key-confirmation': /no bearer SubjectConfirmation/,
  'wrong-destination': /Destination is "https:\/\/another-app/,
  'another-tenants-sp': /Destination is ".*t_other\/acs"/,
  'expired-conditions': /Conditions expired at/,
  'not-yet-valid-conditions': /Conditions is not valid before/,
  'expired-subject-confirmation': /bearer confirmation expired at/,
  'not-yet-valid-subject-confirmation': /bearer confirmation is not valid before/,
  // node-saml fails on the missing date first (its message names it); the check here stands behind it.
  'subject-confirmation-without-expiry': /NotOnOrAfter/,
  'unknown-in-response-to': /the assertion answers the request/,
  'foreign-in-response-to': /the response answers the request/,
  'in-response-to-rewritten-on-response': /the assertion answers the request/,
  'in-response-to-disagrees': /the response answers the request/,
  unsolicited: /answers no request \(unsolicited/,
  'idp-error-status': /answered the status ".*Responder" \(".*AuthnFailed"\)/,
  'error-status-with-assertion': /not Success, yet the response carries an assertion/,
  'two-nameids': /the NameID appears 2 times/,
  'no-nameid': /the NameID is missing/,
  'no-authn-statement': /no AuthnStatement/,
  'malformed-time': /is not an xs:dateTime: "9"/,
  'no-email': /none of the attributes email, mail,/,
};

const byName = (name: string) => {
  const found = SAML_CORPUS.find((c) => c.name === name);
  if (!found) throw new Error(`no corpus case ${name}`);
  return found;
};

describe('validateSamlResponse against the hostile-response corpus', () => {
  it.each(SAML_CORPUS.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const result = await check(c.samlResponse(world));
    if (c.expect.ok) {
      expect(result).toMatchObject({
        ok: true,
        identity: { issuer: world.idp.entityId, subject: c.expect.subject, email: c.expect.email },
      });
    } else {
      expect(result).toMatchObject({
        ok: false,
        reason: c.expect.reason,
        detail: expect.stringMatching(DETAIL[c.name] ?? /^$/),
      });
    }
  });
});

describe('validateSamlResponse', () => {
  it('states the log line of every refused case of the corpus', () => {
    const refused = SAML_CORPUS.filter((c) => !c.expect.ok).map((c) => c.name);
    expect(Object.keys(DETAIL).sort()).toEqual(refused.sort());
  });

  it('answers the assertion ID, the earliest NotOnOrAfter and the AuthnInstant, read from the signed assertion', async () => {
    const result = await check(byName('valid-within-clock-skew').samlResponse(world));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    // Conditions and the bearer confirmation both end 55 s before now in that case.
    expect(result.identity.notOnOrAfter).toEqual(new Date(world.now.getTime() - 55_000));
    expect(result.identity.authnInstant).toEqual(new Date(world.now.getTime() - 5_000));
    expect(result.identity.assertionId).toMatch(/^_[0-9a-f]{32}$/);
  });

  it("answers the same assertion ID for the same response posted twice, for the caller's replay cache", async () => {
    const samlResponse = byName('replay').samlResponse(world);
    const first = await check(samlResponse);
    const second = await check(samlResponse);
    expect(first.ok && second.ok).toBe(true);
    if (first.ok && second.ok) expect(second.identity.assertionId).toBe(first.identity.assertionId);
  });

  it('allows exactly 60 seconds of clock skew on either side', async () => {
    const samlResponse = byName('valid-assertion-signed').samlResponse(world);
    // Its bearer confirmation and conditions end 5 minutes after the world's now; conditions begin 30 s before.
    const end = world.now.getTime() + 5 * 60_000;
    expect((await check(samlResponse, world, { now: new Date(end + CLOCK_SKEW_MS - 1) })).ok).toBe(true);
    expect(await check(samlResponse, world, { now: new Date(end + CLOCK_SKEW_MS) })).toMatchObject({
      ok: false,
      reason: 'invalid_response',
    });
    const start = world.now.getTime() - 30_000;
    expect((await check(samlResponse, world, { now: new Date(start - CLOCK_SKEW_MS) })).ok).toBe(true);
    expect(await check(samlResponse, world, { now: new Date(start - CLOCK_SKEW_MS - 1) })).toMatchObject({
      ok: false,
      reason: 'invalid_response',
    });
  });

  it('refuses a response signed by a certificate the connection no longer trusts', async () => {
    const samlResponse = byName('valid-next-certificate').samlResponse(world);
    const result = await validateSamlResponse({
      samlResponse,
      connection: { ...corpusConnection(world), certificates: [world.idp.signing.pem] },
      sp: world.sp,
      requestId: world.requestId,
      now: world.now,
    });
    expect(result).toMatchObject({ ok: false, reason: 'invalid_response' });
  });

  it("is bound to one tenant: another tenant's service provider refuses this tenant's genuine response", async () => {
    const samlResponse = byName('valid-assertion-signed').samlResponse(world);
    const result = await validateSamlResponse({
      samlResponse,
      connection: corpusConnection(world),
      sp: world.otherSp,
      requestId: world.requestId,
      now: world.now,
    });
    expect(result).toMatchObject({ ok: false, reason: 'invalid_response' });
  });

  const validXml = () => Buffer.from(byName('valid-assertion-signed').samlResponse(world), 'base64');

  it('refuses base64 with anything else in it (which Buffer would skip)', async () => {
    const b64 = validXml().toString('base64');
    expect((await check(b64)).ok).toBe(true);
    const middle = b64.length >> 1;
    expect(await check(`${b64.slice(0, middle)}!${b64.slice(middle)}`)).toMatchObject({
      ok: false,
      reason: 'invalid_response',
    });
    expect(await check('')).toMatchObject({ ok: false, reason: 'invalid_response' });
  });

  it('refuses bytes that are not UTF-8, even outside anything signed', async () => {
    const tail = (bytes: number[]) =>
      Buffer.concat([validXml(), Buffer.from('<!--'), Buffer.from(bytes), Buffer.from('-->')]).toString(
        'base64',
      );
    expect((await check(tail([0x61]))).ok).toBe(true);
    expect(await check(tail([0xff]))).toMatchObject({ ok: false, reason: 'invalid_response' });
  });

  it('refuses a response over 256 KiB before parsing it', async () => {
    const padded = (n: number) => Buffer.concat([validXml(), Buffer.alloc(n, 0x20)]);
    expect((await check(padded(1024).toString('base64'))).ok).toBe(true);
    expect(await check(padded(MAX_RESPONSE_BYTES).toString('base64'))).toMatchObject({
      ok: false,
      reason: 'invalid_response',
      detail: expect.stringContaining('larger than'),
    });
  });

  it('refuses XML that is not a SAML Response', async () => {
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    for (const [xml, detail] of [
      ['<samlp:LogoutResponse xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol"/>', /not a SAML Response/],
      ['<Response><Status/></Response>', /not a SAML Response/],
      ['plain text', /no root element/],
      ['<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol">', /not well-formed/],
    ] as const)
      expect(await check(b64(xml))).toMatchObject({
        ok: false,
        reason: 'invalid_response',
        detail: expect.stringMatching(detail),
      });
  });

  it('takes base64 wrapped over several lines, as some identity providers post it', async () => {
    const samlResponse = byName('valid-assertion-signed').samlResponse(world);
    const wrapped = samlResponse.match(/.{1,76}/g)?.join('\r\n') ?? '';
    expect(await check(wrapped)).toMatchObject({ ok: true, identity: { subject: CORPUS_USER } });
  });
});
