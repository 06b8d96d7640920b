import { describe, expect, it } from 'vitest';
import { originProblem, originSet, requestOrigin } from './origins.js';

describe('originProblem', () => {
  it('accepts exact origins', () => {
    expect(originProblem('https://app.example.com')).toBeNull();
    expect(originProblem('http://localhost:5173')).toBeNull();
  });

  it.each([
    '*',
    'null',
    'NULL',
    '',
    'https://*.example.com',
    'https://app.example.com/path',
    'https://app.example.com/',
    'https://App.Example.com',
    'ftp://files.example.com',
    'app.example.com',
    'https://app.example.com:443',
  ])('refuses %j with a message', (origin) => {
    expect(originProblem(origin)).toEqual(expect.any(String));
  });

  it('suggests the origin a near miss meant', () => {
    expect(originProblem('https://app.example.com/')).toMatch(/did you mean https:\/\/app\.example\.com\?/);
  });
});

describe('originSet', () => {
  it('throws invalid_configuration naming the option', () => {
    expect(() => originSet(['https://ok.example', '*'], 'origins')).toThrow(
      expect.objectContaining({ code: 'invalid_configuration', option: 'origins' }),
    );
    expect([...originSet(['https://ok.example'], 'origins')]).toEqual(['https://ok.example']);
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
