import { actingUser } from '../../mechanisms/authorization.js';
import type { EventLog } from '../../mechanisms/events/event-log.js';
import type { ActiveSessionCache } from '../../mechanisms/sessions/active-session-cache.js';
import { REFRESH_TOKEN_TYP, type TokenService } from '../../mechanisms/tokens/token-service.js';
import type { CompleteTenantAuthStores } from '../../ports/tenant-auth-stores.js';
import type { AccessClaims } from '../../vocabulary/claims.js';
import type { Clock } from '../../vocabulary/clock.js';
import { invalidToken, notFound } from '../../vocabulary/errors.js';
import { normalizeUuid } from '../../vocabulary/ids.js';
import { LIST_LIMITS } from '../../vocabulary/list-limits.js';
import type { RequestContext, SessionInfo } from '../../vocabulary/records.js';

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

/** @internal A caller's own sessions: listing, revoking, logging out. */
export function createSessionAccess(deps: {
  stores: CompleteTenantAuthStores;
  tokens: TokenService;
  cache: ActiveSessionCache;
  clock: Clock;
  events: EventLog;
}) {
  const { stores, tokens, cache, clock, events } = deps;
  const { sessions } = stores;

  return {
    /** Revokes the session named by an access or refresh token. */
    async logout(token: string, context: RequestContext = {}): Promise<void> {
      const claims =
        tokenKind(token) === 'refresh'
          ? await tokens.verifyRefreshToken(token)
          : await tokens.verifyAccessToken(token);
      const session = await sessions.findById(claims.tenantId, claims.sessionId);
      if (!session || session.userId !== claims.userId) throw invalidToken();
      const { tenantId, userId, sessionId } = claims;
      await events.transaction(async (tx, record) => {
        if (!(await tx.sessions.revoke(tenantId, sessionId, clock.now(), { userId }))) return;
        const parties = { tenantId, actorId: userId, subjectId: userId, sessionId };
        await record({ type: 'logout', ...events.base(parties, context) });
      });
      cache.forget(sessionId);
    },

    async listSessions(claims: AccessClaims): Promise<SessionInfo[]> {
      const limit = LIST_LIMITS.sessions;
      const active = await sessions.listActiveForUser(claims.tenantId, claims.userId, clock.now(), { limit });
      return active.slice(0, limit).map((s) => ({
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

    async revokeSession(
      claims: AccessClaims,
      rawSessionId: string,
      context: RequestContext = {},
    ): Promise<void> {
      // Revoking is a change to the caller's account: a revoked session's token may not do it.
      await actingUser(stores, claims, clock.now());
      const sessionId = normalizeUuid(rawSessionId);
      if (sessionId === null) throw notFound();
      const session = await sessions.findById(claims.tenantId, sessionId);
      if (!session || session.userId !== claims.userId) throw notFound();
      const { tenantId, userId } = claims;
      await events.transaction(async (tx, record) => {
        if (!(await tx.sessions.revoke(tenantId, sessionId, clock.now(), { userId }))) return;
        const parties = { tenantId, actorId: userId, subjectId: userId, sessionId };
        await record({ type: 'session_revoked', ...events.base(parties, context) });
      });
      cache.forget(sessionId);
    },

    async revokeAllSessions(
      claims: AccessClaims,
      options: { exceptCurrent?: boolean } = {},
      context: RequestContext = {},
    ): Promise<number> {
      await actingUser(stores, claims, clock.now());
      const { tenantId, userId, sessionId } = claims;
      const count = await events.transaction(async (tx, record) => {
        const revoked = await tx.sessions.revokeAllForUser(
          tenantId,
          userId,
          clock.now(),
          options.exceptCurrent ? { exceptSessionId: sessionId } : {},
        );
        const parties = { tenantId, actorId: userId, subjectId: userId, sessionId };
        await record({ type: 'sessions_revoked', count: revoked, ...events.base(parties, context) });
        return revoked;
      });
      cache.forgetAll();
      return count;
    },
  };
}
