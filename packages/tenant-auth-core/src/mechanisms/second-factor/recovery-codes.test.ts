import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  hashRecoveryCode,
  newRecoveryCodes,
  normalizeRecoveryCode,
  RECOVERY_CODES,
} from './recovery-codes.js';

const systemRandom = (size: number) => new Uint8Array(randomBytes(size));

describe('recovery codes', () => {
  it('makes 10 distinct codes of the shape k7pmq-x4t2r', () => {
    const codes = newRecoveryCodes(systemRandom);
    expect(codes).toHaveLength(RECOVERY_CODES.count);
    expect(new Set(codes).size).toBe(RECOVERY_CODES.count);
    for (const code of codes) expect(code).toMatch(/^[0-9a-hjkmnp-tv-z]{5}-[0-9a-hjkmnp-tv-z]{5}$/);
  });

  it('uses every symbol of the alphabet, each byte picking one (50 random bits a code)', () => {
    let next = 0;
    const counting = (size: number) => Uint8Array.from({ length: size }, () => next++ & 0xff);
    const symbols = new Set(newRecoveryCodes(counting).join('').replaceAll('-', ''));
    expect(symbols.size).toBe(32);
  });

  it('ignores case, dashes and spaces, and refuses what cannot be a code', () => {
    expect(normalizeRecoveryCode('K7PMQ-X4T2R')).toBe('k7pmqx4t2r');
    expect(normalizeRecoveryCode(' k7pmq x4t2r ')).toBe('k7pmqx4t2r');
    expect(normalizeRecoveryCode('k7pmqx4t2r')).toBe('k7pmqx4t2r');
    for (const bad of ['', 'k7pmq-x4t2', 'k7pmq-x4t2rr', 'k7pmq-x4t2l', 'k7pmq_x4t2r', '123456']) {
      expect(normalizeRecoveryCode(bad)).toBeNull();
    }
  });

  it('hashes a code per user: the same code of two users gives two hashes, and no code in clear', () => {
    const a = hashRecoveryCode('user-a', 'k7pmqx4t2r');
    expect(a).toBe(hashRecoveryCode('user-a', 'k7pmqx4t2r'));
    expect(a).not.toBe(hashRecoveryCode('user-b', 'k7pmqx4t2r'));
    expect(a).not.toBe(hashRecoveryCode('user-a', 'k7pmqx4t2s'));
    expect(a).not.toContain('k7pmq');
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
