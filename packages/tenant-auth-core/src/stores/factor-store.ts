import type { AuthMethod } from '../auth-methods.js';

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
  /** Deletes at most `batchSize` challenges that expired before `expiredBefore`. Returns how many. */
  deleteExpiredChallenges(options: { expiredBefore: Date; batchSize: number }): Promise<number>;
}
