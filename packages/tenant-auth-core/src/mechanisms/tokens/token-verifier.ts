import type { KeyObject } from 'node:crypto';

import { type JWTPayload, jwtVerify } from 'jose';
import { type AccessClaims, AUTH_METHODS, type AuthMethod } from '../../vocabulary/claims.js';
import { invalidToken } from '../../vocabulary/errors.js';
import { isRole, type Role } from '../../vocabulary/roles.js';
import { verifyHs256 } from './hs256.js';
import {
  ACCESS_TOKEN_TYP,
  type CryptoKey,
  REFRESH_TOKEN_TYP,
  type RefreshClaims,
  seconds,
  TOKEN_TYPE_CLAIM,
  type TokenContext,
} from './token-context.js';

const isAuthMethod = (value: unknown): value is AuthMethod =>
  (AUTH_METHODS as readonly unknown[]).includes(value);

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

/** The claims both token kinds carry, checked for their types, and the payload they came from. */
function claimsOf(payload: JWTPayload, kind: 'access' | 'refresh'): RefreshClaims & { payload: JWTPayload } {
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

/**
 * @internal The verifying half of `createTokenService`: `verifyAccessToken` (with its cache of verified
 * tokens), `verifiedAccessClaims` and `verifyRefreshToken`.
 */
export function createTokenVerifier(context: TokenContext) {
  const { issuer, audience, clock, access, refreshKey, accessCryptoKey } = context;
  const verified = new Map<string, VerifiedToken>();

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

  /** See `TokenService.verifiedAccessClaims`. */
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
    // Tokens signed before 1.2 carry neither: a password session, authenticated at no recent time.
    const amr = payload.amr ?? ['pwd'];
    if (!Array.isArray(amr) || !amr.every(isAuthMethod)) throw invalidToken();
    const authTime = payload.auth_time ?? 0;
    if (typeof authTime !== 'number' || !Number.isSafeInteger(authTime)) throw invalidToken();
    return {
      ...claims,
      role: role as Role,
      emailVerified,
      amr: Object.freeze([...amr]),
      authTime: new Date(authTime * 1000),
    };
  }

  return {
    verifiedAccessClaims,

    async verifyAccessToken(token: string): Promise<AccessClaims> {
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

    async verifyRefreshToken(token: string): Promise<RefreshClaims> {
      const { payload: _payload, ...claims } = await verify(token, 'refresh');
      return claims;
    },
  };
}
