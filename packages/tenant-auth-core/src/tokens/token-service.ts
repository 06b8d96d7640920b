import { createHash, type KeyObject, type webcrypto } from 'node:crypto';

import { exportJWK, type JWTPayload, jwtVerify, SignJWT } from 'jose';
import type { AccessClaims } from '../claims.js';
import type { Clock, RandomBytes } from '../clock.js';
import { configurationError, invalidToken } from '../errors.js';
import { isRole, type Role } from '../members/roles.js';
import { signHs256, verifyHs256 } from './hs256.js';
import {
  type AccessTokenKeyOptions,
  type ImportedAccessKeys,
  importAccessKeys,
  importSecret,
} from './keys.js';

/** @internal Header `typ` of access tokens (RFC 9068). */
export const ACCESS_TOKEN_TYP = 'at+jwt';
/** @internal Header `typ` of refresh tokens; differs from the access one so neither passes for the other. */
export const REFRESH_TOKEN_TYP = 'refresh+jwt';

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

/** @internal Claims of a verified refresh token: those of an access token but the role and email state. */
export type RefreshClaims = Omit<AccessClaims, 'role' | 'emailVerified'>;

/** @internal The fields a refresh token is signed from; re-signing the same fields gives the identical token. */
export type RefreshTokenFields = RefreshClaims;

