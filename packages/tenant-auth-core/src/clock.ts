import { randomBytes } from 'node:crypto';

/** Source of the current time. Inject a fixed one in tests so expiry and windows need no sleeping. */
export interface Clock {
  now(): Date;
}

/** Source of randomness (ids, jti, slug suffixes). */
export type RandomBytes = (size: number) => Uint8Array;

/** @example const clock = systemClock; clock.now(); */
export const systemClock: Clock = { now: () => new Date() };

/** @example const bytes = systemRandom(16); */
export const systemRandom: RandomBytes = (size) => randomBytes(size);

/**
 * A clock for tests that moves only when told.
 *
 * @example
 * const clock = new ManualClock(new Date('2026-01-01T00:00:00Z'));
 * clock.advance(15 * 60_000);
 */
export class ManualClock implements Clock {
  #now: number;
  constructor(start: Date | number = Date.UTC(2026, 0, 1)) {
    this.#now = typeof start === 'number' ? start : start.getTime();
  }
  now(): Date {
    return new Date(this.#now);
  }
  advance(ms: number): void {
    this.#now += ms;
  }
  set(at: Date | number): void {
    this.#now = typeof at === 'number' ? at : at.getTime();
  }
}

/**
 * UUID version 7 (RFC 9562): time-ordered, so primary-key indexes stay append-mostly.
 *
 * @example const id = uuidv7(systemClock, systemRandom);
 */
export function uuidv7(clock: Clock, random: RandomBytes): string {
  const bytes = new Uint8Array(16);
  bytes.set(random(10), 6);
  let ms = clock.now().getTime();
  for (let i = 5; i >= 0; i--) {
    bytes[i] = ms & 0xff;
    ms = Math.floor(ms / 256);
  }
  bytes[6] = 0x70 | ((bytes[6] ?? 0) & 0x0f);
  bytes[8] = 0x80 | ((bytes[8] ?? 0) & 0x3f);
  const hex = Buffer.from(bytes).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
