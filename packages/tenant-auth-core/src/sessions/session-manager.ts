import type { AccessClaims, AuthResult } from '../api-types.js';
import { type Clock, type RandomBytes, uuidv7 } from '../clock.js';
import {
  cleanText,
  DEVICE_INFO_MAX_LENGTH,
  describeUserAgent,
  IP_ADDRESS_MAX_LENGTH,
  USER_AGENT_MAX_LENGTH,
} from '../device-info.js';
import { TenantAuthError } from '../errors.js';
import type { SessionStore } from '../stores/types.js';
import { invalidToken } from '../tokens/keys.js';
import { hashRefreshToken, REFRESH_TOKEN_TYP, type TokenService } from '../tokens/token-service.js';
import type { RequestContext, Session, SessionInfo, User } from '../types.js';
import type { AuthEvent } from './events.js';

export interface SessionManagerOptions {
  sessionStore: SessionStore;
  tokens: TokenService;
  clock: Clock;
  random: RandomBytes;
  emit: (event: AuthEvent) => void;
  /** Hard session lifetime from login. */
  absoluteTtlSeconds: number;
  /** Refresh race grace period; 0 turns it off. */
  reuseGraceSeconds: number;
  /** How long revoked sessions are kept for audit before cleanup deletes them. */
  revokedRetentionSeconds: number;
  cleanupBatchSize: number;
  /** Per-request session check for access tokens; off when undefined. */
  sessionCheck?: { cacheTtlMs: number; cacheSize: number } | undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** @internal Ids come from URLs; anything that is not a UUID cannot name a row. */
export const isUuid = (value: string): boolean => UUID.test(value);

const notFound = () => new TenantAuthError('not_found', 'Not found.');
const secondsBetween = (later: Date, earlier: Date) =>
  Math.max(0, Math.floor((later.getTime() - earlier.getTime()) / 1000));

/** @internal Sessions, refresh rotation with replay detection, logout, listing and cleanup. */
export function createSessionManager(options: SessionManagerOptions) {
  const { sessionStore, tokens, clock, random, emit } = options;
  const graceMs = options.reuseGraceSeconds * 1000;
  const activeCache = new Map<string, { active: boolean; until: number }>();

  async function respond(
    session: Session,
    user: { id: string; email: string },
    refreshToken: string,
    fresh: boolean,
  ): Promise<AuthResult> {
    const { token: accessToken } = await tokens.signAccessToken({
      userId: session.userId,
      tenantId: session.tenantId,
      sessionId: session.id,
    });
    // A token issued by this call lives its whole lifetime (measured from its own iat, so a second
    // boundary passing while we sign cannot turn 604800 into 604799); a re-issued one what is left of it.
    const from = fresh ? session.refreshIssuedAt : new Date(Math.floor(clock.now().getTime() / 1000) * 1000);
    return {
      user: { id: session.userId, email: user.email, tenantId: session.tenantId },
      session: { id: session.id, expiresAt: session.expiresAt },
      accessToken,
      refreshToken,
      tokenType: 'Bearer',
      expiresIn: tokens.accessTokenTtlSeconds,
      refreshExpiresIn: secondsBetween(session.refreshExpiresAt, from),
    };
  }

  const refreshFieldsOf = (s: Session) => ({
    userId: s.userId,
    tenantId: s.tenantId,
    sessionId: s.id,
    jti: s.refreshJti,
    issuedAt: s.refreshIssuedAt,
    expiresAt: s.refreshExpiresAt,
  });

  /** Never past the absolute expiry; whole seconds, as in the token. */
  function nextExpiry(now: Date, absoluteExpiresAt: Date): Date {
    const sliding = Math.floor(now.getTime() / 1000) * 1000 + tokens.refreshTokenTtlSeconds * 1000;
    return new Date(Math.min(sliding, Math.floor(absoluteExpiresAt.getTime() / 1000) * 1000));
  }

  async function revokeForReplay(session: Session, context: RequestContext): Promise<never> {
    await sessionStore.revoke(session.tenantId, session.id, clock.now());
    activeCache.delete(session.id);
    emit({
      type: 'replay_detected',
      userId: session.userId,
      tenantId: session.tenantId,
      sessionId: session.id,
      ipAddress: context.ipAddress ?? null,
    });
    throw invalidToken();
  }

  /** Within grace: hand out the child the winner got, re-signed identically from the stored fields. */
  async function reissueCurrent(
    session: Session,
    user: { email: string },
    context: RequestContext,
  ): Promise<AuthResult> {
    const child = await tokens.signRefreshToken(refreshFieldsOf(session));
    if (hashRefreshToken(child) !== session.refreshHash) throw invalidToken(); // e.g. the refresh secret changed
    emit({
      type: 'refresh_reissued',
      userId: session.userId,
      tenantId: session.tenantId,
      sessionId: session.id,
      ipAddress: context.ipAddress ?? null,
    });
    return respond(session, { id: session.userId, email: user.email }, child, false);
  }

  const withinGrace = (session: Session, now: Date) =>
    graceMs > 0 && session.rotatedAt !== null && now.getTime() - session.rotatedAt.getTime() <= graceMs;

  return {
    /** Creates a session for a user who just proved who they are, and its token pair. */
    async start(user: User, context: RequestContext, deviceInfo?: string): Promise<AuthResult> {
      const now = clock.now();
      const absoluteExpiresAt = new Date(
        Math.floor(now.getTime() / 1000) * 1000 + options.absoluteTtlSeconds * 1000,
      );
      const expiresAt = nextExpiry(now, absoluteExpiresAt);
      const userAgent = cleanText(context.userAgent, USER_AGENT_MAX_LENGTH);
      const fields = {
        userId: user.id,
        tenantId: user.tenantId,
        sessionId: uuidv7(clock, random),
        jti: tokens.newJti(),
        issuedAt: now,
        expiresAt,
      };
      const refreshToken = await tokens.signRefreshToken(fields);
      const session = await sessionStore.create({
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
        refreshIssuedAt: new Date(Math.floor(now.getTime() / 1000) * 1000),
        refreshExpiresAt: expiresAt,
        previousRefreshHash: null,
        rotatedAt: null,
      });
      return respond(session, user, refreshToken, true);
    },

    /**
     * Rotation. Current token: compare-and-set, one winner. The previous token within the grace period
     * (or a lost race): the identical child. Any other token of the session: replay, revoke.
     */
    async refresh(
      refreshToken: string,
      context: RequestContext,
      loadUser: (tenantId: string, userId: string) => Promise<User | null>,
    ): Promise<AuthResult> {
      const claims = await tokens.verifyRefreshToken(refreshToken);
      const hash = hashRefreshToken(refreshToken);
      const now = clock.now();
      let session = await sessionStore.findByRefreshHash(claims.tenantId, hash);
      if (!session) {
        const named = await sessionStore.findById(claims.tenantId, claims.sessionId);
        // A token we signed for this session that is neither current nor previous: an older ancestor.
        if (named && named.userId === claims.userId && named.revokedAt === null)
          await revokeForReplay(named, context);
        throw invalidToken();
      }
      if (session.id !== claims.sessionId || session.userId !== claims.userId) throw invalidToken();
      if (session.revokedAt !== null || session.expiresAt <= now) throw invalidToken();
      const user = await loadUser(session.tenantId, session.userId);
      if (!user) throw invalidToken();

      if (session.refreshHash === hash) {
        const expiresAt = nextExpiry(now, session.absoluteExpiresAt);
        const fields = { ...refreshFieldsOf(session), jti: tokens.newJti(), issuedAt: now, expiresAt };
        const child = await tokens.signRefreshToken(fields);
        const refreshIssuedAt = new Date(Math.floor(now.getTime() / 1000) * 1000);
        const won = await sessionStore.rotate(session.tenantId, session.id, hash, {
          refreshHash: hashRefreshToken(child),
          refreshJti: fields.jti,
          refreshIssuedAt,
          refreshExpiresAt: expiresAt,
          expiresAt,
          lastUsedAt: now,
          rotatedAt: now,
        });
        if (won) {
          emit({
            type: 'refreshed',
            userId: session.userId,
            tenantId: session.tenantId,
            sessionId: session.id,
            ipAddress: context.ipAddress ?? null,
          });
          return respond(
            { ...session, expiresAt, refreshExpiresAt: expiresAt, refreshIssuedAt },
            user,
            child,
            true,
          );
        }
        // Lost the race: somebody rotated this very token a moment ago. Read what they stored.
        session = await sessionStore.findById(session.tenantId, session.id);
        if (!session || session.revokedAt !== null) throw invalidToken();
      }

      if (session.previousRefreshHash === hash && withinGrace(session, now)) {
        return reissueCurrent(session, user, context);
      }
      return revokeForReplay(session, context);
    },

    /** Revokes the session named by an access or refresh token. */
    async logout(
      token: string,
      context: RequestContext = {},
    ): Promise<{ userId: string; tenantId: string; sessionId: string }> {
      const claims =
        tokenKind(token) === 'refresh'
          ? await tokens.verifyRefreshToken(token)
          : await tokens.verifyAccessToken(token);
      const session = await sessionStore.findById(claims.tenantId, claims.sessionId);
      if (!session || session.userId !== claims.userId) throw invalidToken();
      await sessionStore.revoke(claims.tenantId, claims.sessionId, clock.now(), { userId: claims.userId });
      activeCache.delete(claims.sessionId);
      emit({
        type: 'logout',
        userId: claims.userId,
        tenantId: claims.tenantId,
        sessionId: claims.sessionId,
        ipAddress: context.ipAddress ?? null,
      });
      return claims;
    },

    async list(claims: AccessClaims): Promise<SessionInfo[]> {
      const sessions = await sessionStore.listActiveForUser(claims.tenantId, claims.userId, clock.now());
      return sessions.map((s) => ({
        id: s.id,
        deviceInfo: s.deviceInfo,
        ipAddress: s.ipAddress,
        userAgent: s.userAgent,
        createdAt: s.createdAt,
        lastUsedAt: s.lastUsedAt,
        expiresAt: s.expiresAt,
        current: s.id === claims.sessionId,
      }));
    },

    async revokeOne(claims: AccessClaims, sessionId: string): Promise<void> {
      if (typeof sessionId !== 'string' || !isUuid(sessionId)) throw notFound();
      const session = await sessionStore.findById(claims.tenantId, sessionId);
      if (!session || session.userId !== claims.userId) throw notFound();
      await sessionStore.revoke(claims.tenantId, sessionId, clock.now(), { userId: claims.userId });
      activeCache.delete(sessionId);
      emit({ type: 'session_revoked', userId: claims.userId, tenantId: claims.tenantId, sessionId });
    },

    async revokeAll(claims: AccessClaims, revokeOptions: { exceptCurrent?: boolean } = {}): Promise<number> {
      const count = await sessionStore.revokeAllForUser(
        claims.tenantId,
        claims.userId,
        clock.now(),
        revokeOptions.exceptCurrent ? { exceptSessionId: claims.sessionId } : {},
      );
      activeCache.clear();
      emit({
        type: 'sessions_revoked',
        userId: claims.userId,
        tenantId: claims.tenantId,
        sessionId: claims.sessionId,
        count,
      });
      return count;
    },

    /** Whether an access token's session is still active, with a short bounded cache. */
    async assertActive(claims: AccessClaims): Promise<void> {
      const check = options.sessionCheck;
      if (!check) return;
      const nowMs = clock.now().getTime();
      const cached = activeCache.get(claims.sessionId);
      let active: boolean;
      if (cached && cached.until > nowMs) {
        active = cached.active;
      } else {
        const s = await sessionStore.findById(claims.tenantId, claims.sessionId);
        active = !!s && s.userId === claims.userId && s.revokedAt === null && s.expiresAt.getTime() > nowMs;
        if (activeCache.size >= check.cacheSize) {
          const oldest = activeCache.keys().next();
          if (!oldest.done) activeCache.delete(oldest.value);
        }
        activeCache.set(claims.sessionId, { active, until: nowMs + check.cacheTtlMs });
      }
      if (!active) throw invalidToken();
    },

    /** Deletes expired sessions and revoked ones past retention, batch by batch. */
    async cleanup(): Promise<number> {
      const now = clock.now();
      const revokedBefore = new Date(now.getTime() - options.revokedRetentionSeconds * 1000);
      let total = 0;
      for (;;) {
        const deleted = await sessionStore.deleteExpired({
          expiredBefore: now,
          revokedBefore,
          batchSize: options.cleanupBatchSize,
        });
        total += deleted;
        if (deleted < options.cleanupBatchSize) return total;
      }
    },
  };
}

export type SessionManager = ReturnType<typeof createSessionManager>;

/** @internal Which verifier a token is meant for, from its (unverified) header; verification decides. */
function tokenKind(token: string): 'access' | 'refresh' {
  try {
    const header = JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString('utf8')) as {
      typ?: unknown;
    };
    return header.typ === REFRESH_TOKEN_TYP ? 'refresh' : 'access';
  } catch {
    return 'access';
  }
}
