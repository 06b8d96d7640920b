import { ScureBase32Plugin, verifySync } from 'otplib';
import type { RandomBytes } from '../../vocabulary/clock.js';

/**
 * @internal The TOTP parameters of the contract (docs/http-api.md, "Second factor: TOTP and recovery codes"): RFC 6238 with SHA-1, six
 * digits, a 30-second step, one step of drift either way, a 20-byte secret. Stated once, here.
 */
export const TOTP = {
  algorithm: 'sha1',
  digits: 6,
  periodSeconds: 30,
  driftSteps: 1,
  secretBytes: 20,
} as const;

const base32 = new ScureBase32Plugin();

/** @internal A new TOTP secret: its bytes (to seal and store) and its base32 form (shown once, at setup). */
export function newTotpSecret(random: RandomBytes): { bytes: Uint8Array; base32: string } {
  const bytes = random(TOTP.secretBytes);
  return { bytes, base32: base32.encode(bytes, { padding: false }) };
}

/**
 * @internal The `otpauth://` URI an authenticator app reads (the QR code's content):
 * `otpauth://totp/<issuer>:<account>?secret=…&issuer=…&algorithm=SHA1&digits=6&period=30`.
 */
export function totpUri(input: { issuer: string; account: string; secret: Uint8Array }): string {
  // Written out rather than by otplib's generateURI, which leaves out parameters equal to its defaults:
  // the contract names all of them, and some authenticator apps do not assume them.
  const label = `${encodeURIComponent(input.issuer)}:${encodeURIComponent(input.account)}`;
  const query = new URLSearchParams({
    secret: base32.encode(input.secret, { padding: false }),
    issuer: input.issuer,
    algorithm: TOTP.algorithm.toUpperCase(),
    digits: String(TOTP.digits),
    period: String(TOTP.periodSeconds),
  });
  return `otpauth://totp/${label}?${query.toString().replaceAll('+', '%20')}`;
}

/** @internal The time step a moment falls in (seconds since the epoch / 30, floored). */
export function totpStep(now: Date): number {
  return Math.floor(now.getTime() / 1000 / TOTP.periodSeconds);
}

/**
 * @internal Checks a six-digit code against a secret at `now`, within one step of drift either way, in
 * constant time (otplib). Returns the time step the code belongs to, or `null` when it matches none.
 * A step at or before `afterStep` (the last one accepted for this factor) is refused: that is the replay
 * rule, and the caller must still record the returned step with a compare-and-set so that two
 * concurrent uses of one code cannot both win.
 */
export function verifyTotp(input: {
  secret: Uint8Array;
  code: string;
  now: Date;
  afterStep?: number | null | undefined;
}): number | null {
  if (!/^[0-9]{6}$/.test(input.code)) return null;
  // A last accepted step at or past the newest step in the window (this clock is behind the one that
  // accepted it): every candidate is a replay. Refused here, because otplib throws on such a bound.
  if (input.afterStep != null && input.afterStep >= totpStep(input.now) + TOTP.driftSteps) return null;
  const result = verifySync({
    strategy: 'totp',
    secret: input.secret,
    token: input.code,
    algorithm: TOTP.algorithm,
    digits: TOTP.digits,
    period: TOTP.periodSeconds,
    epoch: Math.floor(input.now.getTime() / 1000),
    epochTolerance: TOTP.periodSeconds * TOTP.driftSteps,
    ...(input.afterStep == null ? {} : { afterTimeStep: input.afterStep }),
  });
  if (!result.valid) return null;
  return totpStep(input.now) + result.delta;
}
