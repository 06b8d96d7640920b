import type { Clock, RandomBytes } from './clock.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether `value` is a UUID in its text form (any case). Ids from URLs that are not UUIDs cannot name a
 * row, so stores answer "not found" for them without asking the database.
 *
 * @example
 * isUuid('0192f1c4-5f3a-7c1e-9a4b-3d2f1e0c9b8a'); // true
 */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

/**
 * The canonical (lower-case) form of a UUID from untrusted input, or `null` when it is not one. Ids are
 * normalised once, where they enter (the HTTP adapter), so every store sees one spelling.
 *
 * @example
 * normalizeUuid('0192F1C4-5F3A-7C1E-9A4B-3D2F1E0C9B8A'); // '0192f1c4-5f3a-7c1e-9a4b-3d2f1e0c9b8a'
 */
export function normalizeUuid(value: unknown): string | null {
  return isUuid(value) ? value.toLowerCase() : null;
}

/**
 * UUID version 7 (RFC 9562): time-ordered, so primary-key indexes stay append-mostly.
 *
 * @example
 * const id = uuidv7(systemClock, systemRandom);
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
