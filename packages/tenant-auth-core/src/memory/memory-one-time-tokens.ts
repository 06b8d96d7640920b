import type { OneTimeTokenStore } from '../ports/tenant-auth-stores.js';
import type { OneTimeTokenRecord } from '../vocabulary/records.js';
import type { MemoryState } from './memory-database.js';
import { checkBatchSize, copy, type Run } from './memory-run.js';

function remove(s: MemoryState, token: OneTimeTokenRecord): void {
  s.oneTimeTokens.delete(token.id);
  s.oneTimeTokenIdByHash.delete(token.tokenHash);
}

/** Whether two tokens are for the same subject: a newer one replaces the older. */
function sameSubject(a: OneTimeTokenRecord, b: OneTimeTokenRecord): boolean {
  if (a.kind !== b.kind || a.tenantId !== b.tenantId) return false;
  return a.kind === 'invitation' ? a.email === b.email : a.userId === b.userId;
}

/** @internal */
export function memoryOneTimeTokenStore(run: Run): OneTimeTokenStore {
  const live = (s: MemoryState, kind: string, tokenHash: string, now: Date) => {
    const id = s.oneTimeTokenIdByHash.get(tokenHash);
    const token = id === undefined ? undefined : s.oneTimeTokens.get(id);
    return token && token.kind === kind && token.expiresAt > now ? token : undefined;
  };
  return {
    issue: (token) =>
      run((s) => {
        if (s.oneTimeTokens.has(token.id)) throw new TypeError('duplicate one-time token id');
        if (s.oneTimeTokenIdByHash.has(token.tokenHash)) throw new TypeError('duplicate one-time token hash');
        if (!s.tenants.has(token.tenantId)) throw new TypeError('the tenant of the token does not exist');
        for (const older of [...s.oneTimeTokens.values()]) if (sameSubject(older, token)) remove(s, older);
        s.oneTimeTokens.set(token.id, copy(token));
        s.oneTimeTokenIdByHash.set(token.tokenHash, token.id);
      }),
    find: (kind, tokenHash, now) =>
      run((s) => {
        const token = live(s, kind, tokenHash, now);
        return token ? copy(token) : null;
      }),
    consume: (kind, tokenHash, now) =>
      run((s) => {
        const token = live(s, kind, tokenHash, now);
        if (!token) return null;
        remove(s, token);
        return copy(token);
      }),
    listPending: (tenantId, kind, now, options) =>
      run((s) =>
        [...s.oneTimeTokens.values()]
          .filter((t) => t.tenantId === tenantId && t.kind === kind && t.expiresAt > now)
          .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1))
          .slice(0, options?.limit)
          .map(copy),
      ),
    revoke: (tenantId, kind, id) =>
      run((s) => {
        const token = s.oneTimeTokens.get(id);
        if (!token || token.tenantId !== tenantId || token.kind !== kind) return false;
        remove(s, token);
        return true;
      }),
    revokeForUser: (tenantId, userId, kind) =>
      run((s) => {
        let count = 0;
        for (const token of [...s.oneTimeTokens.values()]) {
          if (token.tenantId === tenantId && token.userId === userId && token.kind === kind) {
            remove(s, token);
            count++;
          }
        }
        return count;
      }),
    deleteExpired: ({ expiredBefore, batchSize }) =>
      run((s) => {
        checkBatchSize(batchSize);
        const doomed = [...s.oneTimeTokens.values()]
          .filter((t) => t.expiresAt < expiredBefore)
          .sort((a, b) => a.expiresAt.getTime() - b.expiresAt.getTime() || (a.id < b.id ? -1 : 1))
          .slice(0, batchSize);
        for (const token of doomed) remove(s, token);
        return doomed.length;
      }),
  };
}
