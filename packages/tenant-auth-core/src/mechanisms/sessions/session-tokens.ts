import type { SessionRotation } from '../../ports/tenant-auth-stores.js';
import type { AuthMethod, TokenResponse } from '../../vocabulary/claims.js';
import type { Clock, RandomBytes } from '../../vocabulary/clock.js';
import { uuidv7 } from '../../vocabulary/ids.js';
import {
  authenticationOf,
  type RequestContext,
  type SessionRecord,
  type UserRecord,
} from '../../vocabulary/records.js';
import {
  cleanText,
  DEVICE_INFO_MAX_LENGTH,
  describeUserAgent,
  IP_ADDRESS_MAX_LENGTH,
  USER_AGENT_MAX_LENGTH,
} from '../inputs/device-info.js';
import { hashRefreshToken, type RefreshTokenFields, type TokenService } from '../tokens/token-service.js';

const wholeSeconds = (ms: number) => Math.floor(ms / 1000) * 1000;
const secondsBetween = (later: Date, earlier: Date) =>
  Math.max(0, Math.floor((later.getTime() - earlier.getTime()) / 1000));

/**
 * A new refresh token for an existing session at `now` (a reauthentication), and the fields the store sets
 * with it. Nothing is stored.
 */
function rotationFor(tokens: TokenService, nextExpiry: (now: Date, absoluteExpiresAt: Date) => Date) {
  return async (
    session: SessionRecord,
    now: Date,
  ): Promise<{ refreshToken: string; next: SessionRotation }> => {
    const expiresAt = nextExpiry(now, session.absoluteExpiresAt);
    const jti = tokens.newJti();
    const { tenantId, userId, id: sessionId } = session;
    const refreshToken = await tokens.signRefreshToken({
      tenantId,
      userId,
      sessionId,
      jti,
      issuedAt: now,
      expiresAt,
    });
    const next: SessionRotation = {
      refreshHash: hashRefreshToken(refreshToken),
      refreshJti: jti,
      refreshIssuedAt: new Date(wholeSeconds(now.getTime())),
      refreshExpiresAt: expiresAt,
      expiresAt,
      lastUsedAt: now,
      rotatedAt: now,
    };
    return { refreshToken, next };
  };
}

/** The `session` of a token response. */
const sessionPartOf = (session: SessionRecord): TokenResponse['session'] => ({
  id: session.id,
  expiresAt: session.expiresAt,
  amr: [...authenticationOf(session).amr],
  authTime: new Date(wholeSeconds(authenticationOf(session).authTime.getTime())),
});

/** @internal What sessions and their token pairs are made of: expiry arithmetic and the token response. */
export function createSessionTokens(deps: {
  tokens: TokenService;
  clock: Clock;
  random: RandomBytes;
  /** Hard session lifetime from login. */
  absoluteTtlSeconds: number;
}) {
  const { tokens, clock, random, absoluteTtlSeconds } = deps;

  /** The next sliding expiry: never past the absolute expiry; whole seconds, as in the token. */
  function nextExpiry(now: Date, absoluteExpiresAt: Date): Date {
    const sliding = wholeSeconds(now.getTime()) + tokens.refreshTokenTtlSeconds * 1000;
    return new Date(Math.min(sliding, wholeSeconds(absoluteExpiresAt.getTime())));
  }

  const refreshFieldsOf = (s: SessionRecord): RefreshTokenFields => ({
    userId: s.userId,
    tenantId: s.tenantId,
    sessionId: s.id,
    jti: s.refreshJti,
    issuedAt: s.refreshIssuedAt,
    expiresAt: s.refreshExpiresAt,
  });

  return {
    nextExpiry,
    refreshFieldsOf,

    rotationFor: rotationFor(tokens, nextExpiry),

    /**
     * A new session for a user who just proved who they are (with `amr`: how; a password by default),
     * and its refresh token. Nothing is stored.
     */
    async newSession(
      user: UserRecord,
      context: RequestContext,
      deviceInfo: string | undefined,
      amr: readonly AuthMethod[] = ['pwd'],
    ): Promise<{ session: SessionRecord; refreshToken: string }> {
      const now = clock.now();
      const absoluteExpiresAt = new Date(wholeSeconds(now.getTime()) + absoluteTtlSeconds * 1000);
      const expiresAt = nextExpiry(now, absoluteExpiresAt);
      const userAgent = cleanText(context.userAgent, USER_AGENT_MAX_LENGTH);
      const fields: RefreshTokenFields = {
        userId: user.id,
        tenantId: user.tenantId,
        sessionId: uuidv7(clock, random),
        jti: tokens.newJti(),
        issuedAt: now,
        expiresAt,
      };
      const refreshToken = await tokens.signRefreshToken(fields);
      const session: SessionRecord = {
        id: fields.sessionId,
        tenantId: user.tenantId,
        userId: user.id,
        deviceInfo: cleanText(deviceInfo, DEVICE_INFO_MAX_LENGTH) ?? describeUserAgent(userAgent),
        ipAddress: cleanText(context.ipAddress, IP_ADDRESS_MAX_LENGTH),
        userAgent,
        createdAt: now,
        lastUsedAt: now,
        expiresAt,
        absoluteExpiresAt,
        revokedAt: null,
        refreshHash: hashRefreshToken(refreshToken),
        refreshJti: fields.jti,
        refreshIssuedAt: new Date(wholeSeconds(now.getTime())),
        refreshExpiresAt: expiresAt,
        previousRefreshHash: null,
        rotatedAt: null,
        amr: [...amr],
        authTime: new Date(wholeSeconds(now.getTime())),
      };
      return { session, refreshToken };
    },

    /**
     * The token response for a session. A refresh token issued by this call (`fresh`) lives its whole
     * lifetime, measured from its own `iat` (so a second boundary passing while we sign cannot turn
     * 604800 into 604799); a re-issued one what is left of it.
     */
    async respond(
      session: SessionRecord,
      user: Pick<UserRecord, 'email' | 'role' | 'emailVerified'>,
      refreshToken: string,
      fresh: boolean,
    ): Promise<TokenResponse> {
      const { token: accessToken } = await tokens.signAccessToken({
        userId: session.userId,
        tenantId: session.tenantId,
        sessionId: session.id,
        role: user.role,
        emailVerified: user.emailVerified,
        ...authenticationOf(session),
      });
      const from = fresh ? session.refreshIssuedAt : new Date(wholeSeconds(clock.now().getTime()));
      return {
        user: {
          id: session.userId,
          email: user.email,
          tenantId: session.tenantId,
          role: user.role,
          emailVerified: user.emailVerified,
        },
        session: sessionPartOf(session),
        accessToken,
        refreshToken,
        tokenType: 'Bearer',
        expiresIn: tokens.accessTokenTtlSeconds,
        refreshExpiresIn: secondsBetween(session.refreshExpiresAt, from),
      };
    },
  };
}

/** @internal */
export type SessionTokens = ReturnType<typeof createSessionTokens>;
