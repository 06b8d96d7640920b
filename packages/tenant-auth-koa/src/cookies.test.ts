import { describe, expect, it } from 'vitest';
import { resolveCookieOptions } from './cookies.js';

describe('resolveCookieOptions', () => {
  it('uses the plain names by default and the prefixed names with secureNames', () => {
    expect(resolveCookieOptions()).toEqual({
      accessName: 'access_token',
      refreshName: 'refresh_token',
      refreshPath: '/api/v1/auth',
      set: true,
      read: true,
    });
    expect(resolveCookieOptions({ secureNames: true }, '/v2/')).toMatchObject({
      accessName: '__Host-access_token',
      refreshName: '__Secure-refresh_token',
      refreshPath: '/v2/auth',
    });
  });

  it('refuses names and paths that would break the Set-Cookie header', () => {
    expect(() => resolveCookieOptions({ accessName: 'a;b' })).toThrow(TypeError);
    expect(() => resolveCookieOptions({ refreshName: 'a b' })).toThrow(TypeError);
    expect(() => resolveCookieOptions({ refreshPath: '/x; Domain=evil.example' })).toThrow(TypeError);
    expect(() => resolveCookieOptions({ refreshPath: 'relative' })).toThrow(TypeError);
  });
});
