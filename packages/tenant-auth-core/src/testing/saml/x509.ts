import { generateKeyPairSync, type KeyObject, randomBytes, sign, X509Certificate } from 'node:crypto';

/*
 * Self-signed X.509 certificates for the tests, made with node:crypto alone (it reads certificates but
 * does not write them): a small DER encoder for the few types a version 1 certificate needs, signed with
 * sha256WithRSAEncryption (or ecdsa-with-SHA256 for an EC key). Enough for an identity provider's signing
 * certificate, including the bad ones a connection must refuse (expired, a 1024-bit key, not RSA).
 */

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

const tlv = (tag: number, content: Buffer) =>
  Buffer.concat([Buffer.from([tag]), length(content.length), content]);
const sequence = (...items: Buffer[]) => tlv(0x30, Buffer.concat(items));
const set = (...items: Buffer[]) => tlv(0x31, Buffer.concat(items));
const nullValue = () => Buffer.from([0x05, 0x00]);
const utf8 = (s: string) => tlv(0x0c, Buffer.from(s, 'utf8'));
const bitString = (bytes: Buffer) => tlv(0x03, Buffer.concat([Buffer.from([0]), bytes]));

function oid(dotted: string): Buffer {
  const [a = 0, b = 0, ...rest] = dotted.split('.').map(Number);
  const bytes = [a * 40 + b];
  for (const n of rest) {
    const part = [n & 0x7f];
    for (let v = Math.floor(n / 128); v > 0; v = Math.floor(v / 128)) part.unshift((v & 0x7f) | 0x80);
    bytes.push(...part);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/**
 * A non-negative INTEGER in DER: minimal, so no leading zero byte unless the next byte's high bit is set
 * (X.690 8.3.2). OpenSSL refuses a non-minimal one; a random serial starts with 0x00 once in 256.
 */
export function positiveInteger(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const minimal = bytes.subarray(start);
  const b =
    minimal.length === 0 || (minimal[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), minimal]) : minimal;
  return tlv(0x02, b);
}

/** UTCTime until 2049, GeneralizedTime after (RFC 5280 4.1.2.5). */
function time(date: Date): Buffer {
  const iso = date.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return date.getUTCFullYear() < 2050
    ? tlv(0x17, Buffer.from(`${iso.slice(2)}Z`, 'ascii'))
    : tlv(0x18, Buffer.from(`${iso}Z`, 'ascii'));
}

const name = (commonName: string) => sequence(set(sequence(oid('2.5.4.3'), utf8(commonName))));

/**
 * A certificate and the key it certifies (made in the test, self-signed).
 *
 * @example
 * const { pem, privateKey }: TestCertificate = world.idp.signing;
 */
export interface TestCertificate {
  /** PEM, with its `-----BEGIN CERTIFICATE-----` lines. */
  pem: string;
  /** The base64 body alone, as metadata's `<X509Certificate>` carries it. */
  base64: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

/** Options of {@link selfSignedCertificate}. */
export interface TestCertificateOptions {
  commonName?: string;
  /** Default: an hour ago. */
  notBefore?: Date;
  /** Default: in a year. */
  notAfter?: Date;
  /** `rsa` (default) or `ec` (P-256). */
  keyType?: 'rsa' | 'ec';
  /** RSA modulus length; default 2048. */
  modulusLength?: number;
  /** The serial number's bytes, read as a non-negative integer; default 16 random bytes. */
  serialNumber?: Buffer;
  /** Certify this existing key pair instead of a new one. */
  keyPair?: { privateKey: KeyObject; publicKey: KeyObject };
}

/**
 * A self-signed certificate made in the test.
 *
 * @example
 * const idp = selfSignedCertificate({ commonName: 'idp.test' });
 * const expired = selfSignedCertificate({ notAfter: new Date(Date.now() - 86_400_000) });
 */
export function selfSignedCertificate(options: TestCertificateOptions = {}): TestCertificate {
  const keyType = options.keyType ?? 'rsa';
  const { privateKey, publicKey } =
    options.keyPair ??
    (keyType === 'rsa'
      ? generateKeyPairSync('rsa', { modulusLength: options.modulusLength ?? 2048 })
      : generateKeyPairSync('ec', { namedCurve: 'P-256' }));
  const algorithm =
    publicKey.asymmetricKeyType === 'rsa'
      ? sequence(oid('1.2.840.113549.1.1.11'), nullValue())
      : sequence(oid('1.2.840.10045.4.3.2'));
  const subject = name(options.commonName ?? 'tenant-auth test identity provider');
  const notBefore = options.notBefore ?? new Date(Date.now() - 3_600_000);
  const notAfter = options.notAfter ?? new Date(Date.now() + 365 * 86_400_000);
  const tbs = sequence(
    positiveInteger(options.serialNumber ?? randomBytes(16)),
    algorithm,
    subject,
    sequence(time(notBefore), time(notAfter)),
    subject,
    publicKey.export({ type: 'spki', format: 'der' }),
  );
  const signature = sign('sha256', tbs, privateKey);
  const der = sequence(tbs, algorithm, bitString(signature));
  // Parse it back: a test certificate that node:crypto cannot read is a bug here, not in the code under test.
  new X509Certificate(der);
  const base64 = der.toString('base64');
  const pem = `-----BEGIN CERTIFICATE-----\n${base64.match(/.{1,64}/g)?.join('\n')}\n-----END CERTIFICATE-----\n`;
  return { pem, base64, privateKey, publicKey };
}
