import { createHash, createHmac } from 'node:crypto';
import type { RateLimiter } from './rate-limiter.js';
import { rateLimited } from './rate-limiter.js';

/** @internal A login attempt counted against an account; given back when the password was right. */
export interface AttemptReservation {
  /** Gives the attempt back: only failed logins count towards the account's budgets. */
  release(): Promise<void>;
}

/** @internal Per-account throttling of login attempts, on top of the per-client budgets. */
export interface LoginThrottle {
  /**
   * Reserves one login attempt for the account from this client, before the password is checked, in
   * one atomic store operation per budget (parallel guesses cannot all pass a check before any is
   * recorded): first against the budget of this account from this client's network, then against the
   * account's ceiling from every client together. Throws `rate_limited` (with the refusing budget) when
   * either is spent; a refused attempt is recorded nowhere, so it extends no lock.
   */
  attempt(normalisedEmail: string, clientKeys: readonly string[]): Promise<AttemptReservation>;
}

/**
 * @internal The per-account throttle. Keys hold a hash of the normalised email (an HMAC when given a
 * secret, so someone who can read the store cannot confirm a guessed address by hashing it), counted
 * whether or not an account exists, so the answer reveals nothing.
 *
 * Why two budgets: the one per account and client network is low, so an attacker guessing from one
 * network is stopped quickly, while the owner, from another network, still gets in (the attacker cannot
 * lock them out); the ceiling per account bounds a guess spread over many networks. A successful login
 * gives its attempt back, so the owner's own logins never count against them.
 */
export function createLoginThrottle(
  perClient: RateLimiter,
  ceiling: RateLimiter,
  secret: Uint8Array | undefined,
  refusal = 'Too many login attempts for this account; try again later.',
): LoginThrottle {
  // 128 bits of the digest: collisions are out of reach, and the key stays short.
  const accountOf = (email: string) =>
    (secret === undefined ? createHash('sha256') : createHmac('sha256', secret))
      .update(email)
      .digest('hex')
      .slice(0, 32);

  return {
    async attempt(normalisedEmail, clientKeys) {
      const account = accountOf(normalisedEmail);
      const mine = await perClient.consume(clientKeys.map((client) => `${account}|${client}`));
      if (!mine.allowed) throw rateLimited(mine, refusal);
      const all = await ceiling.consume([account]).catch(async (err: unknown) => {
        await perClient.refund(mine.key);
        throw err;
      });
      if (!all.allowed) {
        await perClient.refund(mine.key);
        throw rateLimited(all, refusal);
      }
      return {
        async release() {
          await Promise.all([perClient.refund(mine.key), ceiling.refund(all.key)]);
        },
      };
    },
  };
}
