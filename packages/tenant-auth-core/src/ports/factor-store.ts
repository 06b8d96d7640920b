import type { AuthMethod } from '../vocabulary/auth-methods.js';
import type { SealedValuePage } from './sealed-value-page.js';

/**
 * A user's TOTP factor as stored: the secret sealed (never in clear), confirmed once the user proved
 * their app has it, and the last time step a code was accepted for (the replay rule).
 *
 * @example
 * const totp: TotpFactorRecord | null = await stores.factors.findTotp(tenantId, userId);
 */
export interface TotpFactorRecord {
  /** The 20-byte secret, sealed with a data key and bound to the tenant and user. */
  sealedSecret: string;
  createdAt: Date;
  /** `null` while the setup is unconfirmed. */
  confirmedAt: Date | null;
  /** The last time step a code was accepted for; `null` when none was. */
  lastStep: number | null;
}

/**
 * What an MFA challenge (`mfaToken`) is for: answering with a factor (`verify`), or enrolling one because
 * the tenant requires it (`setup`).
 *
 * @example
 * const purpose: MfaChallengePurpose = 'verify';
 */
export type MfaChallengePurpose = 'verify' | 'setup';

/**
 * An MFA challenge as stored: only the SHA-256 of the `mfaToken` (32 random bytes) is kept.
 *
 * @example
 * const challenge = await stores.factors.findChallenge(sha256(mfaToken), now);
 */
export interface MfaChallengeRecord {
  /** SHA-256 (hex) of the token. */
  tokenHash: string;
  tenantId: string;
  userId: string;
  purpose: MfaChallengePurpose;
  /** How the first factor was proven (`['pwd']`): the new session's `amr` starts from it. */
  amr: AuthMethod[];
  createdAt: Date;
  expiresAt: Date;
  /** Wrong answers so far. */
  failures: number;
}

/**
 * The second-factor lock of an account (docs/http-api.md, "Rules that change in 1.3"): consecutive wrong
 * TOTP or recovery-code answers, how many times the account was locked, and until when it is.
 *
 * @example
 * const lock: FactorLockState | null = (await stores.factors.findFactorLock?.(tenantId, userId)) ?? null;
 * if (lock?.lockedUntil && lock.lockedUntil > now) refuse();
 */
export interface FactorLockState {
  /** Consecutive wrong answers since the last right one or the last lock. */
  failures: number;
  /** How many times the account was locked. */
  locks: number;
  /** When the current (or last) lock ends; `null` when the account was never locked. */
  lockedUntil: Date | null;
}

/**
 * What one wrong answer does to the lock: at the `maxFailures`th consecutive one the account is locked
 * from `at` for `lockSeconds * 2 ** locks` seconds (`locks`: the locks before this one), at most
 * `maxLockSeconds`, and the count starts again.
 *
 * @example
 * const rule: FactorLockRule = { at: now, maxFailures: 10, lockSeconds: 900, maxLockSeconds: 86_400 };
 */
export interface FactorLockRule {
  at: Date;
  maxFailures: number;
  lockSeconds: number;
  maxLockSeconds: number;
}

/**
 * Second factors: TOTP factors, recovery codes, and the challenges of a login waiting for its second
 * factor. Every method that takes a tenant is scoped to it: another tenant's rows are never returned,
 * changed or counted. The compare-and-set verbs (`confirmTotp`, `acceptTotpStep`,
 * `consumeRecoveryCode`, `consumeChallenge`) have exactly one winner among concurrent callers.
 *
 * @example
 * if (await stores.factors.acceptTotpStep(tenantId, userId, step)) signIn();
 */
