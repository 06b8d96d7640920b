import { createPrivateKey, createPublicKey, createSecretKey, type KeyObject } from 'node:crypto';
import { configurationError } from '../../vocabulary/errors.js';

/**
 * Asymmetric algorithms offered for access tokens.
 *
 * @example
 * const algorithm: AsymmetricAlgorithm = 'EdDSA';
 */
export type AsymmetricAlgorithm = 'EdDSA' | 'ES256';

/**
 * A key as configured: PEM text, a JWK object, or a Node `KeyObject`.
 *
 * @example
 * const key: KeyMaterial = await readFile('access-public.pem', 'utf8');
 */
export type KeyMaterial = string | KeyObject | Record<string, unknown>;

/**
 * One asymmetric key pair for access tokens.
 *
 * @example
 * const pair: AccessKeyPair = { kid: '2026-11', privateKey: privatePem, publicKey: publicPem };
 */
export interface AccessKeyPair {
  /** Key id written to the token header and the JWKS; selects the verification key. */
  kid: string;
  /** Needed only on the key that signs (`signingKid`); retired keys may be public only. */
  privateKey?: KeyMaterial;
  publicKey: KeyMaterial;
}

/**
 * How access tokens are signed: HS256 with a secret (default), or EdDSA / ES256 with key pairs (the
 * JWKS route then publishes the public keys).
 *
 * @example
 * const hmac: AccessTokenKeyOptions = { secret: process.env.JWT_SECRET! };
 * const eddsa: AccessTokenKeyOptions = { algorithm: 'EdDSA', keys: [{ kid: '2026-11', privateKey, publicKey }] };
 */
export type AccessTokenKeyOptions =
  | { algorithm?: 'HS256'; secret: string | Uint8Array }
  | { algorithm: AsymmetricAlgorithm; keys: AccessKeyPair[]; signingKid?: string };

/** @internal The shortest HMAC secret accepted, in bytes (the output size of SHA-256). */
export const MIN_SECRET_BYTES = 32;

/** @internal The factory that reports key problems. */
const FACTORY = 'createTenantAuth';

/** @internal Imports an HMAC secret once, refusing missing and short ones. */
export function importSecret(secret: unknown, option: string): KeyObject {
  if (typeof secret !== 'string' && !(secret instanceof Uint8Array)) {
    throw configurationError(
      FACTORY,
      option,
      `must be a string or Uint8Array of at least ${MIN_SECRET_BYTES} bytes (got ${secret === undefined ? 'undefined' : typeof secret})`,
    );
  }
  const bytes = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : Buffer.from(secret);
  if (bytes.length < MIN_SECRET_BYTES) {
    throw configurationError(
      FACTORY,
      option,
      `must be at least ${MIN_SECRET_BYTES} bytes (got ${bytes.length})`,
    );
  }
  return createSecretKey(bytes);
}

const keyError = (option: string, problem: string) => configurationError(FACTORY, option, problem);

function importAsymmetric(material: KeyMaterial, kind: 'private' | 'public'): KeyObject {
  const isKeyObject =
    typeof material === 'object' &&
    'type' in material &&
    typeof material.type === 'string' &&
    'export' in material;
  if (kind === 'private') {
    if (isKeyObject) {
      if ((material as KeyObject).type !== 'private')
        throw keyError('accessToken.keys', 'needs a private key on the signing key pair');
      return material as KeyObject;
    }
    return parseKey(() =>
      typeof material === 'string'
        ? createPrivateKey(material)
        : createPrivateKey({ key: material as never, format: 'jwk' }),
    );
  }
  // Always derive the public half: handed a private key by mistake, the JWKS must still publish only
  // the public key (createPublicKey of a private key derives it).
  if (isKeyObject) {
    const key = material as KeyObject;
    if (key.type === 'public') return key;
    if (key.type === 'private') return createPublicKey(key);
    throw keyError('accessToken.keys', 'must hold asymmetric keys');
  }
  return parseKey(() =>
    typeof material === 'string'
      ? createPublicKey(material)
      : createPublicKey({ key: material as never, format: 'jwk' }),
  );
}

function parseKey(parse: () => KeyObject): KeyObject {
  try {
    return parse();
  } catch (err) {
    throw configurationError(
      FACTORY,
      'accessToken.keys',
      'holds a key that is neither PEM text, a JWK nor a KeyObject',
      err,
    );
  }
}

function samePublicKey(a: KeyObject, b: KeyObject): boolean {
  return a.export({ format: 'der', type: 'spki' }).equals(b.export({ format: 'der', type: 'spki' }));
}

function checkKeyFits(key: KeyObject, algorithm: AsymmetricAlgorithm, kid: string): void {
  const ok =
    algorithm === 'EdDSA'
      ? key.asymmetricKeyType === 'ed25519'
      : key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1';
  if (!ok) {
    throw keyError(
      'accessToken.keys',
      `has a key "${kid}" that does not fit ${algorithm} (${algorithm === 'EdDSA' ? 'Ed25519' : 'P-256'} expected)`,
    );
  }
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
  if (typeof options !== 'object' || options === null) {
    throw keyError('accessToken', 'must be { secret } or { algorithm, keys }');
  }
  if (!('keys' in options)) {
    if (options.algorithm !== undefined && options.algorithm !== 'HS256') {
      throw keyError('accessToken.keys', `are required with algorithm ${String(options.algorithm)}`);
    }
    const key = importSecret(options.secret, 'accessToken.secret');
    return {
      algorithm: 'HS256',
      signingKey: key,
      signingKid: undefined,
      verificationKeys: new Map([['', key]]),
    };
  }
  const { algorithm, keys } = options;
  if (algorithm !== 'EdDSA' && algorithm !== 'ES256')
    throw keyError('accessToken.algorithm', `must be HS256, EdDSA or ES256 (got ${String(algorithm)})`);
  if (!Array.isArray(keys) || keys.length === 0)
    throw keyError('accessToken.keys', 'must hold at least one key pair');
  const signingKid = options.signingKid ?? keys[0]?.kid;
  const verificationKeys = new Map<string, KeyObject>();
  let signingKey: KeyObject | undefined;
  for (const pair of keys) {
    if (!pair.kid) throw keyError('accessToken.keys', 'must give every key pair a kid');
    if (verificationKeys.has(pair.kid))
      throw keyError('accessToken.keys', `has a duplicate kid "${pair.kid}"`);
    const publicKey = importAsymmetric(pair.publicKey, 'public');
    checkKeyFits(publicKey, algorithm, pair.kid);
    verificationKeys.set(pair.kid, publicKey);
    if (pair.kid === signingKid) {
      if (!pair.privateKey)
        throw keyError('accessToken.keys', `has no private key for the signing kid "${pair.kid}"`);
      signingKey = importAsymmetric(pair.privateKey, 'private');
      checkKeyFits(signingKey, algorithm, pair.kid);
      if (!samePublicKey(createPublicKey(signingKey), publicKey)) {
        throw keyError(
          'accessToken.keys',
          `has private and public keys of "${pair.kid}" that do not belong together`,
        );
      }
    }
  }
  if (!signingKey) throw keyError('accessToken.signingKid', `names no key pair ("${signingKid}")`);
  return { algorithm, signingKey, signingKid, verificationKeys };
}
