import type { Context } from 'koa';
import { describe, expect, it } from 'vitest';
import { readBearerToken } from './request-tokens.js';

const withHeader = (authorization: string | undefined) =>
  ({ get: (name: string) => (name === 'authorization' ? (authorization ?? '') : '') }) as unknown as Context;

describe('readBearerToken', () => {
  it('answers each header by its own text, whichever was read before it', () => {
    const token = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl';
    // The last header's answer is kept; every other header is read afresh, in any order.
    const sequence: [string | undefined, string | null | undefined][] = [
      [`Bearer ${token}`, token],
      [`Bearer ${token}`, token],
      [`Bearer ${token} x`, null],
      [`Bearer ${token}`, token],
      ['Basic dXNlcjpwYXNz', null],
      ['Basic dXNlcjpwYXNz', null],
      [undefined, undefined],
      [`bearer   ${token}  `, token],
      [`Bearer ${'a'.repeat(20_000)}`, null],
      [`Bearer ${token}`, token],
    ];
    for (const [header, expected] of sequence) expect(readBearerToken(withHeader(header))).toBe(expected);
  });
});
