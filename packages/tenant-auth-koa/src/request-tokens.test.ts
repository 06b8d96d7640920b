import type { Context } from 'koa';
import { describe, expect, it } from 'vitest';
import { readBearerToken } from './request-tokens.js';

/** A request's context, as far as readBearerToken reads it; its header can change (a middleware's rewrite). */
function request(authorization: string | undefined) {
  const headers = { authorization };
  const ctx = {
    get: (name: string) => (name === 'authorization' ? (headers.authorization ?? '') : ''),
  } as unknown as Context;
  return { ctx, headers };
}

describe('readBearerToken', () => {
  const token = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl';

  it('answers each header by its own text', () => {
    const cases: [string | undefined, string | null | undefined][] = [
      [`Bearer ${token}`, token],
      [`Bearer ${token} x`, null],
      ['Basic dXNlcjpwYXNz', null],
      [undefined, undefined],
      [`bearer   ${token}  `, token],
      [`Bearer ${'a'.repeat(20_000)}`, null],
    ];
    for (const [header, expected] of cases) expect(readBearerToken(request(header).ctx)).toBe(expected);
  });

  it("answers a request's header again as it is now, not as it was read before", () => {
    const { ctx, headers } = request(`Bearer ${token}`);
    expect(readBearerToken(ctx)).toBe(token);
    expect(readBearerToken(ctx)).toBe(token);
    headers.authorization = 'Bearer not a token';
    expect(readBearerToken(ctx)).toBeNull();
    headers.authorization = undefined;
    expect(readBearerToken(ctx)).toBeUndefined();
    headers.authorization = `Bearer ${token}`;
    expect(readBearerToken(ctx)).toBe(token);
  });
});
