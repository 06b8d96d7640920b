import { createHash, createPrivateKey, createPublicKey } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { AccessTokenKeyOptions } from 'tenant-auth-core';
import { ConfigError, type ServerConfig } from './config.js';

/**
 * Access-token signing as core takes it: the HMAC secret (HS256), or the EdDSA / ES256 key pair read
 * from `JWT_PRIVATE_KEY_FILE` (PKCS#8 PEM) and `JWT_PUBLIC_KEY_FILE` (SPKI PEM). The key id is the
 * RFC 7638 thumbprint of the public key, so every instance with the same key pair agrees on it.
 *
 * @example const accessToken = await loadAccessKeys(config, secrets.secret);
 */
export async function loadAccessKeys(config: ServerConfig, secret: string): Promise<AccessTokenKeyOptions> {
  const { accessAlgorithm, privateKeyFile, publicKeyFile } = config.jwt;
  if (accessAlgorithm === 'HS256') return { secret };
  if (privateKeyFile === undefined || publicKeyFile === undefined) {
    throw new ConfigError([
      { variable: 'JWT_PRIVATE_KEY_FILE', message: `is required with ${accessAlgorithm}` },
    ]);
  }
  const read = async (variable: string, file: string, kind: 'private' | 'public') => {
    let pem: string;
    try {
      pem = await readFile(file, 'utf8');
    } catch (err) {
      throw new ConfigError([
        { variable, message: `cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})` },
      ]);
    }
    try {
      return kind === 'private' ? createPrivateKey(pem) : createPublicKey(pem);
    } catch {
      throw new ConfigError([{ variable, message: `${file} is not a ${kind} key in PEM format` }]);
    }
  };
  const privateKey = await read('JWT_PRIVATE_KEY_FILE', privateKeyFile, 'private');
  const publicKey = await read('JWT_PUBLIC_KEY_FILE', publicKeyFile, 'public');
  const fits = (key: typeof publicKey) =>
    accessAlgorithm === 'EdDSA'
      ? key.asymmetricKeyType === 'ed25519'
      : key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1';
  if (!fits(publicKey) || !fits(privateKey)) {
    throw new ConfigError([
      {
        variable: 'JWT_PRIVATE_KEY_FILE',
        message: `the key pair does not fit ${accessAlgorithm} (${accessAlgorithm === 'EdDSA' ? 'Ed25519' : 'P-256'} expected)`,
      },
    ]);
  }
  const derivedPublic = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  if (!derivedPublic.equals(publicKey.export({ format: 'der', type: 'spki' }))) {
    throw new ConfigError([
      { variable: 'JWT_PUBLIC_KEY_FILE', message: 'is not the public key of JWT_PRIVATE_KEY_FILE' },
    ]);
  }
  return {
    algorithm: accessAlgorithm,
    keys: [{ kid: jwkThumbprint(publicKey.export({ format: 'jwk' })), privateKey, publicKey }],
  };
}

/** RFC 7638 thumbprint (SHA-256, base64url) of an OKP or EC public JWK. */
function jwkThumbprint(jwk: Record<string, unknown>): string {
  const members =
    jwk.kty === 'OKP'
      ? { crv: jwk.crv, kty: jwk.kty, x: jwk.x }
      : { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y };
  return createHash('sha256').update(JSON.stringify(members)).digest('base64url');
}
