import { createHmac, type KeyObject, timingSafeEqual } from 'node:crypto';
import type { JWTPayload } from 'jose';

/**
 * @internal HS256 JWTs signed and verified in-process with Node's HMAC, synchronously. WebCrypto (what
 * jose uses) runs each HMAC as a job on the thread pool: three of them per refresh were a sixth of its
 * time. The output is byte for byte what jose's `SignJWT` writes for the same header and payload (a test
 * holds it so), because refresh tokens are re-signed from stored fields and compared by hash.
 * Asymmetric algorithms stay with jose.
 */

const encode = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

/** Signs `payload` under `header` (`{ alg: 'HS256', typ }`, in that order). */
export function signHs256(
  header: { alg: 'HS256'; typ: string },
  payload: JWTPayload,
  key: KeyObject,
): string {
  const input = `${encode(header)}.${encode(payload)}`;
  return `${input}.${createHmac('sha256', key).update(input).digest('base64url')}`;
}

/** What {@link verifyHs256} checks besides the signature. */
export interface Hs256Expectations {
  typ: string;
  issuer: string;
  audience: string;
  /** Seconds since the epoch. */
  now: number;
  requiredClaims: readonly string[];
}

function parseSegment(segment: string): Record<string, unknown> {
  const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new TypeError('not a JSON object');
  return value as Record<string, unknown>;
}

/**
 * Verifies a compact HS256 JWS and the claims tenant-auth relies on, as jose's `jwtVerify` does with
 * the same options: only `alg: HS256` with exactly the expected `typ` and no other header parameter (so
 * no `crit`, `b64`, `jwk` or `kid` to interpret), the signature in constant time, `iss`, `aud`, `exp`
 * (strictly in the future), `nbf` (not in the future), `iat` a number, and the required claims present.
 * Throws on any failure; the caller maps it to `invalid_token`.
 */
export function verifyHs256(token: string, key: KeyObject, expected: Hs256Expectations): JWTPayload {
  const [headerPart, payloadPart, signaturePart, extra] = token.split('.');
  if (
    headerPart === undefined ||
    payloadPart === undefined ||
    signaturePart === undefined ||
    extra !== undefined
  ) {
    throw new TypeError('not a compact JWS');
  }
  const header = parseSegment(headerPart);
  const names = Object.keys(header);
  if (
    header.alg !== 'HS256' ||
    header.typ !== expected.typ ||
    names.some((n) => n !== 'alg' && n !== 'typ')
  ) {
    throw new TypeError('unexpected header');
  }
  const signature = Buffer.from(signaturePart, 'base64url');
  const computed = createHmac('sha256', key).update(`${headerPart}.${payloadPart}`).digest();
  if (signature.length !== computed.length || !timingSafeEqual(signature, computed)) {
    throw new TypeError('bad signature');
  }
  const payload = parseSegment(payloadPart) as JWTPayload;
  const { iss, aud, exp, nbf, iat } = payload;
  if (iss !== expected.issuer) throw new TypeError('unexpected iss');
  if (!(aud === expected.audience || (Array.isArray(aud) && aud.includes(expected.audience)))) {
    throw new TypeError('unexpected aud');
  }
  if (typeof exp !== 'number' || !Number.isFinite(exp) || exp <= expected.now) throw new TypeError('expired');
  if (nbf !== undefined && (typeof nbf !== 'number' || !Number.isFinite(nbf) || nbf > expected.now)) {
    throw new TypeError('not yet valid');
  }
  if (iat !== undefined && (typeof iat !== 'number' || !Number.isFinite(iat))) throw new TypeError('bad iat');
  for (const claim of expected.requiredClaims) {
    if (payload[claim] === undefined) throw new TypeError(`missing ${claim}`);
  }
  return payload;
}