export interface FactorStore {
  /**
   * Writes an unconfirmed TOTP setup, replacing an unconfirmed one. Returns `false` (and changes
   * nothing) when the user has a confirmed factor.
   */
  saveTotpSetup(
    tenantId: string,
    userId: string,
    setup: { sealedSecret: string; createdAt: Date },
  ): Promise<boolean>;
  findTotp(tenantId: string, userId: string): Promise<TotpFactorRecord | null>;
  /** Confirms an unconfirmed factor, recording `step` as accepted. Returns whether this call confirmed it. */
  confirmTotp(tenantId: string, userId: string, step: number, at: Date): Promise<boolean>;
  /**
   * Records `step` as accepted for a confirmed factor, only if no step at or after it was: of two
   * concurrent uses of one code, exactly one wins. Returns whether this call did.
   */
  acceptTotpStep(tenantId: string, userId: string, step: number): Promise<boolean>;
  /** Deletes the user's TOTP factor, confirmed or not. Returns whether there was one. */
  deleteTotp(tenantId: string, userId: string): Promise<boolean>;
  /** Replaces the user's recovery codes (their hashes) with a new set. */
  replaceRecoveryCodes(tenantId: string, userId: string, hashes: string[], at: Date): Promise<void>;
  /** Deletes one recovery code if the user has it: of concurrent callers, at most one gets `true`. */
  consumeRecoveryCode(tenantId: string, userId: string, hash: string, at: Date): Promise<boolean>;
  countRecoveryCodes(tenantId: string, userId: string): Promise<number>;
  /** Deletes every recovery code of the user. Returns how many. */
  deleteRecoveryCodes(tenantId: string, userId: string): Promise<number>;
  /** Stores a challenge (failures 0). */
  createChallenge(challenge: Omit<MfaChallengeRecord, 'failures'>): Promise<void>;
  /** The challenge with that hash if it has not expired at `now`. Does not consume it. */
  findChallenge(tokenHash: string, now: Date): Promise<MfaChallengeRecord | null>;
  /** Counts one wrong answer to a challenge. Returns the failures so far (0 when there is no such challenge). */
  recordChallengeFailure(tokenHash: string): Promise<number>;
  /**
   * Consumes a challenge atomically: deletes it and returns it if it exists and has not expired at
   * `now`. Of concurrent callers, at most one gets it.
   */
  consumeChallenge(tokenHash: string, now: Date): Promise<MfaChallengeRecord | null>;
  /**
   * Optional (1.3): deletes every challenge of a user of the tenant, whatever its purpose (a factor was
   * enrolled: the challenges issued before it are void). Returns how many. Without it, the challenges
   * of before expire on their own (a setup challenge enrols nothing once the user has a factor).
   *
   * @example
   * await tx.factors.deleteChallengesForUser?.(tenantId, userId);
   */
  deleteChallengesForUser?(tenantId: string, userId: string): Promise<number>;
  /** Deletes at most `batchSize` challenges that expired before `expiredBefore`. Returns how many. */
  deleteExpiredChallenges(options: { expiredBefore: Date; batchSize: number }): Promise<number>;
  /**
   * Optional (the re-seal after a data-key rotation needs it): the TOTP factors' sealed secrets, confirmed
   * or not, across tenants, by user id (the page's key).
   *
   * @example
   * const page = await stores.factors.listSealedTotpSecrets?.({ after: null, limit: 500 });
   */
  listSealedTotpSecrets?(
    page: SealedValuePage,
  ): Promise<{ tenantId: string; userId: string; sealedSecret: string }[]>;
  /**
   * Optional, with {@link FactorStore.listSealedTotpSecrets}: replaces the user's sealed secret with
   * `sealedSecret` only if it is still `expected` (compare-and-set: a factor set up again meanwhile is
   * left alone), changing nothing else. Returns whether it did.
   *
   * @example
   * await stores.factors.resealTotpSecret?.(tenantId, userId, old, resealed);
   */
  resealTotpSecret?(
    tenantId: string,
    userId: string,
    expected: string,
    sealedSecret: string,
  ): Promise<boolean>;
  /**
   * Optional (the second-factor lock; without it and {@link FactorStore.recordFactorFailure} and
   * {@link FactorStore.clearFactorFailures} no account is ever locked, and `createTenantAuth` warns): the
   * lock state of a user of the tenant (zeros and `null` when nothing was recorded); `null` for a user
   * not in the tenant.
   */
  findFactorLock?(tenantId: string, userId: string): Promise<FactorLockState | null>;
  /**
   * Optional: counts one wrong answer of a user of the tenant, atomically (concurrent calls each count),
   * locking the account by `rule` at the `maxFailures`th. Returns the state after it, and `lockedNow`:
   * whether this call locked it (exactly one of concurrent callers does); `null` (nothing written) for a
   * user not in the tenant. Stored durably, so every instance sees it.
   *
   * @example
   * const after = await stores.factors.recordFactorFailure?.(tenantId, userId, rule);
   * if (after?.lockedNow && after.locks === 1) warnTheUser();
   */
  recordFactorFailure?(
    tenantId: string,
    userId: string,
    rule: FactorLockRule,
  ): Promise<(FactorLockState & { lockedNow: boolean }) | null>;
  /** Optional: a right answer: the count of wrong answers starts again (the locks so far are kept). */
  clearFactorFailures?(tenantId: string, userId: string): Promise<void>;
  /**
   * Optional (with {@link FactorStore.settleFactorFailure} and {@link FactorStore.releaseFactorAttempt};
   * without the three, concurrent answers are counted only once checked, so a burst of them can get past
   * the lock): reserves one answer of a user of the tenant before it is checked, atomically (concurrent
   * calls each count): the answer counts as wrong until it is settled or released. Nothing is counted
   * (`reserved: false`) while the account is locked at `rule.at`; when the answers counted so far have
   * reached `rule.maxFailures` (all in flight, or lost to a crash), the account is locked now by `rule`
   * (`lockedNow`, as {@link FactorStore.recordFactorFailure} would) and the answer refused. `null`
   * (nothing written) for a user not in the tenant.
   *
   * @example
   * const r = await stores.factors.reserveFactorAttempt?.(tenantId, userId, rule);
   * if (!r?.reserved) refuse(r?.lockedUntil);
   */
  reserveFactorAttempt?(
    tenantId: string,
    userId: string,
    rule: FactorLockRule,
  ): Promise<(FactorLockState & { reserved: boolean; lockedNow: boolean }) | null>;
  /**
   * Optional: a reserved answer was wrong (it stays counted): locks the account by `rule` when the count
   * has reached `rule.maxFailures` (the count starts again), and returns whether this call locked it;
   * `null` for a user not in the tenant. A right answer is {@link FactorStore.clearFactorFailures}.
   *
   * @example
   * const after = await stores.factors.settleFactorFailure?.(tenantId, userId, rule);
   * if (after?.lockedNow && after.locks === 1) warnTheUser();
   */
  settleFactorFailure?(
    tenantId: string,
    userId: string,
    rule: FactorLockRule,
  ): Promise<(FactorLockState & { lockedNow: boolean }) | null>;
  /** Optional: a reserved answer that could not be checked (an error): counted one fewer, never under 0. */
  releaseFactorAttempt?(tenantId: string, userId: string): Promise<void>;
}
