import type { Logger } from '../../ports/logger.js';
import type { CompleteTenantAuthStores, CompleteTransactionStores } from '../../ports/tenant-auth-stores.js';
import type { Clock } from '../../vocabulary/clock.js';
import { TenantAuthError } from '../../vocabulary/errors.js';
import type { UserRecord } from '../../vocabulary/records.js';
import type { MailOutbox } from '../mail/mail-outbox.js';

/**
 * @internal The second-factor lock (docs/http-api.md, "Rules that change in 1.3"): after 10 consecutive
 * wrong TOTP or recovery-code answers of an account, from any network and any challenge, codes are
 * refused for 15 minutes, twice as long at each further lock, at most 24 hours. Stated once, here.
 */
export const FACTOR_LOCK = { maxFailures: 10, lockSeconds: 900, maxLockSeconds: 86_400 } as const;

type Account = Pick<UserRecord, 'tenantId' | 'id' | 'email'>;

/**
 * @internal The second-factor lock over the factor store's lock verbs, kept in the database so that
 * every instance counts the same answers. A store without the verbs locks nobody (said once, at start-up).
 */
export function createFactorLock(deps: {
  stores: CompleteTenantAuthStores;
  clock: Clock;
  mail: MailOutbox | undefined;
  logger: Logger;
}) {
  const { stores, clock, mail, logger } = deps;
  const f = stores.factors;
  const supported = !!(f.findFactorLock && f.recordFactorFailure && f.clearFactorFailures);
  if (!supported)
    logger.warn(
      {},
      'tenant-auth: the factor store has no findFactorLock/recordFactorFailure/clearFactorFailures: the second factor is never locked after repeated wrong codes',
    );

  // The reservation verbs let the count hold against concurrent answers: each answer is counted before it
  // is checked, so of N concurrent wrong answers only those within the limit are checked at all.
  const reserving =
    supported && !!(f.reserveFactorAttempt && f.settleFactorFailure && f.releaseFactorAttempt);
  if (supported && !reserving)
    logger.warn(
      {},
      'tenant-auth: the factor store has no reserveFactorAttempt/settleFactorFailure/releaseFactorAttempt: concurrent wrong codes are counted only once checked, so a burst of them can pass the second-factor lock',
    );

  const refused = (lockedUntil: Date | null | undefined) =>
    new TenantAuthError('rate_limited', 'Too many wrong codes; try again later or use a passkey.', {
      retryAfterSeconds: Math.max(
        1,
        Math.ceil(((lockedUntil?.getTime() ?? 0) - clock.now().getTime()) / 1000),
      ),
    });

  /**
   * Runs `write` (a lock verb) in a transaction and, when it locked the account for the first time, tells
   * the account's owner by email in the same transaction.
   */
  async function lockingWrite<T extends { lockedNow: boolean; locks: number }>(
    user: Account,
    write: (tx: CompleteTransactionStores) => Promise<T | null> | undefined,
  ): Promise<T | null | undefined> {
    let first = false;
    const after = await stores.transaction(async (tx) => {
      const state = await write(tx);
      if (!state?.lockedNow || state.locks !== 1 || !mail) return state;
      const tenant = await tx.tenants.findById(user.tenantId);
      await mail.enqueue(tx, {
        template: 'second_factor_locked',
        to: user.email,
        tenantId: user.tenantId,
        data: { tenantName: tenant?.name ?? '', lockSeconds: FACTOR_LOCK.lockSeconds },
      });
      first = true;
      return state;
    });
    if (first) mail?.wake();
    return after;
  }

  /** Throws `rate_limited` (with the seconds left) while the account's codes are locked. */
  async function assertOpen(user: Account): Promise<void> {
    if (!supported) return;
    const lock = await stores.factors.findFactorLock?.(user.tenantId, user.id);
    if ((lock?.lockedUntil?.getTime() ?? 0) > clock.now().getTime()) throw refused(lock?.lockedUntil);
  }

  /** Counts a wrong code; the first lock of the account tells its owner by email. */
  async function wrong(user: Account): Promise<void> {
    if (!supported) return;
    const rule = { at: clock.now(), ...FACTOR_LOCK };
    await lockingWrite(user, (tx) => tx.factors.recordFactorFailure?.(user.tenantId, user.id, rule));
  }

  /** A right code: the count of wrong ones starts again. */
  async function right(user: Account): Promise<void> {
    if (supported) await stores.factors.clearFactorFailures?.(user.tenantId, user.id);
  }

  return {
    /**
     * Checks a code of `user` under the lock: `rate_limited` while the account is locked (`check` is not
     * run). The answer is counted as wrong before `check` runs (so concurrent wrong answers beyond the
     * limit are refused, not checked); a right one starts the count again (the last allowed answer, when
     * right, locks nothing); a wrong one locks the account at the limit; one that throws is not counted.
     */
    async guard(user: Account, check: () => Promise<boolean>): Promise<boolean> {
      if (!reserving) {
        await assertOpen(user);
        const ok = await check();
        await (ok ? right(user) : wrong(user));
        return ok;
      }
      const rule = { at: clock.now(), ...FACTOR_LOCK };
      const reservation = await lockingWrite(user, (tx) =>
        tx.factors.reserveFactorAttempt?.(user.tenantId, user.id, rule),
      );
      if (reservation && !reservation.reserved) throw refused(reservation.lockedUntil);
      let ok: boolean;
      try {
        ok = await check();
      } catch (err) {
        await stores.factors.releaseFactorAttempt?.(user.tenantId, user.id);
        throw err;
      }
      if (ok) await right(user);
      else
        await lockingWrite(user, (tx) =>
          tx.factors.settleFactorFailure?.(user.tenantId, user.id, { ...rule, at: clock.now() }),
        );
      return ok;
    },
  };
}

/** @internal */
export type FactorLock = ReturnType<typeof createFactorLock>;
