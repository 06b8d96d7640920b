import type { PasskeyRecord, PasskeyStore } from '../ports/passkey-store.js';
import type { MemoryState } from './memory-database.js';
import { checkBatchSize, copy, type Run } from './memory-run.js';

function passkeyOf(s: MemoryState, tenantId: string, id: string): PasskeyRecord | undefined {
  const passkey = s.passkeys.get(id);
  return passkey?.tenantId === tenantId ? passkey : undefined;
}

const ofUser = (s: MemoryState, tenantId: string, userId: string) =>
  [...s.passkeys.values()]
    .filter((p) => p.tenantId === tenantId && p.userId === userId)
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id));

/** @internal The passkey store on the memory database: each verb runs alone, so each is atomic. */
export function memoryPasskeyStore(run: Run): PasskeyStore {
  return {
    add: (passkey) =>
      run((s) => {
        if (s.users.get(passkey.userId)?.tenantId !== passkey.tenantId) return false;
        if (s.passkeys.has(passkey.id)) return false;
        for (const p of s.passkeys.values()) if (p.credentialId === passkey.credentialId) return false;
        s.passkeys.set(passkey.id, copy(passkey));
        return true;
      }),
    findByCredentialId: (credentialId) =>
      run((s) => {
        for (const p of s.passkeys.values()) if (p.credentialId === credentialId) return copy(p);
        return null;
      }),
    listForUser: (tenantId, userId) => run((s) => ofUser(s, tenantId, userId).map(copy)),
    countForUser: (tenantId, userId) => run((s) => ofUser(s, tenantId, userId).length),
    recordUse: (tenantId, id, use) =>
      run((s) => {
        const passkey = passkeyOf(s, tenantId, id);
        if (!passkey || passkey.counter !== use.expectedCounter) return false;
        s.passkeys.set(id, { ...passkey, counter: use.counter, lastUsedAt: new Date(use.at) });
        return true;
      }),
    delete: (tenantId, userId, id) =>
      run((s) => (passkeyOf(s, tenantId, id)?.userId === userId ? s.passkeys.delete(id) : false)),
    createChallenge: (challenge) =>
      run((s) => {
        if (s.webauthnChallenges.has(challenge.challengeHash)) throw new TypeError('duplicate challenge');
        if (challenge.userId !== null && s.users.get(challenge.userId)?.tenantId !== challenge.tenantId)
          throw new TypeError('the user of the challenge does not exist');
        s.webauthnChallenges.set(challenge.challengeHash, copy(challenge));
      }),
    consumeChallenge: (challengeHash, now) =>
      run((s) => {
        const challenge = s.webauthnChallenges.get(challengeHash);
        if (!challenge || challenge.expiresAt <= now) return null;
        s.webauthnChallenges.delete(challengeHash);
        return copy(challenge);
      }),
    deleteExpiredChallenges: ({ expiredBefore, batchSize }) =>
      run((s) => {
        checkBatchSize(batchSize);
        const doomed = [...s.webauthnChallenges.values()]
          .filter((c) => c.expiresAt < expiredBefore)
          .sort((a, b) => a.expiresAt.getTime() - b.expiresAt.getTime())
          .slice(0, batchSize);
        for (const c of doomed) s.webauthnChallenges.delete(c.challengeHash);
        return doomed.length;
      }),
  };
}
