import { createHash } from 'node:crypto';

import { exportJWK } from 'jose';
import type { AccessClaims } from '../../vocabulary/claims.js';
import type { Clock, RandomBytes } from '../../vocabulary/clock.js';
import { configurationError } from '../../vocabulary/errors.js';
import {
  type AccessTokenKeyOptions,
  type ImportedAccessKeys,
  importAccessKeys,
  importSecret,
} from './keys.js';
import {
  type AccessTokenInput,
  cryptoKeys,
  type RefreshClaims,
  type RefreshTokenFields,
  type TokenContext,
} from './token-context.js';
import { createTokenSigner } from './token-signer.js';
import { createTokenVerifier } from './token-verifier.js';

export {
  ACCESS_TOKEN_TYP,
  REFRESH_TOKEN_TYP,
  type RefreshClaims,
  type RefreshTokenFields,
} from './token-context.js';

/** @internal Options of `createTokenService`, validated by `resolveOptions`. */
export interface TokenServiceOptions {
  /** `iss` of every token, e.g. `'https://auth.example.com'`. */
  issuer: string;
  /** `aud` of every token. */
  audience: string;
  /** Access-token signing: `{ secret }` (HS256, at least 32 bytes) or EdDSA/ES256 key pairs. */
  accessToken: AccessTokenKeyOptions;
  /** HS256 secret for refresh tokens, at least 32 bytes, different from the access secret. */
  refreshSecret: string | Uint8Array;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  clock: Clock;
  random: RandomBytes;
}

/** @internal */
export interface TokenService {
  readonly accessTokenTtlSeconds: number;
  readonly refreshTokenTtlSeconds: number;
  signAccessToken(input: AccessTokenInput): Promise<{ token: string; claims: AccessClaims }>;
  verifyAccessToken(token: string): Promise<AccessClaims>;
  /**
   * The claims of an access token verified before and not expired since (a copy), or `undefined`: what
   * `verifyAccessToken` would answer without verifying again, without waiting.
   */
  verifiedAccessClaims(token: string): AccessClaims | undefined;
  /** Deterministic: the same fields always give the same token (HS256). */
  signRefreshToken(fields: RefreshTokenFields): Promise<string>;
  verifyRefreshToken(token: string): Promise<RefreshClaims>;
  /** A fresh random `jti`. */
  newJti(): string;
  /** Public keys of the access-token signer as a JWKS (`{ keys: [] }` for HS256). */
  jwks(): Promise<{ keys: Record<string, unknown>[] }>;
}

/** @internal SHA-256 (hex) of a refresh token: the only form in which one is stored. */
export function hashRefreshToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * @internal Signs and verifies access and refresh tokens with jose. Keys are imported once, here.
 * Verification allows exactly one algorithm per token kind, checks `typ`, the type claim, issuer,
 * audience and expiry, and never takes a key from the token (`jwk`, `jku`, `x5u` are ignored; `kid`
 * only picks among configured keys).
 *
 * @example
 * const tokens = createTokenService({
 *   issuer: 'https://auth.example.com', audience: 'example-api',
 *   accessToken: { secret: process.env.JWT_SECRET! }, refreshSecret: process.env.JWT_REFRESH_SECRET!,
 * });
 * const { token } = await tokens.signAccessToken({ userId, tenantId, sessionId });
 * const claims = await tokens.verifyAccessToken(token);
 */
export function createTokenService(options: TokenServiceOptions): TokenService {
  const { clock, random } = options;
  const accessTtl = options.accessTokenTtlSeconds;
  const refreshTtl = options.refreshTokenTtlSeconds;
  const access: ImportedAccessKeys = importAccessKeys(options.accessToken);
  const refreshKey = importSecret(options.refreshSecret, 'refreshSecret');
  if (access.algorithm === 'HS256' && access.signingKey.equals(refreshKey)) {
    throw configurationError('createTenantAuth', 'refreshSecret', 'must differ from accessToken.secret');
  }
  const { issuer, audience } = options;
  const context: TokenContext = {
    issuer,
    audience,
    clock,
    access,
    refreshKey,
    accessCryptoKey: cryptoKeys(access.algorithm),
  };
  const newJti = () => Buffer.from(random(16)).toString('base64url');

  return {
    accessTokenTtlSeconds: accessTtl,
    refreshTokenTtlSeconds: refreshTtl,
    newJti,
    ...createTokenSigner(context, newJti, accessTtl),
    ...createTokenVerifier(context),
    jwks: jwksOf(access),
  };
}

/** `TokenService.jwks` of `access`: computed on the first call, the same promise on every later one. */
function jwksOf(access: ImportedAccessKeys): TokenService['jwks'] {
  let jwksPromise: Promise<{ keys: Record<string, unknown>[] }> | undefined;
  return () => {
    jwksPromise ??= (async () => {
      if (access.algorithm === 'HS256') return { keys: [] };
      const keys: Record<string, unknown>[] = [];
      for (const [kid, key] of access.verificationKeys) {
        keys.push({ ...(await exportJWK(key)), kid, alg: access.algorithm, use: 'sig' });
      }
      return { keys };
    })();
    return jwksPromise;
  };
}
