import { createHash, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { selfSignedCertificate } from '../../../../../test-support/saml/x509.js';
import { checkCertificate, checkCertificates } from './certificates.js';

const now = new Date();
const day = 86_400_000;
const good = selfSignedCertificate({ notAfter: new Date(now.getTime() + 30 * day) });

describe('checkCertificate', () => {
  it('reads a PEM certificate: its SHA-256 fingerprint in lower-case hex without separators, and notAfter', () => {
    const check = checkCertificate(good.pem, now);
    expect(check.ok).toBe(true);
    if (!check.ok) return;
    const der = new X509Certificate(good.pem).raw;
    expect(check.certificate.fingerprintSha256).toBe(createHash('sha256').update(der).digest('hex'));
    expect(check.certificate.fingerprintSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(check.certificate.notAfter).toEqual(new X509Certificate(good.pem).validToDate);
    expect(check.certificate.pem).toBe(good.pem);
  });

  it('reads the bare base64 body (as metadata carries it), wrapped or not, with the same result', () => {
    const fromPem = checkCertificate(good.pem, now);
    const bare = checkCertificate(good.base64, now);
    const wrapped = checkCertificate(`\n  ${good.base64.match(/.{1,76}/g)?.join('\r\n  ')}\n`, now);
    expect(bare).toEqual(fromPem);
    expect(wrapped).toEqual(fromPem);
  });

  it('refuses what is not a certificate, without echoing it', () => {
    const key = generateKeyPairSync('rsa', { modulusLength: 2048 })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    for (const text of [
      '',
      'hello',
      `${good.pem}${good.pem}`,
      key,
      good.pem.replace('CERTIFICATE', 'X509 CRL'),
      'AAAA',
    ]) {
      const check = checkCertificate(text, now);
      expect(check).toMatchObject({ ok: false, problem: 'not_a_certificate' });
      if (!check.ok) expect(check.detail).not.toContain('MII');
    }
  });

  it('refuses an expired certificate (valid through its notAfter, RFC 5280)', () => {
    const expired = selfSignedCertificate({
      notBefore: new Date(now.getTime() - 400 * day),
      notAfter: new Date(now.getTime() - day),
    });
    expect(checkCertificate(expired.pem, now)).toMatchObject({ ok: false, problem: 'expired' });
    const notAfter = new X509Certificate(good.pem).validToDate;
    expect(checkCertificate(good.pem, notAfter).ok).toBe(true);
    expect(checkCertificate(good.pem, new Date(notAfter.getTime() + 1000))).toMatchObject({
      ok: false,
      problem: 'expired',
    });
  });

  it('refuses an RSA key under 2048 bits', () => {
    const weak = selfSignedCertificate({ modulusLength: 1024 });
    expect(checkCertificate(weak.pem, now)).toMatchObject({ ok: false, problem: 'weak_key' });
    expect(checkCertificate(selfSignedCertificate({ modulusLength: 2048 }).pem, now).ok).toBe(true);
  });

  it('refuses a key that is not RSA (no RSA-SHA256 signature could verify with it)', () => {
    expect(checkCertificate(selfSignedCertificate({ keyType: 'ec' }).pem, now)).toMatchObject({
      ok: false,
      problem: 'not_rsa',
    });
  });
});

describe('checkCertificates', () => {
  it('checks several at once (key rollover) and keeps their order', () => {
    const next = selfSignedCertificate({ notAfter: new Date(now.getTime() + 400 * day) });
    const check = checkCertificates([good.pem, next.base64], now);
    expect(check.ok).toBe(true);
    if (check.ok) expect(check.certificates.map((c) => c.pem)).toEqual([good.pem, next.pem]);
  });

  it('names the first refused certificate, and refuses an empty list', () => {
    const weak = selfSignedCertificate({ modulusLength: 1024 });
    expect(checkCertificates([good.pem, weak.pem, 'junk'], now)).toMatchObject({
      ok: false,
      problem: 'weak_key',
      index: 1,
      detail: expect.stringMatching(/^certificate 2: /),
    });
    expect(checkCertificates([], now)).toMatchObject({ ok: false, problem: 'no_certificate' });
  });
});

describe('selfSignedCertificate (the fixture the SAML tests sign with)', () => {
  const keyPair = generateKeyPairSync('ec', { namedCurve: 'P-256' });

  it('writes any serial number node:crypto can read back: leading zero bytes, a high first bit, zero', () => {
    // A random 16-byte serial starts with 0x00 once in 256; DER wants it minimal, or OpenSSL refuses the certificate.
    for (const serial of ['00', '0001', '000080', '80', '7f', '00000000', 'ff00']) {
      const certificate = selfSignedCertificate({ keyPair, serialNumber: Buffer.from(serial, 'hex') });
      const read = new X509Certificate(certificate.pem);
      expect(BigInt(`0x${read.serialNumber}`)).toBe(BigInt(`0x${serial}`));
    }
  });
});
