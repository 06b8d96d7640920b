import type { Clock } from '../vocabulary/clock.js';

/**
 * A clock for tests that moves only when told, so expiry, windows and grace periods are tested without
 * sleeping. Pass it as `clock` to `createTenantAuth`.
 *
 * @example
 * const clock = new ManualClock(new Date('2026-01-01T00:00:00Z'));
 * const auth = createTenantAuth({ ...options, clock });
 * clock.advance(15 * 60_000); // the access token has expired
 */
export class ManualClock implements Clock {
  #now: number;
  constructor(start: Date | number = Date.UTC(2026, 0, 1)) {
    this.#now = typeof start === 'number' ? start : start.getTime();
  }
  now(): Date {
    return new Date(this.#now);
  }
  /** Moves the clock forward by `ms` milliseconds. */
  advance(ms: number): void {
    this.#now += ms;
  }
  /** Sets the clock to `at`. */
  set(at: Date | number): void {
    this.#now = typeof at === 'number' ? at : at.getTime();
  }
}
