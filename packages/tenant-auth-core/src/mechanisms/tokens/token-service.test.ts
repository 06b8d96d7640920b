import { generateKeyPairSync } from 'node:crypto';
import { exportJWK, generateKeyPair, type JWTHeaderParameters, SignJWT, UnsecuredJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../testing/manual-clock.js';
import { systemRandom } from '../../vocabulary/clock.js';
import { isTenantAuthError } from '../../vocabulary/errors.js';
import { createTokenService, hashRefreshToken, type TokenServiceOptions } from './token-service.js';

const SECRET = 'a'.repeat(32);
const REFRESH_SECRET = 'b'.repeat(32);
const ids = {
  userId: 'u-1',
  tenantId: 't-1',
  sessionId: 's-1',
  role: 'admin' as const,
  emailVerified: true,
  amr: ['pwd'] as const,
  authTime: new Date(Date.UTC(2026, 0, 1)),
};

function make(overrides: Partial<TokenServiceOptions> = {}) {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const tokens = createTokenService({
    issuer: 'https://auth.test',
    audience: 'test-api',
    accessToken: { secret: SECRET },
    refreshSecret: REFRESH_SECRET,
    accessTokenTtlSeconds: 900,
    refreshTokenTtlSeconds: 604_800,
    clock,
    random: systemRandom,
    ...overrides,
  });
  return { tokens, clock };
}

async function expectInvalid(promise: Promise<unknown>) {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isTenantAuthError(err, 'invalid_token')).toBe(true);
}

/** A token with every claim our verifier wants, signed by whoever the test says, with any header. */
function forge(
  header: JWTHeaderParameters,
  key: Parameters<SignJWT['sign']>[0],
  clock: ManualClock,
  tokenType: 'access' | 'refresh' = 'access',
): Promise<string> {
  return new SignJWT({ tid: 't-1', sid: 's-1', token_type: tokenType })
    .setProtectedHeader(header)
    .setSubject('u-1')
    .setIssuer('https://auth.test')
    .setAudience('test-api')
    .setIssuedAt(clock.now())
    .setExpirationTime('10m')
    .setJti('x')
    .sign(key);
}

const refreshFields = (clock: ManualClock) => ({
  ...ids,
  jti: 'jti-1',
  issuedAt: clock.now(),
  expiresAt: new Date(clock.now().getTime() + 604_800_000),
});

describe('access tokens', () => {
  it('carry user, tenant, session, type, iss, aud, iat, exp (15 min) and jti', async () => {
    const { tokens, clock } = make();
    const { token, claims } = await tokens.signAccessToken(ids);
    const verified = await tokens.verifyAccessToken(token);
    expect(verified).toEqual(claims);
    expect(verified).toMatchObject(ids);
    expect(verified.expiresAt.getTime() - clock.now().getTime()).toBe(900_000);
    const [header, payload] = token
      .split('.')
      .slice(0, 2)
      .map((p) => JSON.parse(Buffer.from(p, 'base64url').toString()));
    expect(header).toEqual({ alg: 'HS256', typ: 'at+jwt' });
    expect(payload).toMatchObject({
      sub: 'u-1',
      tid: 't-1',
      sid: 's-1',
      token_type: 'access',
      iss: 'https://auth.test',
      aud: 'test-api',
    });
    expect(typeof payload.jti).toBe('string');
  });

  it('expire after 15 minutes', async () => {
    const { tokens, clock } = make();
    const { token } = await tokens.signAccessToken(ids);
    clock.advance(899_000);
    await expect(tokens.verifyAccessToken(token)).resolves.toMatchObject(ids);
    clock.advance(1_000);
    await expectInvalid(tokens.verifyAccessToken(token));
  });

  it('reject a refresh token, and a refresh token is not an access token', async () => {
    const { tokens, clock } = make();
    const refresh = await tokens.signRefreshToken(refreshFields(clock));
    await expectInvalid(tokens.verifyAccessToken(refresh));
    const { token: accessToken } = await tokens.signAccessToken(ids);
    await expectInvalid(tokens.verifyRefreshToken(accessToken));
  });

  it('reject a token whose type claim is forged while the typ header is right', async () => {
    const { tokens, clock } = make();
    const forged = await forge({ alg: 'HS256', typ: 'at+jwt' }, Buffer.from(SECRET), clock, 'refresh');
    await expectInvalid(tokens.verifyAccessToken(forged));
  });

  it('reject other issuers, audiences, secrets, alg none and tampering', async () => {
    const { tokens, clock } = make();
    const other = make({ issuer: 'https://evil.test' }).tokens;
    await expectInvalid(tokens.verifyAccessToken((await other.signAccessToken(ids)).token));
    const otherAud = make({ audience: 'other' }).tokens;
    await expectInvalid(tokens.verifyAccessToken((await otherAud.signAccessToken(ids)).token));
    const otherSecret = make({ accessToken: { secret: 'c'.repeat(32) } }).tokens;
    await expectInvalid(tokens.verifyAccessToken((await otherSecret.signAccessToken(ids)).token));
    const none = new UnsecuredJWT({ tid: 't-1', sid: 's-1', token_type: 'access' })
      .setSubject('u-1')
      .setIssuer('https://auth.test')
      .setAudience('test-api')
      .setIssuedAt(clock.now())
      .setExpirationTime('10m')
      .setJti('x')
      .encode();
    await expectInvalid(tokens.verifyAccessToken(none));
    const { token } = await tokens.signAccessToken(ids);
    const [h, p, s] = token.split('.');
    const payload = JSON.parse(Buffer.from(p!, 'base64url').toString());
    payload.tid = 't-2';
    await expectInvalid(
      tokens.verifyAccessToken(`${h}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${s}`),
    );
    await expectInvalid(tokens.verifyAccessToken(''));
    await expectInvalid(tokens.verifyAccessToken('not.a.jwt'));
  });

  it('refuse secrets under 32 bytes and a refresh secret equal to the access secret', () => {
    expect(() => make({ accessToken: { secret: 'short' } })).toThrow(/32 bytes/);
    expect(() => make({ refreshSecret: 'x'.repeat(31) })).toThrow(/32 bytes/);
    expect(() => make({ refreshSecret: SECRET })).toThrow(/differ/);
  });
});

