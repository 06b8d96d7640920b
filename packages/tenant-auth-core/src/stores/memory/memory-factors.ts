import type { FactorStore } from '../factor-store.js';
import type { MemoryState, MemoryTotpFactor } from './memory-database.js';
import { checkBatchSize, copy, type Run } from './memory-run.js';

function totpOf(s: MemoryState, tenantId: string, userId: string): MemoryTotpFactor | undefined {
  const factor = s.totpFactors.get(userId);
  return factor?.tenantId === tenantId ? factor : undefined;
}

const codeKey = (userId: string, hash: string) => `${userId}|${hash}`;

/** @internal The factor store on the memory database: each verb runs alone, so each is atomic. */
export function memoryFactorStore(run: Run): FactorStore {
  return {
    saveTotpSetup: (tenantId, userId, setup) =>
      run((s) => {
        if (s.users.get(userId)?.tenantId !== tenantId) return false;
        const existing = s.totpFactors.get(userId);
        if (existing?.confirmedAt) return false;
        s.totpFactors.set(userId, {
          tenantId,
          userId,
          sealedSecret: setup.sealedSecret,
          createdAt: new Date(setup.createdAt),
          confirmedAt: null,
          lastStep: null,
        });
        return true;
      }),
    findTotp: (tenantId, userId) =>
      run((s) => {
        const factor = totpOf(s, tenantId, userId);
        if (!factor) return null;
        const { sealedSecret, createdAt, confirmedAt, lastStep } = copy(factor);
        return { sealedSecret, createdAt, confirmedAt, lastStep };
      }),
    confirmTotp: (tenantId, userId, step, at) =>
      run((s) => {
        const factor = totpOf(s, tenantId, userId);
        if (!factor || factor.confirmedAt !== null) return false;
        s.totpFactors.set(userId, { ...factor, confirmedAt: new Date(at), lastStep: step });
        return true;
      }),
    acceptTotpStep: (tenantId, userId, step) =>
      run((s) => {
        const factor = totpOf(s, tenantId, userId);
        if (!factor || factor.confirmedAt === null) return false;
        if (factor.lastStep !== null && factor.lastStep >= step) return false;
        s.totpFactors.set(userId, { ...factor, lastStep: step });
        return true;
      }),
    deleteTotp: (tenantId, userId) =>
      run((s) => (totpOf(s, tenantId, userId) ? s.totpFactors.delete(userId) : false)),
    replaceRecoveryCodes: (tenantId, userId, hashes, at) =>
      run((s) => {
        if (s.users.get(userId)?.tenantId !== tenantId) return;
        for (const [key, code] of [...s.recoveryCodes]) {
          if (code.userId === userId) s.recoveryCodes.delete(key);
        }
        for (const hash of hashes) {
          s.recoveryCodes.set(codeKey(userId, hash), { tenantId, userId, hash, createdAt: new Date(at) });
        }
      }),
    consumeRecoveryCode: (tenantId, userId, hash) =>
      run((s) => {
        const code = s.recoveryCodes.get(codeKey(userId, hash));
        if (code?.tenantId !== tenantId) return false;
        return s.recoveryCodes.delete(codeKey(userId, hash));
      }),
    countRecoveryCodes: (tenantId, userId) =>
      run(
        (s) =>
          [...s.recoveryCodes.values()].filter((c) => c.tenantId === tenantId && c.userId === userId).length,
      ),
    deleteRecoveryCodes: (tenantId, userId) =>
      run((s) => {
        let count = 0;
        for (const [key, code] of [...s.recoveryCodes]) {
          if (code.tenantId === tenantId && code.userId === userId) {
            s.recoveryCodes.delete(key);
            count++;
          }
        }
        return count;
      }),
    createChallenge: (challenge) =>
      run((s) => {
        const user = s.users.get(challenge.userId);
        if (user?.tenantId !== challenge.tenantId)
          throw new TypeError('the user of the challenge does not exist');
        if (s.mfaChallenges.has(challenge.tokenHash)) throw new TypeError('duplicate challenge');
        s.mfaChallenges.set(challenge.tokenHash, { ...copy(challenge), failures: 0 });
      }),
    findChallenge: (tokenHash, now) =>
      run((s) => {
        const challenge = s.mfaChallenges.get(tokenHash);
        return challenge && challenge.expiresAt > now ? copy(challenge) : null;
      }),
    recordChallengeFailure: (tokenHash) =>
      run((s) => {
        const challenge = s.mfaChallenges.get(tokenHash);
        if (!challenge) return 0;
        const failures = challenge.failures + 1;
        s.mfaChallenges.set(tokenHash, { ...challenge, failures });
        return failures;
      }),
    consumeChallenge: (tokenHash, now) =>
      run((s) => {
        const challenge = s.mfaChallenges.get(tokenHash);
        if (!challenge || challenge.expiresAt <= now) return null;
        s.mfaChallenges.delete(tokenHash);
        return copy(challenge);
      }),
    deleteExpiredChallenges: ({ expiredBefore, batchSize }) =>
      run((s) => {
        checkBatchSize(batchSize);
        const doomed = [...s.mfaChallenges.values()]
          .filter((c) => c.expiresAt < expiredBefore)
          .sort((a, b) => a.expiresAt.getTime() - b.expiresAt.getTime())
          .slice(0, batchSize);
        for (const c of doomed) s.mfaChallenges.delete(c.tokenHash);
        return doomed.length;
      }),
  };
}
