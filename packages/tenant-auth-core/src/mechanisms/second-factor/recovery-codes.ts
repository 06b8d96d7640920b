import { createHash } from 'node:crypto';
import type { CompleteTransactionStores } from '../../ports/tenant-auth-stores.js';
import type { Clock, RandomBytes } from '../../vocabulary/clock.js';
import type { UserRecord } from '../../vocabulary/records.js';
import type { DataSealer } from '../sealing/data-key.js';

/**
 * @internal Recovery codes (docs/http-api.md, "Second factor: TOTP and recovery codes"): a set of 10, each 10 characters of a 32-letter alphabet (50
 * random bits) shown as `k7pmq-x4t2r`; single use; stored only as hashes. Stated once, here.
 */
export const RECOVERY_CODES = { count: 10, length: 10, groupLength: 5 } as const;

// Lower-case letters and digits without the look-alikes i, l, o, u (Crockford's choice): 32 symbols.
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** @internal A new set of recovery codes, as shown to the user (grouped with a dash). */
export function newRecoveryCodes(random: RandomBytes): string[] {
  const codes: string[] = [];
  for (let i = 0; i < RECOVERY_CODES.count; i++) {
    const bytes = random(RECOVERY_CODES.length);
    let code = '';
    // Each byte's low five bits pick a symbol: 256 is a multiple of 32, so every symbol is equally likely.
    for (const byte of bytes) code += ALPHABET[byte & 31];
    codes.push(`${code.slice(0, RECOVERY_CODES.groupLength)}-${code.slice(RECOVERY_CODES.groupLength)}`);
  }
  return codes;
}

/**
 * @internal A code as typed, in its one canonical form: case and dashes (and spaces) ignored. `null` when
 * it cannot be a recovery code at all, so a malformed answer costs no store round trip.
 */
export function normalizeRecoveryCode(input: string): string | null {
  const code = input.replace(/[\s-]/g, '').toLowerCase();
  if (code.length !== RECOVERY_CODES.length) return null;
  for (const char of code) if (!ALPHABET.includes(char)) return null;
  return code;
}

/**
 * @internal What 1.2 stored of a code: SHA-256 over the user's id and the canonical code, with no key. Still
 * accepted (a user keeps the codes of before), never written: a new set is keyed.
 */
export function hashRecoveryCode(userId: string, canonicalCode: string): string {
  return createHash('sha256')
    .update(`tenant-auth/recovery-code/v1\u0000${userId}\u0000${canonicalCode}`)
    .digest('base64url');
}

/** The message a keyed hash is over: the user's id and the canonical code, so one never matches another user's. */
const keyedMessage = (userId: string, canonicalCode: string) => `${userId}\u0000${canonicalCode}`;

/**
 * @internal What is stored of a code (docs/http-api.md, "Rules that change in 1.3"): HMAC-SHA-256 under a
 * key derived from the current data key, so a copy of the database alone does not let the 50-bit codes
 * be guessed offline. A code is refused after one use, so a slow hash would add cost at sign-in without
 * changing what an online guess can do.
 */
export function keyedRecoveryCodeHash(
  sealer: Pick<DataSealer, 'macs'>,
  userId: string,
  canonicalCode: string,
): string {
  return sealer.macs('recovery-code', keyedMessage(userId, canonicalCode))[0] as string;
}

/**
 * @internal Every stored form a code may have, the likeliest first: keyed with the current data key, with
 * an older one, and 1.2's unkeyed hash.
 */
export function recoveryCodeHashes(
  sealer: Pick<DataSealer, 'macs'>,
  userId: string,
  canonicalCode: string,
): string[] {
  return [
    ...sealer.macs('recovery-code', keyedMessage(userId, canonicalCode)),
    hashRecoveryCode(userId, canonicalCode),
  ];
}

/** @internal A new set of recovery codes for `user`, stored (hashed) through `stores`; the codes themselves returned. */
export async function storeNewRecoveryCodes(
  services: { random: RandomBytes; clock: Clock; sealer: Pick<DataSealer, 'macs'> },
  stores: Pick<CompleteTransactionStores, 'factors'>,
  user: Pick<UserRecord, 'tenantId' | 'id'>,
): Promise<string[]> {
  const codes = newRecoveryCodes(services.random);
  const hashes = codes.map((code) =>
    keyedRecoveryCodeHash(services.sealer, user.id, normalizeRecoveryCode(code) ?? code),
  );
  await stores.factors.replaceRecoveryCodes(user.tenantId, user.id, hashes, services.clock.now());
  return codes;
}
