import type { FactorLockRule, FactorLockState, FactorStore } from '../ports/factor-store.js';
import type { MemoryState, MemoryTotpFactor } from './memory-database.js';
import { checkBatchSize, copy, pageOf, type Run } from './memory-run.js';

function totpOf(s: MemoryState, tenantId: string, userId: string): MemoryTotpFactor | undefined {
  const factor = s.totpFactors.get(userId);
  return factor?.tenantId === tenantId ? factor : undefined;
}

const NO_LOCK: FactorLockState = { failures: 0, locks: 0, lockedUntil: null };

/** The lock `rule` puts on an account whose count is spent: the count starts again. */
const lockedBy = (before: FactorLockState, rule: FactorLockRule): FactorLockState => ({
  failures: 0,
  locks: before.locks + 1,
  lockedUntil: new Date(
    rule.at.getTime() + Math.min(rule.lockSeconds * 2 ** before.locks, rule.maxLockSeconds) * 1000,
  ),
});

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
    listSealedTotpSecrets: (page) =>
      run((s) =>
        pageOf(s.totpFactors.values(), (f) => f.userId, page).map(({ tenantId, userId, sealedSecret }) => ({
          tenantId,
          userId,
          sealedSecret,
        })),
      ),
    resealTotpSecret: (tenantId, userId, expected, sealedSecret) =>
      run((s) => {
        const factor = totpOf(s, tenantId, userId);
        if (factor?.sealedSecret !== expected) return false;
        s.totpFactors.set(userId, { ...factor, sealedSecret });
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
    deleteChallengesForUser: (tenantId, userId) =>
      run((s) => {
        let count = 0;
        for (const [key, c] of [...s.mfaChallenges]) {
          if (c.tenantId === tenantId && c.userId === userId) {
            s.mfaChallenges.delete(key);
            count++;
          }
        }
        return count;
      }),
    findFactorLock: (tenantId, userId) =>
      run((s) => {
        if (s.users.get(userId)?.tenantId !== tenantId) return null;
        return copy(s.factorLocks.get(userId) ?? NO_LOCK);
      }),
    recordFactorFailure: (tenantId, userId, rule) =>
      run((s) => {
        if (s.users.get(userId)?.tenantId !== tenantId) return null;
        const before = s.factorLocks.get(userId) ?? NO_LOCK;
        const failures = before.failures + 1;
        const lockedNow = failures >= rule.maxFailures;
        const after: FactorLockState = lockedNow ? lockedBy(before, rule) : { ...before, failures };
        s.factorLocks.set(userId, after);
        return { ...copy(after), lockedNow };
      }),
    reserveFactorAttempt: (tenantId, userId, rule) =>
      run((s) => {
        if (s.users.get(userId)?.tenantId !== tenantId) return null;
        const before = s.factorLocks.get(userId) ?? NO_LOCK;
        if (before.lockedUntil && before.lockedUntil > rule.at)
          return { ...copy(before), reserved: false, lockedNow: false };
        if (before.failures >= rule.maxFailures) {
          const after = lockedBy(before, rule);
          s.factorLocks.set(userId, after);
          return { ...copy(after), reserved: false, lockedNow: true };
        }
        const after = { ...before, failures: before.failures + 1 };
        s.factorLocks.set(userId, after);
        return { ...copy(after), reserved: true, lockedNow: false };
      }),
    settleFactorFailure: (tenantId, userId, rule) =>
      run((s) => {
        if (s.users.get(userId)?.tenantId !== tenantId) return null;
        const before = s.factorLocks.get(userId) ?? NO_LOCK;
        if (before.failures < rule.maxFailures) return { ...copy(before), lockedNow: false };
        const after = lockedBy(before, rule);
        s.factorLocks.set(userId, after);
        return { ...copy(after), lockedNow: true };
      }),
    releaseFactorAttempt: (tenantId, userId) =>
      run((s) => {
        const lock = s.factorLocks.get(userId);
        if (lock && s.users.get(userId)?.tenantId === tenantId)
          s.factorLocks.set(userId, { ...lock, failures: Math.max(0, lock.failures - 1) });
      }),
    clearFactorFailures: (tenantId, userId) =>
      run((s) => {
        const lock = s.factorLocks.get(userId);
        if (lock && s.users.get(userId)?.tenantId === tenantId)
          s.factorLocks.set(userId, { ...lock, failures: 0 });
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
