import type { CompleteTransactionStores, SessionRotation } from '../ports/tenant-auth-stores.js';
import { domainOf } from '../vocabulary/email-domain.js';
import { type AuditEventRecord, authenticationOf, type SessionRecord } from '../vocabulary/records.js';
import { webhookDeliveryIdOf, webhookPayloadOf } from '../vocabulary/webhook-payload.js';
import type { MemoryState } from './memory-database.js';
import { checkBatchSize, copy, copyOrNull, type Run } from './memory-run.js';
import { queueIn } from './memory-webhooks.js';

function sessionOf(s: MemoryState, tenantId: string, sessionId: string): SessionRecord | undefined {
  const session = s.sessions.get(sessionId);
  return session?.tenantId === tenantId ? session : undefined;
}

/** Rotates `session` to `next` (its current hash becomes the previous one), with `event` if given. */
function rotateIn(
  s: MemoryState,
  session: SessionRecord,
  next: SessionRotation,
  event?: AuditEventRecord,
): SessionRecord {
  if (event) {
    if (s.auditEvents.has(event.id)) throw new TypeError('duplicate audit event id');
    s.auditEvents.set(event.id, copy(event));
    // Its webhook deliveries go in with it, as the event log queues those of the events it appends.
    queueIn(s, event, webhookPayloadOf(event), (endpointId) => webhookDeliveryIdOf(event.id, endpointId));
  }
  if (session.previousRefreshHash !== null) s.sessionIdByRefreshHash.delete(session.previousRefreshHash);
  const rotated = { ...session, ...copy(next), previousRefreshHash: session.refreshHash };
  s.sessions.set(session.id, rotated);
  s.sessionIdByRefreshHash.set(next.refreshHash, session.id);
  return rotated;
}

/** @internal */
export function memorySessionStore(run: Run): CompleteTransactionStores['sessions'] {
  return {
    create: (session) =>
      run((s) => {
        if (s.sessions.has(session.id)) throw new TypeError('duplicate session id');
        if (!s.users.has(session.userId)) throw new TypeError('the user of the session does not exist');
        s.sessions.set(session.id, copy(session));
        s.sessionIdByRefreshHash.set(session.refreshHash, session.id);
      }),
    findById: (tenantId, sessionId) => run((s) => copyOrNull(sessionOf(s, tenantId, sessionId))),
    findByRefreshHash: (tenantId, refreshHash) =>
      run((s) => {
        const id = s.sessionIdByRefreshHash.get(refreshHash);
        const session = id === undefined ? undefined : sessionOf(s, tenantId, id);
        const matches =
          session && (session.refreshHash === refreshHash || session.previousRefreshHash === refreshHash);
        if (!matches) return null;
        const user = s.users.get(session.userId);
        return { session: copy(session), user: user?.tenantId === tenantId ? copy(user) : null };
      }),
    rotate: (tenantId, sessionId, expectedRefreshHash, next: SessionRotation, event) =>
      run((s) => {
        const session = sessionOf(s, tenantId, sessionId);
        if (!session || session.revokedAt !== null || session.refreshHash !== expectedRefreshHash)
          return false;
        rotateIn(s, session, next, event);
        return true;
      }),
    rotateCurrent: (tenantId, expected, next, event) =>
      run((s) => {
        const session = sessionOf(s, tenantId, expected.sessionId);
        const user = session && s.users.get(session.userId);
        if (
          !session ||
          session.userId !== expected.userId ||
          session.revokedAt !== null ||
          session.refreshHash !== expected.refreshHash ||
          session.expiresAt <= expected.activeAt ||
          session.absoluteExpiresAt < next.expiresAt ||
          user?.tenantId !== tenantId
        ) {
          return null;
        }
        return { session: copy(rotateIn(s, session, next, event)), user: copy(user) };
      }),
    revoke: (tenantId, sessionId, at, options = {}) =>
      run((s) => {
        const session = sessionOf(s, tenantId, sessionId);
        if (!session || session.revokedAt !== null) return false;
        if (options.userId !== undefined && session.userId !== options.userId) return false;
        s.sessions.set(sessionId, { ...session, revokedAt: new Date(at) });
        return true;
      }),
    revokeAllForUser: (tenantId, userId, at, options = {}) =>
      run((s) => {
        let count = 0;
        for (const session of [...s.sessions.values()]) {
          if (
            session.tenantId === tenantId &&
            session.userId === userId &&
            session.revokedAt === null &&
            session.id !== options.exceptSessionId
          ) {
            s.sessions.set(session.id, { ...session, revokedAt: new Date(at) });
            count++;
          }
        }
        return count;
      }),
    reauthenticate: (tenantId, sessionId, userId, next, event) =>
      run((s) => {
        const session = sessionOf(s, tenantId, sessionId);
        if (
          !session ||
          session.userId !== userId ||
          session.revokedAt !== null ||
          session.expiresAt <= next.lastUsedAt
        ) {
          return null;
        }
        return copy(rotateIn(s, session, next, event));
      }),
    revokeWithoutStrongAuth: (tenantId, at) =>
      run((s) => {
        let count = 0;
        for (const session of [...s.sessions.values()]) {
          if (session.tenantId !== tenantId || session.revokedAt !== null) continue;
          const { amr } = authenticationOf(session);
          if (amr.includes('mfa') || amr.includes('sso')) continue;
          s.sessions.set(session.id, { ...session, revokedAt: new Date(at) });
          count++;
        }
        return count;
      }),
    revokeHeldBySso: (tenantId, domains, at) =>
      run((s) => {
        const held = new Set(domains);
        let count = 0;
        for (const session of [...s.sessions.values()]) {
          if (session.tenantId !== tenantId || session.revokedAt !== null) continue;
          if (session.expiresAt <= at || authenticationOf(session).amr.includes('sso')) continue;
          const user = s.users.get(session.userId);
          if (!user || user.tenantId !== tenantId || user.role === 'owner') continue;
          if (!held.has(domainOf(user.email) ?? '')) continue;
          s.sessions.set(session.id, { ...session, revokedAt: new Date(at) });
          count++;
        }
        return count;
      }),
    listActiveForUser: (tenantId, userId, now, options) =>
      run((s) =>
        [...s.sessions.values()]
          .filter(
            (x) =>
              x.tenantId === tenantId && x.userId === userId && x.revokedAt === null && x.expiresAt > now,
          )
          .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1))
          .slice(0, options?.limit)
          .map(copy),
      ),
    deleteExpired: ({ expiredBefore, revokedBefore, batchSize }) =>
      run((s) => {
        checkBatchSize(batchSize);
        const doomed = [...s.sessions.values()]
          .filter((x) => x.expiresAt < expiredBefore || (x.revokedAt !== null && x.revokedAt < revokedBefore))
          .sort((a, b) => a.expiresAt.getTime() - b.expiresAt.getTime() || (a.id < b.id ? -1 : 1))
          .slice(0, batchSize);
        for (const x of doomed) {
          s.sessions.delete(x.id);
          s.sessionIdByRefreshHash.delete(x.refreshHash);
          if (x.previousRefreshHash !== null) s.sessionIdByRefreshHash.delete(x.previousRefreshHash);
        }
        return doomed.length;
      }),
  };
}