describe('asymmetric access tokens', () => {
  for (const algorithm of ['EdDSA', 'ES256'] as const) {
    it(`${algorithm}: sign, verify, and publish only public keys in the JWKS`, async () => {
      const kp =
        algorithm === 'EdDSA'
          ? generateKeyPairSync('ed25519')
          : generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const { tokens } = make({
        accessToken: {
          algorithm,
          keys: [
            {
              kid: 'k1',
              privateKey: kp.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
              publicKey: kp.publicKey,
            },
          ],
        },
      });
      const { token } = await tokens.signAccessToken(ids);
      expect(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString())).toEqual({
        alg: algorithm,
        typ: 'at+jwt',
        kid: 'k1',
      });
      await expect(tokens.verifyAccessToken(token)).resolves.toMatchObject(ids);
      const jwks = await tokens.jwks();
      expect(jwks.keys).toHaveLength(1);
      expect(jwks.keys[0]).toMatchObject({ kid: 'k1', alg: algorithm, use: 'sig' });
      expect(jwks.keys[0]).not.toHaveProperty('d');
    });
  }

  it('select the verification key by kid among configured keys only', async () => {
    const a = generateKeyPairSync('ed25519');
    const b = generateKeyPairSync('ed25519');
    const signWithA = make({
      accessToken: {
        algorithm: 'EdDSA',
        keys: [{ kid: 'a', privateKey: a.privateKey, publicKey: a.publicKey }],
      },
    }).tokens;
    const verifier = make({
      accessToken: {
        algorithm: 'EdDSA',
        signingKid: 'b',
        keys: [
          { kid: 'a', publicKey: a.publicKey },
          { kid: 'b', privateKey: b.privateKey, publicKey: b.publicKey },
        ],
      },
    }).tokens;
    const { token } = await signWithA.signAccessToken(ids);
    await expect(verifier.verifyAccessToken(token)).resolves.toMatchObject(ids);
    const unknownKid = make({
      accessToken: {
        algorithm: 'EdDSA',
        keys: [{ kid: 'zzz', privateKey: a.privateKey, publicKey: a.publicKey }],
      },
    }).tokens;
    await expectInvalid(verifier.verifyAccessToken((await unknownKid.signAccessToken(ids)).token));
  });

  it('ignore a key embedded in the token header (jwk) and refuse HS256 signed with the public key', async () => {
    const real = generateKeyPairSync('ed25519');
    const { tokens, clock } = make({
      accessToken: {
        algorithm: 'EdDSA',
        keys: [{ kid: 'k', privateKey: real.privateKey, publicKey: real.publicKey }],
      },
    });
    const attacker = await generateKeyPair('EdDSA');
    const embedded = await forge(
      { alg: 'EdDSA', typ: 'at+jwt', kid: 'k', jwk: await exportJWK(attacker.publicKey) },
      attacker.privateKey,
      clock,
    );
    await expectInvalid(tokens.verifyAccessToken(embedded));
    const pem = real.publicKey.export({ type: 'spki', format: 'pem' });
    const confused = await forge({ alg: 'HS256', typ: 'at+jwt', kid: 'k' }, Buffer.from(pem), clock);
    await expectInvalid(tokens.verifyAccessToken(confused));
  });

  it('publish only the public half even when handed a private key as the public one', async () => {
    const kp = generateKeyPairSync('ed25519');
    const { tokens } = make({
      accessToken: {
        algorithm: 'EdDSA',
        keys: [{ kid: 'k', privateKey: kp.privateKey, publicKey: kp.privateKey }],
      },
    });
    const { keys } = await tokens.jwks();
    expect(keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', kid: 'k' });
    expect(keys[0]).not.toHaveProperty('d');
    await expect(tokens.verifyAccessToken((await tokens.signAccessToken(ids)).token)).resolves.toMatchObject(
      ids,
    );
  });

  it('refuse a signing pair whose halves do not belong together', () => {
    const a = generateKeyPairSync('ed25519');
    const b = generateKeyPairSync('ed25519');
    expect(() =>
      make({
        accessToken: {
          algorithm: 'EdDSA',
          keys: [{ kid: 'k', privateKey: a.privateKey, publicKey: b.publicKey }],
        },
      }),
    ).toThrow(/belong together/);
  });

  it('refuse a key of the wrong type for the algorithm', () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    expect(() =>
      make({
        accessToken: {
          algorithm: 'EdDSA',
          keys: [{ kid: 'k', privateKey: ec.privateKey, publicKey: ec.publicKey }],
        },
      }),
    ).toThrow(/Ed25519/);
  });

  it('publish an empty JWKS for HS256', async () => {
    await expect(make().tokens.jwks()).resolves.toEqual({ keys: [] });
  });
});