/** @internal */
export interface TokenService {
  readonly accessTokenTtlSeconds: number;
  readonly refreshTokenTtlSeconds: number;
  signAccessToken(input: {
    userId: string;
    tenantId: string;
    sessionId: string;
    role: Role;
    emailVerified: boolean;
  }): Promise<{ token: string; claims: AccessClaims }>;
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

const TOKEN_TYPE_CLAIM = 'token_type';

type CryptoKey = webcrypto.CryptoKey;

/** WebCrypto parameters of each signing algorithm. */
const WEBCRYPTO_ALGORITHM = {
  HS256: { name: 'HMAC', hash: 'SHA-256' },
  EdDSA: { name: 'Ed25519' },
  ES256: { name: 'ECDSA', namedCurve: 'P-256' },
} as const;

/**
 * A `KeyObject` as the `CryptoKey` jose works with, converted once per key: handed a `KeyObject`, jose
 * converts it on every call, which cost a fifth of an authenticated request.
 */
function cryptoKeys(algorithm: keyof typeof WEBCRYPTO_ALGORITHM) {
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

/** A verified access token kept for reuse, until its expiry. */
interface VerifiedToken {
  /** All of it: a token is answered from the cache only when it is exactly this one. */
  token: string;
  claims: AccessClaims;
  expiresAtMs: number;
  issuedAtMs: number;
}

/**
 * Where a token is kept in the cache of verified tokens: its signature, the text after its last dot. A
 * lookup hashes those few dozen characters instead of the whole token (a token comes from a new header
 * string each request, so its hash is never known yet: hashing all of it was most of a cached
 * verification); the whole token is then compared.
 */
const cacheKeyOf = (token: string) => token.slice(token.lastIndexOf('.') + 1);

/** jose's default: no clock tolerance, so a token is never used before its `iat`. */
const CLOCK_TOLERANCE_MS = 0;

/** Most verified access tokens kept at once (about half a kilobyte each). */
const VERIFIED_CACHE_SIZE = 10_000;

/** Whether every segment of a compact JWS is base64url exactly as an encoder writes it. */
function isCanonicalCompactJws(token: string): boolean {
  const segments = token.split('.');
  return (
    segments.length === 3 &&
    segments.every(
      (segment) =>
        /^[A-Za-z0-9_-]+$/.test(segment) &&
        Buffer.from(segment, 'base64url').toString('base64url') === segment,
    )
  );
}
const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

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
  const refreshKey: KeyObject = importSecret(options.refreshSecret, 'refreshSecret');
  if (access.algorithm === 'HS256' && access.signingKey.equals(refreshKey)) {
    throw configurationError('createTenantAuth', 'refreshSecret', 'must differ from accessToken.secret');
  }
  const { issuer, audience } = options;
  const verified = new Map<string, VerifiedToken>();
  let jwksPromise: Promise<{ keys: Record<string, unknown>[] }> | undefined;

  const newJti = () => Buffer.from(random(16)).toString('base64url');

  const accessCryptoKey = cryptoKeys(access.algorithm);
  const getAccessKey = (header: { kid?: string | undefined }): CryptoKey =>
    accessCryptoKey(accessKeyObject(header), 'verify');
  const accessKeyObject = (header: { kid?: string | undefined }): KeyObject => {
    if (access.algorithm === 'HS256') return access.signingKey;
    const kid =
      header.kid ?? (access.verificationKeys.size === 1 ? [...access.verificationKeys.keys()][0] : undefined);
    const key = kid === undefined ? undefined : access.verificationKeys.get(kid);
    if (!key) throw invalidToken();
    return key;
  };

  async function verify(
    token: string,
    kind: 'access' | 'refresh',
  ): Promise<RefreshClaims & { payload: JWTPayload }> {
    if (typeof token !== 'string' || token.length === 0 || token.length > 8192) throw invalidToken();
    // One spelling per token: base64url decoders forgive padding and spare low bits, but refresh tokens
    // are looked up by the hash of their exact text, so another spelling of the current token would
    // match nothing and be taken for an older one (a replay).
    if (!isCanonicalCompactJws(token)) throw invalidToken();
    let payload: JWTPayload;
    const requiredClaims = ['sub', 'jti', 'iat', 'exp', 'tid', 'sid', TOKEN_TYPE_CLAIM];
    if (kind === 'refresh' || access.algorithm === 'HS256') {
      try {
        payload = verifyHs256(token, kind === 'refresh' ? refreshKey : access.signingKey, {
          typ: kind === 'access' ? ACCESS_TOKEN_TYP : REFRESH_TOKEN_TYP,
          issuer,
          audience,
          now: seconds(clock.now()),
          requiredClaims,
        });
      } catch (err) {
        throw invalidToken(err);
      }
    } else {
      payload = await verifyAsymmetric(token, requiredClaims);
    }
    return claimsOf(payload, kind);
  }

  async function verifyAsymmetric(token: string, requiredClaims: string[]): Promise<JWTPayload> {
    try {
      const { payload } = await jwtVerify(token, getAccessKey, {
        algorithms: [access.algorithm],
        typ: ACCESS_TOKEN_TYP,
        issuer,
        audience,
        currentDate: clock.now(),
        requiredClaims,
      });
      return payload;
    } catch (err) {
      throw invalidToken(err);
    }
  }

  function claimsOf(
    payload: JWTPayload,
    kind: 'access' | 'refresh',
  ): RefreshClaims & { payload: JWTPayload } {
    const { sub, jti, iat, exp, tid, sid } = payload;
    if (
      payload[TOKEN_TYPE_CLAIM] !== kind ||
      typeof sub !== 'string' ||
      typeof jti !== 'string' ||
      typeof tid !== 'string' ||
      typeof sid !== 'string' ||
      typeof iat !== 'number' ||
      typeof exp !== 'number'
    ) {
      throw invalidToken();
    }
    return {
      userId: sub,
      tenantId: tid,
      sessionId: sid,
      jti,
      issuedAt: new Date(iat * 1000),
      expiresAt: new Date(exp * 1000),
      payload,
    };
  }

  /** See {@link TokenService.verifiedAccessClaims}. */
  function verifiedAccessClaims(token: string): AccessClaims | undefined {
    // A token verified before is the same token (all of it is compared, signature included): its claims
    // are reused until it expires, at most VERIFIED_CACHE_SIZE tokens, oldest out first.
    if (typeof token !== 'string') return undefined;
    const key = cacheKeyOf(token);
    const known = verified.get(key);
    if (known === undefined || known.token !== token) return undefined;
    const now = clock.now().getTime();
    if (now < known.expiresAtMs && now >= known.issuedAtMs - CLOCK_TOLERANCE_MS) return { ...known.claims };
    verified.delete(key);
    return undefined;
  }

  async function verifyAccess(token: string): Promise<AccessClaims> {
    const { payload, ...claims } = await verify(token, 'access');
    // Tokens signed before roles existed (1.0) carry none: they get the least, `member`. Admin
    // operations read the current role from the stores anyway.
    const role = payload.role ?? 'member';
    if (!isRole(role)) throw invalidToken();
    const emailVerified = payload.email_verified ?? false;
    if (typeof emailVerified !== 'boolean') throw invalidToken();
    return { ...claims, role: role as Role, emailVerified };
  }

  return {
    accessTokenTtlSeconds: accessTtl,
    refreshTokenTtlSeconds: refreshTtl,
    newJti,

    async signAccessToken({ userId, tenantId, sessionId, role, emailVerified }) {
      const now = seconds(clock.now());
      const jti = newJti();
      const token =
        access.algorithm === 'HS256'
          ? signHs256(
              { alg: 'HS256', typ: ACCESS_TOKEN_TYP },
              {
                tid: tenantId,
                sid: sessionId,
                role,
                email_verified: emailVerified,
                [TOKEN_TYPE_CLAIM]: 'access',
                sub: userId,
                iss: issuer,
                aud: audience,
                iat: now,
                exp: now + accessTtl,
                jti,
              },
              access.signingKey,
            )
          : await new SignJWT({
              tid: tenantId,
              sid: sessionId,
              role,
              email_verified: emailVerified,
              [TOKEN_TYPE_CLAIM]: 'access',
            })
              .setProtectedHeader(
                access.signingKid === undefined
                  ? { alg: access.algorithm, typ: ACCESS_TOKEN_TYP }
                  : { alg: access.algorithm, typ: ACCESS_TOKEN_TYP, kid: access.signingKid },
              )
              .setSubject(userId)
              .setIssuer(issuer)
              .setAudience(audience)
              .setIssuedAt(now)
              .setExpirationTime(now + accessTtl)
              .setJti(jti)
              .sign(accessCryptoKey(access.signingKey, 'sign'));
      return {
        token,
        claims: {
          userId,
          tenantId,
          sessionId,
          role,
          emailVerified,
          jti,
          issuedAt: new Date(now * 1000),
          expiresAt: new Date((now + accessTtl) * 1000),
        },
      };
    },

    verifiedAccessClaims,

    async verifyAccessToken(token) {
      const known = verifiedAccessClaims(token);
      if (known) return known;
      const claims = await verifyAccess(token);
      verified.set(cacheKeyOf(token), {
        token,
        claims,
        expiresAtMs: claims.expiresAt.getTime(),
        issuedAtMs: claims.issuedAt.getTime(),
      });
      if (verified.size > VERIFIED_CACHE_SIZE) verified.delete(verified.keys().next().value as string);
      return { ...claims };
    },

    async signRefreshToken(fields) {
      // Field order and values are fixed, and HS256 is deterministic: the same fields, the same token.
      return signHs256(
        { alg: 'HS256', typ: REFRESH_TOKEN_TYP },
        {
          tid: fields.tenantId,
          sid: fields.sessionId,
          [TOKEN_TYPE_CLAIM]: 'refresh',
          sub: fields.userId,
          iss: issuer,
          aud: audience,
          iat: seconds(fields.issuedAt),
          exp: seconds(fields.expiresAt),
          jti: fields.jti,
        },
        refreshKey,
      );
    },

    async verifyRefreshToken(token) {
      const { payload: _payload, ...claims } = await verify(token, 'refresh');
      return claims;
    },

    jwks() {
      jwksPromise ??= (async () => {
        if (access.algorithm === 'HS256') return { keys: [] };
        const keys: Record<string, unknown>[] = [];
        for (const [kid, key] of access.verificationKeys) {
          keys.push({ ...(await exportJWK(key)), kid, alg: access.algorithm, use: 'sig' });
        }
        return { keys };
      })();
      return jwksPromise;
    },
  };
}
