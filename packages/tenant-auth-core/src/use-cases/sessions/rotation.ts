import { isActive } from '../../mechanisms/deactivation.js';
import { auditRecordOf, type EventLog } from '../../mechanisms/events/event-log.js';
import type { ActiveSessionCache } from '../../mechanisms/sessions/active-session-cache.js';
import type { SessionTokens } from '../../mechanisms/sessions/session-tokens.js';
import {
  hashRefreshToken,
  type RefreshClaims,
  type TokenService,
} from '../../mechanisms/tokens/token-service.js';
import type { CompleteTenantAuthStores, SessionRotation } from '../../ports/tenant-auth-stores.js';
import type { TokenResponse } from '../../vocabulary/claims.js';
import type { Clock } from '../../vocabulary/clock.js';
import { invalidToken } from '../../vocabulary/errors.js';
import type { RequestContext, SessionRecord, UserRecord } from '../../vocabulary/records.js';

/** Later than any absolute expiry: the sliding expiry alone. */
const FAR_FUTURE = new Date(8.64e15);

/** What a rotation works with. */
interface RotationDeps {
  stores: CompleteTenantAuthStores;
  tokens: TokenService;
  sessionTokens: SessionTokens;
  cache: ActiveSessionCache;
  clock: Clock;
  events: EventLog;
  reuseGraceSeconds: number;
}

/**
 * What a refresh token that is not (or no longer) the session's current one gets: the identical child
 * within the grace period, or the session revoked as a replay.
 */
function createReuseAnswers(deps: RotationDeps, invalid: (context: RequestContext) => never) {
  const { stores, tokens, sessionTokens, cache, clock, events } = deps;
  const graceMs = deps.reuseGraceSeconds * 1000;

  const parties = (s: SessionRecord) => ({
    tenantId: s.tenantId,
    actorId: s.userId,
    subjectId: s.userId,
    sessionId: s.id,
  });

  async function revokeForReplay(session: SessionRecord, context: RequestContext): Promise<never> {
    await events.transaction(async (tx, record) => {
      if (!(await tx.sessions.revoke(session.tenantId, session.id, clock.now()))) return;
      await record({ type: 'replay_detected', ...events.base(parties(session), context) });
    });
    cache.forget(session.id);
    throw invalidToken();
  }

  /** Within grace: hand out the child the winner got, re-signed identically from the stored fields. */
  async function reissueCurrent(
    session: SessionRecord,
    user: UserRecord,
    context: RequestContext,
  ): Promise<TokenResponse> {
    const child = await tokens.signRefreshToken(sessionTokens.refreshFieldsOf(session));
    // The stored hash no longer matches when the refresh secret changed since: nothing to re-issue.
    if (hashRefreshToken(child) !== session.refreshHash) invalid(context);
    // Read again: a logout or reset that committed since the first read must not get a fresh token out.
    const now = await stores.sessions.findById(session.tenantId, session.id);
    if (!now || now.revokedAt !== null || now.refreshHash !== session.refreshHash) invalid(context);
    await events.record({ type: 'refresh_reissued', ...events.base(parties(session), context) });
    return sessionTokens.respond(session, user, child, false);
  }

  const withinGrace = (session: SessionRecord, now: Date) =>
    graceMs > 0 && session.rotatedAt !== null && now.getTime() - session.rotatedAt.getTime() <= graceMs;

  return { revokeForReplay, reissueCurrent, withinGrace };
}

/**
 * The rotation of a session's current token: what it takes (`nextRotation`), the answer to its winner
 * (`respondRotated`), and the whole of it in one round trip where the store can (`rotateInOneStep`).
 */
