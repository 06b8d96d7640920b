import { SignJWT } from 'jose';
import type { AccessClaims } from '../../vocabulary/claims.js';
import { signHs256 } from './hs256.js';
import {
  ACCESS_TOKEN_TYP,
  type AccessTokenInput,
  REFRESH_TOKEN_TYP,
  type RefreshTokenFields,
  seconds,
  TOKEN_TYPE_CLAIM,
  type TokenContext,
} from './token-context.js';

/**
 * @internal The signing half of `createTokenService`: `signAccessToken` (a fresh `jti` from `newJti`,
 * valid for `accessTtl` seconds) and `signRefreshToken`.
 */
export function createTokenSigner(context: TokenContext, newJti: () => string, accessTtl: number) {
  const { issuer, audience, clock, access, refreshKey, accessCryptoKey } = context;

  return {
    async signAccessToken({
      userId,
      tenantId,
      sessionId,
      role,
      emailVerified,
      amr,
      authTime,
    }: AccessTokenInput): Promise<{ token: string; claims: AccessClaims }> {
      const now = seconds(clock.now());
      const methods = [...amr];
      const authSeconds = seconds(authTime);
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
                amr: methods,
                auth_time: authSeconds,
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
              amr: methods,
              auth_time: authSeconds,
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
          amr: methods,
          authTime: new Date(authSeconds * 1000),
          jti,
          issuedAt: new Date(now * 1000),
          expiresAt: new Date((now + accessTtl) * 1000),
        },
      };
    },

    async signRefreshToken(fields: RefreshTokenFields): Promise<string> {
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
  };
}
