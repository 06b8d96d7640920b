import { describe, expect, it } from 'vitest';
import { newTotpSecret, TOTP, totpStep, totpUri, verifyTotp } from './totp.js';

// RFC 6238, Appendix B: the SHA-1 seed is the ASCII of "12345678901234567890". The RFC lists 8-digit
// codes; a 6-digit code is the same truncated value modulo 10^6, so its last six digits.
const RFC_SECRET = new TextEncoder().encode('12345678901234567890');
const RFC_VECTORS: Array<[seconds: number, eightDigits: string]> = [
  [59, '94287082'],
  [1111111109, '07081804'],
  [1111111111, '14050471'],
  [1234567890, '89005924'],
  [2000000000, '69279037'],
  [20000000000, '65353130'],
];
const at = (seconds: number) => new Date(seconds * 1000);

describe('TOTP (RFC 6238, SHA-1, 6 digits, 30 s)', () => {
  it.each(RFC_VECTORS)('accepts the RFC 6238 code at T=%i, in its own step', (seconds, code) => {
    expect(verifyTotp({ secret: RFC_SECRET, code: code.slice(2), now: at(seconds) })).toBe(
      totpStep(at(seconds)),
    );
  });

  it('accepts one step of drift either way, not two', () => {
    const code = '050471'; // T = 1111111111
    const step = totpStep(at(1111111111));
    expect(verifyTotp({ secret: RFC_SECRET, code, now: at(1111111111 + 30) })).toBe(step);
    expect(verifyTotp({ secret: RFC_SECRET, code, now: at(1111111111 - 30) })).toBe(step);
    expect(verifyTotp({ secret: RFC_SECRET, code, now: at(1111111111 + 60) })).toBeNull();
    expect(verifyTotp({ secret: RFC_SECRET, code, now: at(1111111111 - 60) })).toBeNull();
  });

  it('refuses a code of a step at or before the last accepted one (replay)', () => {
    const step = totpStep(at(1234567890));
    expect(verifyTotp({ secret: RFC_SECRET, code: '005924', now: at(1234567890), afterStep: step - 1 })).toBe(
      step,
    );
    expect(
      verifyTotp({ secret: RFC_SECRET, code: '005924', now: at(1234567890), afterStep: step }),
    ).toBeNull();
    expect(
      verifyTotp({ secret: RFC_SECRET, code: '005924', now: at(1234567890), afterStep: step + 1 }),
    ).toBeNull();
  });

  it('refuses, without throwing, when the last accepted step is ahead of this clock (clock skew)', () => {
    const step = totpStep(at(1234567890));
    for (const ahead of [1, 2, 5, 1000]) {
      expect(
        verifyTotp({ secret: RFC_SECRET, code: '005924', now: at(1234567890), afterStep: step + ahead }),
      ).toBeNull();
    }
  });

  it('refuses a wrong code, another secret, and anything but six digits', () => {
    expect(verifyTotp({ secret: RFC_SECRET, code: '287083', now: at(59) })).toBeNull();
    const other = new Uint8Array(20).fill(7);
    expect(verifyTotp({ secret: other, code: '287082', now: at(59) })).toBeNull();
    for (const code of ['94287082', '28708', ' 287082', '287 082', '２８７０８２', '']) {
      expect(verifyTotp({ secret: RFC_SECRET, code, now: at(59) })).toBeNull();
    }
  });

  it('makes a 20-byte secret from the random source, base32 without padding', () => {
    const secret = newTotpSecret((size) => new Uint8Array(size).fill(0xff));
    expect(secret.bytes).toHaveLength(TOTP.secretBytes);
    expect(secret.base32).toBe('7'.repeat(32));
  });

  it('writes the otpauth URI of the contract', () => {
    const uri = new URL(totpUri({ issuer: 'tenant-auth', account: 'ada@example.com', secret: RFC_SECRET }));
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(decodeURIComponent(uri.pathname)).toBe('/tenant-auth:ada@example.com');
    expect(Object.fromEntries(uri.searchParams)).toEqual({
      secret: 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ',
      issuer: 'tenant-auth',
      algorithm: 'SHA1',
      digits: '6',
      period: '30',
    });
  });
});