function createRotationStep(deps: RotationDeps, invalid: (context: RequestContext) => never) {
  const { stores, tokens, sessionTokens, events } = deps;
  const refreshTtlMs = tokens.refreshTokenTtlSeconds * 1000;

  /**
   * What rotating `of`'s session at `now` to a token that expires at `expiresAt` takes: the new token, the
   * fields the store sets, the audit event that goes in with them. Nothing is stored.
   */
  async function nextRotation(
    of: { tenantId: string; userId: string; sessionId: string },
    now: Date,
    expiresAt: Date,
    context: RequestContext,
  ) {
    const jti = tokens.newJti();
    const child = await tokens.signRefreshToken({ ...of, jti, issuedAt: now, expiresAt });
    const next: SessionRotation = {
      refreshHash: hashRefreshToken(child),
      refreshJti: jti,
      refreshIssuedAt: new Date(Math.floor(now.getTime() / 1000) * 1000),
      refreshExpiresAt: expiresAt,
      expiresAt,
      lastUsedAt: now,
      rotatedAt: now,
    };
    const { tenantId, userId, sessionId } = of;
    const event = {
      type: 'refreshed',
      ...events.base({ tenantId, actorId: userId, subjectId: userId, sessionId }, context),
    } as const;
    return { child, next, event };
  }

  /** The answer to the winner of a rotation: the session as `next` left it, a new access token. */
  const respondRotated = (session: SessionRecord, user: UserRecord, child: string, next: SessionRotation) =>
    sessionTokens.respond(
      {
        ...session,
        expiresAt: next.expiresAt,
        refreshExpiresAt: next.refreshExpiresAt,
        refreshIssuedAt: next.refreshIssuedAt,
      },
      user,
      child,
      true,
    );

  /**
   * The common refresh in one round trip, on a store with `rotateCurrent`: the presented token is the
   * session's current one and the session is far enough from its absolute expiry for the new token to
   * slide its whole lifetime (the store checks both, with the rest). Undefined when the store has no such
   * method or did not rotate: the caller then reads the session and decides, as without it.
   */
  async function rotateInOneStep(
    claims: RefreshClaims,
    hash: string,
    now: Date,
    context: RequestContext,
  ): Promise<TokenResponse | undefined> {
    const { sessions } = stores;
    if (!sessions.rotateCurrent) return undefined;
    // A token cut short by the absolute expiry says the session is near its end: the next one is cut short
    // too, which only the session's stored expiry can say (the two-step path reads it).
    if (claims.expiresAt.getTime() - claims.issuedAt.getTime() < refreshTtlMs) return undefined;
    const { tenantId, userId, sessionId } = claims;
    const expiresAt = sessionTokens.nextExpiry(now, FAR_FUTURE);
    const { child, next, event } = await nextRotation(
      { tenantId, userId, sessionId },
      now,
      expiresAt,
      context,
    );
    const rotated = await sessions.rotateCurrent(
      tenantId,
      { sessionId, userId, refreshHash: hash, activeAt: now },
      next,
      auditRecordOf(event),
    );
    if (!rotated) return undefined;
    const { session, user } = rotated;
    // The new access token carries what the store returned: it must be this session's, and its user's, and
    // the session what the store promised to rotate (active, its absolute expiry not passed).
    if (
      session.id !== sessionId ||
      session.tenantId !== tenantId ||
      session.userId !== userId ||
      session.revokedAt !== null ||
      session.absoluteExpiresAt < expiresAt ||
      user.id !== session.userId ||
      user.tenantId !== session.tenantId ||
      !isActive(user)
    ) {
      invalid(context);
    }
    events.emit(event);
    return respondRotated(session, user, child, next);
  }

  return { nextRotation, respondRotated, rotateInOneStep };
}

/**
 * @internal Refresh-token rotation with replay detection (ARCHITECTURE.md, "Refresh rotation"):
 * the current token rotates by compare-and-set, one winner; the previous token within the grace period
 * (or a lost race) gets the identical child, re-signed from what the session stored; any other token of
 * the session is a replay and revokes it.
 */
export function createRotation(deps: RotationDeps) {
  const { stores, tokens, sessionTokens, clock, events } = deps;
  function invalid(context: RequestContext): never {
    events.emit({ type: 'refresh_failed', ...events.unattributed(context) });
    throw invalidToken();
  }
  const { revokeForReplay, reissueCurrent, withinGrace } = createReuseAnswers(deps, invalid);
  const { nextRotation, respondRotated, rotateInOneStep } = createRotationStep(deps, invalid);

  return async function refresh(refreshToken: string, context: RequestContext = {}): Promise<TokenResponse> {
    const claims = await tokens.verifyRefreshToken(refreshToken).catch(() => invalid(context));
    const hash = hashRefreshToken(refreshToken);
    const now = clock.now();
    const inOneStep = await rotateInOneStep(claims, hash, now, context);
    if (inOneStep) return inOneStep;
    // The session and its user in one read: the user's role and email go into the new access token.
    const found = await stores.sessions.findByRefreshHash(claims.tenantId, hash);
    if (!found) {
      const named = await stores.sessions.findById(claims.tenantId, claims.sessionId);
      // A token we signed for this session that is neither current nor previous: an older ancestor.
      if (named && named.userId === claims.userId && named.revokedAt === null) {
        await revokeForReplay(named, context);
      }
      invalid(context);
    }
    let session: SessionRecord | null = found.session;
    const { user } = found;
    if (session.id !== claims.sessionId || session.userId !== claims.userId) invalid(context);
    if (session.revokedAt !== null || session.expiresAt <= now) invalid(context);
    // The user goes into the new access token: it must be the session's own, in the session's tenant,
    // whatever the store returned.
    // A deactivated user's refresh tokens are refused (docs/http-api.md, "Errors added in 1.3").
    if (!user || user.id !== session.userId || user.tenantId !== session.tenantId || !isActive(user))
      invalid(context);

    if (session.refreshHash === hash) {
      const expiresAt = sessionTokens.nextExpiry(now, session.absoluteExpiresAt);
      const { tenantId, userId, id: sessionId } = session;
      const { child, next, event } = await nextRotation(
        { tenantId, userId, sessionId },
        now,
        expiresAt,
        context,
      );
      // The audit record goes in with the rotation, atomically, if and only if this caller wins.
      const won = await stores.sessions.rotate(tenantId, sessionId, hash, next, auditRecordOf(event));
      if (won) {
        events.emit(event);
        return respondRotated(session, user, child, next);
      }
      // Lost the race: somebody rotated this very token a moment ago. Read what they stored.
      session = await stores.sessions.findById(session.tenantId, session.id);
      if (!session || session.revokedAt !== null) invalid(context);
    }

    if (session.previousRefreshHash === hash && withinGrace(session, now)) {
      return reissueCurrent(session, user, context);
    }
    return revokeForReplay(session, context);
  };
}
