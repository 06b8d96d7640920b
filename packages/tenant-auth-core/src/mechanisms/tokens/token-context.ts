import type { KeyObject, webcrypto } from 'node:crypto';

import type { AccessClaims, AuthMethod } from '../../vocabulary/claims.js';
import type { Clock } from '../../vocabulary/clock.js';
import { invalidToken } from '../../vocabulary/errors.js';
import type { Role } from '../../vocabulary/roles.js';
import type { ImportedAccessKeys } from './keys.js';

/** @internal Header `typ` of access tokens (RFC 9068). */
export const ACCESS_TOKEN_TYP = 'at+jwt';
/** @internal Header `typ` of refresh tokens; differs from the access one so neither passes for the other. */
export const REFRESH_TOKEN_TYP = 'refresh+jwt';

/**
 * @internal Claims of a verified refresh token: those of an access token but the role, the email state and
 * how the session was authenticated (a refresh reads `amr` and `auth_time` from the session, never from
 * the token).
 */
export type RefreshClaims = Omit<AccessClaims, 'role' | 'emailVerified' | 'amr' | 'authTime'>;

/** @internal The fields a refresh token is signed from; re-signing the same fields gives the identical token. */
export type RefreshTokenFields = RefreshClaims;

/** @internal What an access token is signed for. */
export interface AccessTokenInput {
  userId: string;
  tenantId: string;
  sessionId: string;
  role: Role;
  emailVerified: boolean;
  /** How the session was authenticated (claim `amr`), from the session. */
  amr: readonly AuthMethod[];
  /** When the user last proved who they are (claim `auth_time`), from the session. */
  authTime: Date;
}

/** @internal The claim that says which kind of token a token is (`'access'` or `'refresh'`). */
export const TOKEN_TYPE_CLAIM = 'token_type';

/** @internal */
export type CryptoKey = webcrypto.CryptoKey;

/**
 * @internal What signing and verification share, set up once by `createTokenService`: the keys as
 * imported, where tokens come from and go to, and the clock.
 */
export interface TokenContext {
  readonly issuer: string;
  readonly audience: string;
  readonly clock: Clock;
  readonly access: ImportedAccessKeys;
  readonly refreshKey: KeyObject;
  /** The access keys as `CryptoKey`s, for jose (see `cryptoKeys`). */
  readonly accessCryptoKey: (key: KeyObject, usage: 'sign' | 'verify') => CryptoKey;
}

/** WebCrypto parameters of each signing algorithm. */
const WEBCRYPTO_ALGORITHM = {
  HS256: { name: 'HMAC', hash: 'SHA-256' },
  EdDSA: { name: 'Ed25519' },
  ES256: { name: 'ECDSA', namedCurve: 'P-256' },
} as const;

/**
 * @internal A `KeyObject` as the `CryptoKey` jose works with, converted once per key: handed a
 * `KeyObject`, jose converts it on every call, which cost a fifth of an authenticated request.
 */
export function cryptoKeys(algorithm: keyof typeof WEBCRYPTO_ALGORITHM) {
  const converted = new WeakMap<KeyObject, CryptoKey>();
  return (key: KeyObject, usage: 'sign' | 'verify'): CryptoKey => {
    let crypto = converted.get(key);
    if (!crypto) {
      const usages: webcrypto.KeyUsage[] =
        key.type === 'private' ? ['sign'] : key.type === 'public' ? ['verify'] : ['sign', 'verify'];
      crypto = key.toCryptoKey(WEBCRYPTO_ALGORITHM[algorithm], false, usages);
      converted.set(key, crypto);
    }
    if (!crypto.usages.includes(usage)) throw invalidToken();
    return crypto;
  };
}

/** @internal A date as whole seconds since the epoch, as JWT claims carry it. */
export const seconds = (d: Date) => Math.floor(d.getTime() / 1000);
