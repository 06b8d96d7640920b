import { randomBytes } from 'node:crypto';

/**
 * Source of the current time. Inject a fixed one in tests (`ManualClock` from `tenant-auth-core/testing`)
 * so expiry, windows and grace periods need no sleeping.
 *
 * @example
 * const clock: Clock = { now: () => new Date() };
 */
export interface Clock {
  now(): Date;
}

/**
 * Source of randomness (ids, `jti`, one-time tokens, slug suffixes).
 *
 * @example
 * const random: RandomBytes = (size) => crypto.getRandomValues(new Uint8Array(size));
 */
export type RandomBytes = (size: number) => Uint8Array;

/** @internal The system clock. */
export const systemClock: Clock = { now: () => new Date() };

/** @internal Node's CSPRNG. */
export const systemRandom: RandomBytes = (size) => randomBytes(size);