describe('refresh tokens', () => {
  it('are deterministic: the same fields give the identical token', async () => {
    const { tokens, clock } = make();
    const fields = refreshFields(clock);
    const a = await tokens.signRefreshToken(fields);
    const b = await tokens.signRefreshToken({ ...fields });
    expect(a).toBe(b);
    expect(hashRefreshToken(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(await tokens.signRefreshToken({ ...fields, jti: 'jti-2' })).not.toBe(a);
  });

  it('carry their own typ and claims, and verify with the refresh secret only', async () => {
    const { tokens, clock } = make();
    const token = await tokens.signRefreshToken(refreshFields(clock));
    expect(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString())).toEqual({
      alg: 'HS256',
      typ: 'refresh+jwt',
    });
    const { role: _role, emailVerified: _verified, amr: _amr, authTime: _authTime, ...refreshIds } = ids;
    await expect(tokens.verifyRefreshToken(token)).resolves.toEqual({
      ...refreshIds,
      jti: 'jti-1',
      issuedAt: expect.any(Date),
      expiresAt: expect.any(Date),
    });
    const other = make({ refreshSecret: 'd'.repeat(32) }).tokens;
    await expectInvalid(other.verifyRefreshToken(token));
  });

  it('expire at their exp', async () => {
    const { tokens, clock } = make();
    const token = await tokens.signRefreshToken(refreshFields(clock));
    clock.advance(604_800_000);
    await expectInvalid(tokens.verifyRefreshToken(token));
  });
});

describe('verified access tokens, kept for reuse', () => {
  it('answers a token seen before with the same claims, and stops at its expiry like the first time', async () => {
    const { tokens, clock } = make();
    const { token } = await tokens.signAccessToken(ids);
    const first = await tokens.verifyAccessToken(token);
    const again = await tokens.verifyAccessToken(token);
    expect(again).toEqual(first);
    // A copy each time: a caller changing its claims changes nobody else's.
    again.role = 'owner';
    expect((await tokens.verifyAccessToken(token)).role).toBe('admin');
    clock.advance(15 * 60_000);
    await expectInvalid(tokens.verifyAccessToken(token));
    await expectInvalid(tokens.verifyAccessToken(token));
  });

  it('never answers another token from it, however close', async () => {
    const { tokens } = make();
    const { token } = await tokens.signAccessToken(ids);
    await tokens.verifyAccessToken(token);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), role: 'owner' })).toString('base64url')}.${signature}`;
    await expectInvalid(tokens.verifyAccessToken(forged));
  });
});
