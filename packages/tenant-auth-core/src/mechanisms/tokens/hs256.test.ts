import { createSecretKey } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { signHs256, verifyHs256 } from './hs256.js';

const key = createSecretKey(Buffer.from('hs256-test-secret-0123456789abcdef', 'utf8'));
const other = createSecretKey(Buffer.from('another-test-secret-0123456789abcd', 'utf8'));
const claims = {
  tid: 't-1',
  sid: 's-1',
  token_type: 'refresh',
  sub: 'u-1',
  iss: 'tenant-auth',
  aud: 'tenant-auth',
  iat: 1_800_000_000,
  exp: 1_800_604_800,
  jti: 'j-1',
};
const expected = {
  typ: 'refresh+jwt',
  issuer: 'tenant-auth',
  audience: 'tenant-auth',
  now: 1_800_000_100,
  requiredClaims: ['sub', 'jti', 'iat', 'exp', 'tid', 'sid', 'token_type'],
};
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('HS256 in-process', () => {
  it("writes byte for byte what jose's SignJWT writes, and jose accepts it", async () => {
    const ours = signHs256({ alg: 'HS256', typ: 'refresh+jwt' }, claims, key);
    const jose = await new SignJWT({ tid: 't-1', sid: 's-1', token_type: 'refresh' })
      .setProtectedHeader({ alg: 'HS256', typ: 'refresh+jwt' })
      .setSubject('u-1')
      .setIssuer('tenant-auth')
      .setAudience('tenant-auth')
      .setIssuedAt(claims.iat)
      .setExpirationTime(claims.exp)
      .setJti('j-1')
      .sign(key);
    expect(ours).toBe(jose);
    await expect(
      jwtVerify(ours, key, { currentDate: new Date(expected.now * 1000), typ: 'refresh+jwt' }),
    ).resolves.toMatchObject({ payload: claims });
    expect(verifyHs256(ours, key, expected)).toEqual(claims);
  });

  it('refuses another key, a tampered payload, another typ, extra header parameters and other algorithms', () => {
    const token = signHs256({ alg: 'HS256', typ: 'refresh+jwt' }, claims, key);
    const [h, p, s] = token.split('.') as [string, string, string];
    const refuses = (t: string, e = expected) => expect(() => verifyHs256(t, key, e)).toThrow();
    expect(() => verifyHs256(token, other, expected)).toThrow(/signature/);
    refuses(`${h}.${b64({ ...claims, sub: 'u-2' })}.${s}`);
    refuses(token, { ...expected, typ: 'at+jwt' });
    for (const header of [
      { alg: 'HS256', typ: 'refresh+jwt', crit: ['exp'] },
      { alg: 'HS256', typ: 'refresh+jwt', kid: 'k' },
      { alg: 'HS256', typ: 'refresh+jwt', b64: false },
      { alg: 'none', typ: 'refresh+jwt' },
      { alg: 'HS512', typ: 'refresh+jwt' },
    ]) {
      refuses(signHs256(header as never, claims, key));
    }
    refuses(`${h}.${p}`);
    refuses(`${h}.${p}.${s}.x`);
    refuses(`${b64('text')}.${p}.${s}`);
  });

  it('checks iss, aud (string or list), exp strictly, nbf, iat and the required claims', () => {
    const sign = (payload: Record<string, unknown>) =>
      signHs256({ alg: 'HS256', typ: 'refresh+jwt' }, payload, key);
    expect(() => verifyHs256(sign({ ...claims, iss: 'x' }), key, expected)).toThrow(/iss/);
    expect(() => verifyHs256(sign({ ...claims, aud: 'x' }), key, expected)).toThrow(/aud/);
    expect(verifyHs256(sign({ ...claims, aud: ['x', 'tenant-auth'] }), key, expected)).toBeTruthy();
    expect(() => verifyHs256(sign({ ...claims, exp: expected.now }), key, expected)).toThrow(/expired/);
    expect(() => verifyHs256(sign({ ...claims, exp: '1900000000' }), key, expected)).toThrow(/expired/);
    expect(() => verifyHs256(sign({ ...claims, nbf: expected.now + 1 }), key, expected)).toThrow(/not yet/);
    expect(() => verifyHs256(sign({ ...claims, iat: 'now' }), key, expected)).toThrow(/iat/);
    const { jti: _jti, ...withoutJti } = claims;
    expect(() => verifyHs256(sign(withoutJti), key, expected)).toThrow(/jti/);
  });
});
