import { createHash, type KeyObject } from 'node:crypto';
import { exportJWK, type JWTPayload, jwtVerify, SignJWT } from 'jose';
import type { AccessClaims } from '../api-types.js';
import { type Clock, type RandomBytes, systemClock, systemRandom } from '../clock.js';
import {
  type AccessTokenKeyOptions,
  type ImportedAccessKeys,
  importAccessKeys,
  importSecret,
  invalidToken,
} from './keys.js';

/** Header `typ` of access tokens (RFC 9068). */
export const ACCESS_TOKEN_TYP = 'at+jwt';
/** Header `typ` of refresh tokens; differs from the access one so neither passes for the other. */
export const REFRESH_TOKEN_TYP = 'refresh+jwt';

export interface TokenServiceOptions {
  /** `iss` of every token, e.g. `'https://auth.example.com'`. */
  issuer: string;
  /** `aud` of every token. */
  audience: string;
  /** Access-token signing: `{ secret }` (HS256, at least 32 bytes) or EdDSA/ES256 key pairs. */
  accessToken: AccessTokenKeyOptions;
  /** HS256 secret for refresh tokens, at least 32 bytes, different from the access secret. */
  refreshSecret: string | Uint8Array;
  /** Access token lifetime, default 900 s (15 min). */
  accessTokenTtlSeconds?: number;
  /** Refresh token lifetime, default 604800 s (7 days). */
  refreshTokenTtlSeconds?: number;
  clock?: Clock;
  random?: RandomBytes;
}

/** Claims of a verified refresh token: the same fields as an access token's. */
export type RefreshClaims = AccessClaims;

/** The fields a refresh token is signed from; re-signing the same fields gives the identical token. */
export type RefreshTokenFields = RefreshClaims;

export interface TokenService {
  readonly accessTokenTtlSeconds: number;
  readonly refreshTokenTtlSeconds: number;
  signAccessToken(input: {
    userId: string;
    tenantId: string;
    sessionId: string;
  }): Promise<{ token: string; claims: AccessClaims }>;
  verifyAccessToken(token: string): Promise<AccessClaims>;
  /** Deterministic: the same fields always give the same token (HS256). */
  signRefreshToken(fields: RefreshTokenFields): Promise<string>;
  verifyRefreshToken(token: string): Promise<RefreshClaims>;
  /** A fresh random `jti`. */
  newJti(): string;
  /** Public keys of the access-token signer as a JWKS (`{ keys: [] }` for HS256). */
  jwks(): Promise<{ keys: Record<string, unknown>[] }>;
}

/**
 * SHA-256 (hex) of a refresh token: the only form in which one is stored.
 *
 * @example const hash = hashRefreshToken(refreshToken);
 */
export function hashRefreshToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

const TOKEN_TYPE_CLAIM = 'token_type';
const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

/**
 * Signs and verifies access and refresh tokens with jose. Keys are imported once, here.
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
  const clock = options.clock ?? systemClock;
  const random = options.random ?? systemRandom;
  const accessTtl = options.accessTokenTtlSeconds ?? 900;
  const refreshTtl = options.refreshTokenTtlSeconds ?? 604_800;
  if (!options.issuer || !options.audience) throw new TypeError('issuer and audience are required');
  for (const [name, v] of [
    ['accessTokenTtlSeconds', accessTtl],
    ['refreshTokenTtlSeconds', refreshTtl],
  ] as const) {
    if (!Number.isInteger(v) || v <= 0) throw new TypeError(`${name} must be a positive integer`);
  }
  const access: ImportedAccessKeys = importAccessKeys(options.accessToken);
  const refreshKey: KeyObject = importSecret(options.refreshSecret, 'the refresh token secret');
  if (access.algorithm === 'HS256' && access.signingKey.equals(refreshKey)) {
    throw new TypeError('the refresh token secret must differ from the access token secret');
  }
  const { issuer, audience } = options;
  let jwksPromise: Promise<{ keys: Record<string, unknown>[] }> | undefined;

  const newJti = () => Buffer.from(random(16)).toString('base64url');

  const getAccessKey = (header: { kid?: string | undefined }): KeyObject => {
    if (access.algorithm === 'HS256') return access.signingKey;
    const kid =
      header.kid ?? (access.verificationKeys.size === 1 ? [...access.verificationKeys.keys()][0] : undefined);
    const key = kid === undefined ? undefined : access.verificationKeys.get(kid);
    if (!key) throw invalidToken();
    return key;
  };

  async function verify(token: string, kind: 'access' | 'refresh') {
    if (typeof token !== 'string' || token.length === 0 || token.length > 8192) throw invalidToken();
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, kind === 'access' ? getAccessKey : () => refreshKey, {
        algorithms: [kind === 'access' ? access.algorithm : 'HS256'],
        typ: kind === 'access' ? ACCESS_TOKEN_TYP : REFRESH_TOKEN_TYP,
        issuer,
        audience,
        currentDate: clock.now(),
        requiredClaims: ['sub', 'jti', 'iat', 'exp', 'tid', 'sid', TOKEN_TYPE_CLAIM],
      }));
    } catch (err) {
      throw invalidToken(err);
    }
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
    };
  }

  return {
    accessTokenTtlSeconds: accessTtl,
    refreshTokenTtlSeconds: refreshTtl,
    newJti,

    async signAccessToken({ userId, tenantId, sessionId }) {
      const now = seconds(clock.now());
      const jti = newJti();
      const token = await new SignJWT({ tid: tenantId, sid: sessionId, [TOKEN_TYPE_CLAIM]: 'access' })
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
        .sign(access.signingKey);
      return {
        token,
        claims: {
          userId,
          tenantId,
          sessionId,
          jti,
          issuedAt: new Date(now * 1000),
          expiresAt: new Date((now + accessTtl) * 1000),
        },
      };
    },

    verifyAccessToken: (token) => verify(token, 'access'),

    signRefreshToken(fields) {
      // Field order and values are fixed, and HS256 is deterministic: the same fields, the same token.
      return new SignJWT({ tid: fields.tenantId, sid: fields.sessionId, [TOKEN_TYPE_CLAIM]: 'refresh' })
        .setProtectedHeader({ alg: 'HS256', typ: REFRESH_TOKEN_TYP })
        .setSubject(fields.userId)
        .setIssuer(issuer)
        .setAudience(audience)
        .setIssuedAt(seconds(fields.issuedAt))
        .setExpirationTime(seconds(fields.expiresAt))
        .setJti(fields.jti)
        .sign(refreshKey);
    },

    verifyRefreshToken: (token) => verify(token, 'refresh'),

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
