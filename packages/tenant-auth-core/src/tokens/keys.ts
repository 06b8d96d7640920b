import { createPrivateKey, createPublicKey, createSecretKey, type KeyObject } from 'node:crypto';
import { TenantAuthError } from '../errors.js';

/** Asymmetric algorithms offered for access tokens. */
export type AsymmetricAlgorithm = 'EdDSA' | 'ES256';

/** A key as configured: PEM text, a JWK object, or a Node `KeyObject`. */
export type KeyMaterial = string | KeyObject | Record<string, unknown>;

/** One asymmetric key pair for access tokens. */
export interface AccessKeyPair {
  /** Key id written to the token header and the JWKS; selects the verification key. */
  kid: string;
  /** Needed only on the key that signs (`signingKid`); retired keys may be public only. */
  privateKey?: KeyMaterial;
  publicKey: KeyMaterial;
}

/** How access tokens are signed: HS256 with a secret (default), or EdDSA / ES256 with key pairs. */
export type AccessTokenKeyOptions =
  | { algorithm?: 'HS256'; secret: string | Uint8Array }
  | { algorithm: AsymmetricAlgorithm; keys: AccessKeyPair[]; signingKid?: string };

export const MIN_SECRET_BYTES = 32;

/** @internal Imports an HMAC secret once, refusing short ones. */
export function importSecret(secret: string | Uint8Array, name: string): KeyObject {
  const bytes = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : Buffer.from(secret);
  if (bytes.length < MIN_SECRET_BYTES) {
    throw new TypeError(`${name} must be at least ${MIN_SECRET_BYTES} bytes (got ${bytes.length}).`);
  }
  return createSecretKey(bytes);
}

function importAsymmetric(material: KeyMaterial, kind: 'private' | 'public'): KeyObject {
  const isKeyObject =
    typeof material === 'object' &&
    'type' in material &&
    typeof material.type === 'string' &&
    'export' in material;
  if (kind === 'private') {
    if (isKeyObject) {
      if ((material as KeyObject).type !== 'private')
        throw new TypeError('a private key is required to sign');
      return material as KeyObject;
    }
    return typeof material === 'string'
      ? createPrivateKey(material)
      : createPrivateKey({ key: material as never, format: 'jwk' });
  }
  // Always derive the public half: handed a private key by mistake, the JWKS must still publish only
  // the public key (createPublicKey of a private key derives it).
  if (isKeyObject) {
    const key = material as KeyObject;
    if (key.type === 'public') return key;
    if (key.type === 'private') return createPublicKey(key);
    throw new TypeError('an asymmetric key is required');
  }
  return typeof material === 'string'
    ? createPublicKey(material)
    : createPublicKey({ key: material as never, format: 'jwk' });
}

function samePublicKey(a: KeyObject, b: KeyObject): boolean {
  return a.export({ format: 'der', type: 'spki' }).equals(b.export({ format: 'der', type: 'spki' }));
}

function checkKeyFits(key: KeyObject, algorithm: AsymmetricAlgorithm, kid: string): void {
  const ok =
    algorithm === 'EdDSA'
      ? key.asymmetricKeyType === 'ed25519'
      : key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1';
  if (!ok)
    throw new TypeError(
      `key "${kid}" does not fit ${algorithm} (${algorithm === 'EdDSA' ? 'Ed25519' : 'P-256'} expected).`,
    );
}

/** @internal The imported access-token keys. */
export interface ImportedAccessKeys {
  algorithm: 'HS256' | AsymmetricAlgorithm;
  signingKey: KeyObject;
  signingKid: string | undefined;
  /** Verification keys by kid (asymmetric), or the one secret under the empty kid (HS256). */
  verificationKeys: Map<string, KeyObject>;
}

/** @internal Imports access-token keys once, at construction. */
export function importAccessKeys(options: AccessTokenKeyOptions): ImportedAccessKeys {
  if (!('keys' in options)) {
    const key = importSecret(options.secret, 'the access token secret');
    return {
      algorithm: 'HS256',
      signingKey: key,
      signingKid: undefined,
      verificationKeys: new Map([['', key]]),
    };
  }
  const { algorithm, keys } = options;
  if (algorithm !== 'EdDSA' && algorithm !== 'ES256')
    throw new TypeError(`unsupported access token algorithm ${String(algorithm)}`);
  if (keys.length === 0) throw new TypeError('at least one access key pair is required');
  const signingKid = options.signingKid ?? keys[0]?.kid;
  const verificationKeys = new Map<string, KeyObject>();
  let signingKey: KeyObject | undefined;
  for (const pair of keys) {
    if (!pair.kid) throw new TypeError('every access key pair needs a kid');
    if (verificationKeys.has(pair.kid)) throw new TypeError(`duplicate kid "${pair.kid}"`);
    const publicKey = importAsymmetric(pair.publicKey, 'public');
    checkKeyFits(publicKey, algorithm, pair.kid);
    verificationKeys.set(pair.kid, publicKey);
    if (pair.kid === signingKid) {
      if (!pair.privateKey) throw new TypeError(`the signing key "${pair.kid}" has no private key`);
      signingKey = importAsymmetric(pair.privateKey, 'private');
      checkKeyFits(signingKey, algorithm, pair.kid);
      if (!samePublicKey(createPublicKey(signingKey), publicKey)) {
        throw new TypeError(`the private and public keys of "${pair.kid}" do not belong together`);
      }
    }
  }
  if (!signingKey) throw new TypeError(`no key pair has the signing kid "${signingKid}"`);
  return { algorithm, signingKey, signingKid, verificationKeys };
}

/** @internal */
export function invalidToken(cause?: unknown): TenantAuthError {
  return new TenantAuthError('invalid_token', 'The token is missing, invalid or expired.', { cause });
}
