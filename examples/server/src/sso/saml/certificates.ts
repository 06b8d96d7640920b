import { createHash, X509Certificate } from 'node:crypto';

/*
 * The checks of an identity provider's signing certificates (docs/http-api.md, "SAML 2.0 single sign-on
 * per tenant"). Pure: node:crypto and nothing of the server, so the module can move into core as it is.
 */

/** The smallest RSA modulus accepted, in bits. */
export const MIN_RSA_BITS = 2048;

/** A certificate that passed: PEM with its header lines, and what `GET /tenants/me/sso` shows of it. */
export interface CheckedCertificate {
  pem: string;
  /** SHA-256 of the DER, lower-case hex without separators. */
  fingerprintSha256: string;
  notAfter: Date;
}

/** Why a certificate is refused. Each answers the field `certificates` with `invalid_certificate`. */
export type CertificateProblem = 'not_a_certificate' | 'expired' | 'weak_key' | 'not_rsa' | 'no_certificate';

/** The result of {@link checkCertificates}. */
export type CertificateCheck =
  | { ok: true; certificates: CheckedCertificate[] }
  | {
      ok: false;
      problem: CertificateProblem;
      /** The position of the refused certificate in the list (`-1` for an empty list). */
      index: number;
      /** In words, for the log and the error's message; never the input itself. */
      detail: string;
    };

const PEM = /^-----BEGIN CERTIFICATE-----\r?\n?([A-Za-z0-9+/=\s]*?)-----END CERTIFICATE-----$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The DER of one certificate given as PEM or as its bare base64 body, or `null`. */
function derOf(text: string): Buffer | null {
  const trimmed = text.trim();
  const body = trimmed.startsWith('-----') ? PEM.exec(trimmed)?.[1] : trimmed;
  if (body === undefined) return null;
  const compact = body.replace(/\s+/g, '');
  if (compact.length === 0 || !BASE64.test(compact)) return null;
  return Buffer.from(compact, 'base64');
}

const toPem = (der: Buffer) =>
  `-----BEGIN CERTIFICATE-----\n${der
    .toString('base64')
    .match(/.{1,64}/g)
    ?.join('\n')}\n-----END CERTIFICATE-----\n`;

/**
 * Checks one certificate given as PEM (with or without its `BEGIN`/`END` lines): an X.509 certificate,
 * not expired at `now`, with an RSA key of at least {@link MIN_RSA_BITS} bits (SAML responses are verified
 * with RSA-SHA256 or stronger, so no other key could ever verify one).
 *
 * @example
 * const check = checkCertificate(pem, new Date());
 * if (check.ok) console.log(check.certificate.fingerprintSha256);
 */
export function checkCertificate(
  text: string,
  now: Date,
):
  | { ok: true; certificate: CheckedCertificate }
  | { ok: false; problem: CertificateProblem; detail: string } {
  const der = derOf(text);
  let x509: X509Certificate;
  try {
    if (!der) throw new Error('not PEM');
    x509 = new X509Certificate(der);
  } catch {
    return { ok: false, problem: 'not_a_certificate', detail: 'not a PEM or base64 X.509 certificate' };
  }
  const notAfter = x509.validToDate;
  // RFC 5280 4.1.2.5: valid from notBefore through notAfter, inclusive.
  if (notAfter.getTime() < now.getTime())
    return { ok: false, problem: 'expired', detail: `the certificate expired on ${notAfter.toISOString()}` };
  const key = x509.publicKey;
  if (key.asymmetricKeyType !== 'rsa')
    return {
      ok: false,
      problem: 'not_rsa',
      detail: `the certificate's key is ${key.asymmetricKeyType ?? 'of an unknown type'}, not RSA`,
    };
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < MIN_RSA_BITS)
    return {
      ok: false,
      problem: 'weak_key',
      detail: `the RSA key has ${bits} bits, fewer than ${MIN_RSA_BITS}`,
    };
  const exact = Buffer.from(x509.raw);
  return {
    ok: true,
    certificate: {
      pem: toPem(exact),
      fingerprintSha256: createHash('sha256').update(exact).digest('hex'),
      notAfter,
    },
  };
}

/**
 * Checks a connection's certificates, several at once for an identity provider's key rollover: each must
 * pass {@link checkCertificate}; an empty list is refused. The first refused one answers.
 *
 * @example
 * const check = checkCertificates([current, next], new Date());
 * if (!check.ok) throw fieldError('certificates', 'invalid_certificate', check.detail);
 */
export function checkCertificates(texts: readonly string[], now: Date): CertificateCheck {
  if (texts.length === 0)
    return { ok: false, problem: 'no_certificate', index: -1, detail: 'no certificate' };
  const certificates: CheckedCertificate[] = [];
  for (const [index, text] of texts.entries()) {
    const check = checkCertificate(text, now);
    if (!check.ok) return { ...check, index, detail: `certificate ${index + 1}: ${check.detail}` };
    certificates.push(check.certificate);
  }
  return { ok: true, certificates };
}
