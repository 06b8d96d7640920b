import { describe, expect, it } from 'vitest';
import { isUnderPrefix } from './prefix.js';

describe('isUnderPrefix', () => {
  it('takes the prefix itself and what is below it, and nothing that only starts like it', () => {
    expect(isUnderPrefix('/api/v1', '/api/v1')).toBe(true);
    expect(isUnderPrefix('/api/v1/', '/api/v1')).toBe(true);
    expect(isUnderPrefix('/api/v1/health', '/api/v1')).toBe(true);
    expect(isUnderPrefix('/api/v1x', '/api/v1')).toBe(false);
    expect(isUnderPrefix('/api/v10/health', '/api/v1')).toBe(false);
    expect(isUnderPrefix('/api', '/api/v1')).toBe(false);
    expect(isUnderPrefix('/API/V1/health', '/api/v1')).toBe(false);
  });

  it('takes every path with the empty prefix, one without a leading slash too (OPTIONS *)', () => {
    for (const path of ['/', '/anything', '*', '']) expect(isUnderPrefix(path, '')).toBe(true);
  });
});
