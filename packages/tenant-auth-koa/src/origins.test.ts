import { describe, expect, it } from 'vitest';
import { normalizeOrigins, requestOrigin } from './origins.js';

describe('normalizeOrigins', () => {
  it('keeps exact origins, lower-casing the host and dropping a trailing slash', () => {
    expect([...normalizeOrigins(['https://App.Example.com/', 'http://localhost:5173'])]).toEqual([
      'https://app.example.com',
      'http://localhost:5173',
    ]);
  });

  it.each([
    '*',
    'null',
    'NULL',
    '',
    'https://*.example.com',
    'https://app.example.com/path',
    'ftp://files.example.com',
    'app.example.com',
    'https://app.example.com:443',
  ])('refuses %j', (origin) => {
    expect(() => normalizeOrigins([origin])).toThrow(TypeError);
  });
});

describe('requestOrigin', () => {
  it('prefers Origin, falls back to the origin of Referer, and ignores unusable referers', () => {
    expect(requestOrigin('https://a.example', 'https://b.example/x')).toBe('https://a.example');
    expect(requestOrigin(undefined, 'https://b.example/x?y=1#z')).toBe('https://b.example');
    expect(requestOrigin(undefined, 'not a url')).toBeUndefined();
    expect(requestOrigin(undefined, 'javascript:alert(1)')).toBeUndefined();
    expect(requestOrigin(undefined, undefined)).toBeUndefined();
    expect(requestOrigin('null', undefined)).toBe('null');
  });
});
