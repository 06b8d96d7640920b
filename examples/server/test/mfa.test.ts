import { ManualClock } from 'tenant-auth-core/testing';
import type { TokenResponseJson } from 'tenant-auth-koa/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, expectProblem, PASSWORD, setCookies, uniqueEmail } from './helpers/http.js';
import { claimsOf, enrolTotp, type MfaProblem, passwordStep, totpCode } from './helpers/mfa.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from './helpers/postgres.js';
import { startTestServer, type TestServer } from './helpers/test-server.js';

/*
 * API 1.2, "Second factor" and "Recent authentication", over real HTTP on PGlite and PostgreSQL: the
 * threats of issue 29 (a replayed code, a recovery code or mfaToken used twice at once, a login that
 * leaves a session or a cookie behind, a refresh that upgrades a session, a stale session removing the
 * factor, a stranger locking the owner out, wrong codes spending the password throttle).
 */

const backends = [{ name: 'pglite' }, ...(TEST_DATABASE_URL ? [{ name: 'postgres' }] : [])];

describe.each(backends)('the second factor on $name', ({ name }) => {
  let server: TestServer;
  let db: TestDatabase | undefined;
  let url: string;
  // On a step boundary, so that a code stays the same until the test moves the clock by 30 s.
  const clock = new ManualClock(Math.floor(Date.now() / 30_000) * 30_000 + 1000);

  beforeAll(async () => {
    if (name === 'postgres') db = await createTestDatabase(TEST_DATABASE_URL as string);
    server = await startTestServer(
      {
        DATABASE_URL: db?.url ?? 'memory:',
        TRUST_PROXY: '1',
        LOGIN_FAILURES_PER_ACCOUNT: '3',
        MFA_FAILURES_PER_ACCOUNT: '4',
      },
      { clock },
    );
    url = server.baseUrl;
  });
  afterAll(async () => {
    await server?.close();
    await db?.drop();
  });

  let network = 0;
  /** A client address of a network of its own (a /24), as a proxy in front would forward it. */
  const freshNetwork = () => {
    network += 1;
    return { 'x-forwarded-for': `10.${Math.floor(network / 250)}.${network % 250}.7` };
  };

  /** A registered user with a confirmed TOTP factor; `token` is the registration's (password-only) session. */
  async function userWithTotp() {
    const email = uniqueEmail('mfa');
    const headers = freshNetwork();
    const reg = await api<TokenResponseJson>(url, '/auth/register', {
      body: { email, password: PASSWORD },
      headers,
    });
    expect(reg.status).toBe(201);
    expect(reg.body.session.amr).toEqual(['pwd']);
    const enrolled = await enrolTotp(url, reg.body.accessToken, clock.now());
    return { email, headers, token: reg.body.accessToken, refreshToken: reg.body.refreshToken, ...enrolled };
  }

  /** Moves the clock to the next TOTP step (a new code). */
  const nextStep = () => clock.advance(30_000);

  async function verify(mfaToken: string, method: 'totp' | 'recovery_code', code: string, headers = {}) {
    return api<TokenResponseJson>(url, '/auth/mfa/verify', { body: { mfaToken, method, code }, headers });
  }

  it('answers a right password of a user with a factor 401 mfa_required: no session, no cookie, no token', async () => {
    const user = await userWithTotp();
    const before = await api<{ sessions: unknown[] }>(url, '/sessions', { token: user.token });
    const r = await api<MfaProblem>(url, '/auth/login', {
      body: { email: user.email, password: PASSWORD },
      headers: user.headers,
    });
    expectProblem(r, 401, 'mfa_required');
    expect(r.body.methods).toContain('totp');
    expect(r.body.expiresIn).toBe(300);
    expect(r.body.mfaToken).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    expect(setCookies(r.res)).toEqual({});
    expect(r.body).not.toHaveProperty('accessToken');
    const after = await api<{ sessions: unknown[] }>(url, '/sessions', { token: user.token });
    expect(after.body.sessions).toHaveLength(before.body.sessions.length);

    nextStep();
    const done = await verify(r.body.mfaToken, 'totp', totpCode(user.secret, clock.now()), user.headers);
    expect(done.status).toBe(200);
    expect(done.body.session.amr).toEqual(['pwd', 'otp', 'mfa']);
    expect(claimsOf(done.body.accessToken).amr).toEqual(['pwd', 'otp', 'mfa']);
    expect(Object.keys(setCookies(done.res)).sort()).toEqual(['access_token', 'refresh_token']);
  });

  it('refuses a TOTP code replayed within its window, and takes the next one', async () => {
    const user = await userWithTotp();
    nextStep();
    const code = totpCode(user.secret, clock.now());
    const first = await verify(await passwordStep(url, user.email, user.headers), 'totp', code, user.headers);
    expect(first.status).toBe(200);
    const replay = await verify(
      await passwordStep(url, user.email, user.headers),
      'totp',
      code,
      user.headers,
    );
    expectProblem(replay, 400, 'validation_failed');
    expect(replay.body).toMatchObject({ errors: [{ field: 'code', code: 'incorrect' }] });
    // Still refused 20 s later (the same step, and the drift window still holds it).
    clock.advance(20_000);
    const late = await verify(await passwordStep(url, user.email, user.headers), 'totp', code, user.headers);
    expectProblem(late, 400, 'validation_failed');
    nextStep();
    const next = await verify(
      await passwordStep(url, user.email, user.headers),
      'totp',
      totpCode(user.secret, clock.now()),
      user.headers,
    );
    expect(next.status).toBe(200);
  });

  it('lets exactly one of two concurrent uses of one recovery code through', async () => {
    const user = await userWithTotp();
    const [a, b] = [
      await passwordStep(url, user.email, user.headers),
      await passwordStep(url, user.email, user.headers),
    ];
    const code = user.recoveryCodes[0] as string;
    const answers = await Promise.all([
      verify(a, 'recovery_code', code, user.headers),
      verify(b, 'recovery_code', code.toUpperCase(), user.headers),
    ]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 400]);
    const me = await api<{ mfa: { recoveryCodesRemaining: number } }>(url, '/users/me', {
      token: answers.find((r) => r.status === 200)?.body.accessToken as string,
    });
    expect(me.body.mfa).toEqual({ totp: true, passkeys: 0, recoveryCodesRemaining: 9 });
  });

  it('lets exactly one of two concurrent uses of one mfaToken through', async () => {
    const user = await userWithTotp();
    const mfaToken = await passwordStep(url, user.email, user.headers);
    const answers = await Promise.all([
      verify(mfaToken, 'recovery_code', user.recoveryCodes[1] as string, user.headers),
      verify(mfaToken, 'recovery_code', user.recoveryCodes[2] as string, user.headers),
    ]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 401]);
    expectProblem(answers.find((r) => r.status === 401) as (typeof answers)[number], 401, 'invalid_token');
    // And once used, it is spent for good.
    expectProblem(
      await verify(mfaToken, 'recovery_code', user.recoveryCodes[3] as string, user.headers),
      401,
      'invalid_token',
    );
  });

  it('never adds mfa to a session by refreshing it, whatever the user did since', async () => {
    const user = await userWithTotp();
    // The user signs in with both factors elsewhere; the registration's session stays password-only.
    nextStep();
    const strong = await verify(
      await passwordStep(url, user.email, user.headers),
      'totp',
      totpCode(user.secret, clock.now()),
      user.headers,
    );
    expect(strong.status).toBe(200);
    const refreshed = await api<TokenResponseJson>(url, '/auth/refresh', {
      body: { refreshToken: user.refreshToken },
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.session.amr).toEqual(['pwd']);
    expect(claimsOf(refreshed.body.accessToken).amr).toEqual(['pwd']);
    // The strong session keeps what it proved, and its auth_time, through a refresh.
    clock.advance(60_000);
    const again = await api<TokenResponseJson>(url, '/auth/refresh', {
      body: { refreshToken: strong.body.refreshToken },
    });
    expect(again.body.session.amr).toEqual(['pwd', 'otp', 'mfa']);
    expect(again.body.session.authTime).toBe(strong.body.session.authTime);
  });

  it('answers 403 reauthentication_required to removing the factor or new codes from a password-only or stale session', async () => {
    const user = await userWithTotp();
    // Password-only (the registration's session, though recent).
    expectProblem(
      await api(url, '/auth/mfa/totp', { method: 'DELETE', token: user.token }),
      403,
      'reauthentication_required',
    );
    expectProblem(
      await api(url, '/auth/mfa/recovery-codes', { method: 'POST', token: user.token }),
      403,
      'reauthentication_required',
    );
    // Both factors, but 601 s ago (the access token itself is still valid: 900 s).
    nextStep();
    const strong = await verify(
      await passwordStep(url, user.email, user.headers),
      'totp',
      totpCode(user.secret, clock.now()),
      user.headers,
    );
    clock.advance(601_000);
    for (const [method, path] of [
      ['DELETE', '/auth/mfa/totp'],
      ['POST', '/auth/mfa/recovery-codes'],
    ] as const) {
      expectProblem(
        await api(url, path, { method, token: strong.body.accessToken }),
        403,
        'reauthentication_required',
      );
    }
    // A password alone does not make it recent for a user with a factor; password and code do.
    const weak = await api(url, '/auth/reauthenticate', {
      token: strong.body.accessToken,
      body: { password: PASSWORD },
    });
    expect(weak.status).toBe(400);
    nextStep();
    const re = await api<TokenResponseJson>(url, '/auth/reauthenticate', {
      token: strong.body.accessToken,
      body: { password: PASSWORD, method: 'totp', code: totpCode(user.secret, clock.now()) },
    });
    expect(re.status).toBe(200);
    expect(re.body.session.id).toBe(strong.body.session.id);
    expect(re.body.session.amr).toEqual(['pwd', 'otp', 'mfa']);
    expect(Date.parse(re.body.session.authTime)).toBe(Math.floor(clock.now().getTime() / 1000) * 1000);
    const codes = await api<{ recoveryCodes: string[] }>(url, '/auth/mfa/recovery-codes', {
      method: 'POST',
      token: re.body.accessToken,
    });
    expect(codes.status).toBe(200);
    expect(codes.body.recoveryCodes).toHaveLength(10);
    expect(codes.body.recoveryCodes).not.toContain(user.recoveryCodes[0]);
    expect((await api(url, '/auth/mfa/totp', { method: 'DELETE', token: re.body.accessToken })).status).toBe(
      204,
    );
    // No factor any more: the password alone logs in again.
    const plain = await api<TokenResponseJson>(url, '/auth/login', {
      body: { email: user.email, password: PASSWORD },
      headers: user.headers,
    });
    expect(plain.status).toBe(200);
    expect(plain.body.session.amr).toEqual(['pwd']);
  });

  it('does not let wrong codes from one network lock the owner out from another, nor spend the password throttle', async () => {
    const user = await userWithTotp();
    const stranger = freshNetwork();
    // MFA_FAILURES_PER_ACCOUNT=4 per account and network; LOGIN_FAILURES_PER_ACCOUNT=3.
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      const mfaToken = await passwordStep(url, user.email, stranger);
      statuses.push((await verify(mfaToken, 'totp', '000000', stranger)).status);
    }
    expect(statuses.slice(0, 4)).toEqual([400, 400, 400, 400]);
    expect(statuses.slice(4)).toEqual([429, 429]);
    // Six wrong codes, and the password (right every time) is still accepted from that network:
    // the password throttle (3) counted none of them.
    await passwordStep(url, user.email, stranger);
    // The owner, from their own network, is not locked out.
    nextStep();
    const owner = await verify(
      await passwordStep(url, user.email, user.headers),
      'totp',
      totpCode(user.secret, clock.now()),
      user.headers,
    );
    expect(owner.status).toBe(200);
  });

  it('ends an mfaToken after five wrong answers', async () => {
    const user = await userWithTotp();
    const headers = freshNetwork();
    const mfaToken = await passwordStep(url, user.email, headers);
    // A fresh network for each answer, so the per-network MFA budget (4) is not what refuses.
    for (let i = 0; i < 5; i += 1) {
      expect((await verify(mfaToken, 'totp', '000000', freshNetwork())).status).toBe(400);
    }
    nextStep();
    expectProblem(
      await verify(mfaToken, 'totp', totpCode(user.secret, clock.now()), freshNetwork()),
      401,
      'invalid_token',
    );
  });

  it('states the factor state in GET /users/me, and refuses a new setup to a password-only session once a factor is on', async () => {
    const email = uniqueEmail('me');
    const reg = await api<TokenResponseJson>(url, '/auth/register', { body: { email, password: PASSWORD } });
    const me = await api<Record<string, unknown>>(url, '/users/me', { token: reg.body.accessToken });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      id: reg.body.user.id,
      email,
      tenantId: reg.body.user.tenantId,
      role: 'owner',
      emailVerified: false,
      mfa: { totp: false, passkeys: 0, recoveryCodesRemaining: 0 },
    });
    await enrolTotp(url, reg.body.accessToken, clock.now());
    // The registration's session is password-only, and the user now has a factor: not recent enough.
    expectProblem(
      await api(url, '/auth/mfa/totp/setup', { method: 'POST', token: reg.body.accessToken }),
      403,
      'reauthentication_required',
    );
  });
});
