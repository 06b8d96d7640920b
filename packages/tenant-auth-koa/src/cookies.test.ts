import { describe, expect, it } from 'vitest';
import { resolveCookieOptions } from './cookies.js';

describe('resolveCookieOptions', () => {
  it('uses the plain names by default and the prefixed names in production', () => {
    expect(resolveCookieOptions({}, '/api/v1', false)).toEqual({
      accessName: 'access_token',
      refreshName: 'refresh_token',
      refreshPath: '/api/v1/auth',
      set: true,
      read: true,
    });
    expect(resolveCookieOptions({}, '/v2', true)).toMatchObject({
      accessName: '__Host-access_token',
      refreshName: '__Secure-refresh_token',
      refreshPath: '/v2/auth',
    });
  });

  it.each([
    ['cookies.accessName', { accessName: 'a;b' }],
    ['cookies.refreshName', { refreshName: 'a b' }],
    ['cookies.refreshPath', { refreshPath: '/x; Domain=evil.example' }],
    ['cookies.refreshPath', { refreshPath: 'relative' }],
  ])('refuses what would break the Set-Cookie header: %s', (option, cookies) => {
    expect(() => resolveCookieOptions(cookies, '/api/v1', false)).toThrow(
      expect.objectContaining({ code: 'invalid_configuration', option }),
    );
  });
});
