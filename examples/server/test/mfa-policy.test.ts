import { ManualClock } from 'tenant-auth-core/testing';
import type { TokenResponseJson } from 'tenant-auth-koa/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, expectProblem, PASSWORD, setCookies, uniqueEmail } from './helpers/http.js';
import { type ConfirmedJson, enrolTotp, type MfaProblem, passwordStep, totpCode } from './helpers/mfa.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from './helpers/postgres.js';
import { TestInbox } from './helpers/smtp.js';
import { startTestServer, type TestServer } from './helpers/test-server.js';

/*
 * API 1.2, "Tenant security policy": a tenant that requires a second factor, over real HTTP on PGlite
 * and PostgreSQL, with the invitation and verification emails read from a real SMTP server.
 */

const backends = [{ name: 'pglite' }, ...(TEST_DATABASE_URL ? [{ name: 'postgres' }] : [])];

describe.each(backends)('requireMfa on $name', ({ name }) => {
  let server: TestServer;
  let db: TestDatabase | undefined;
  let inbox: TestInbox;
  let url: string;
  const clock = new ManualClock(Math.floor(Date.now() / 30_000) * 30_000 + 1000);

  beforeAll(async () => {
    inbox = await new TestInbox().start();
    if (name === 'postgres') db = await createTestDatabase(TEST_DATABASE_URL as string);
    server = await startTestServer(
      { DATABASE_URL: db?.url ?? 'memory:', SMTP_URL: inbox.url, APP_URL: 'https://app.test' },
      { clock },
    );
    url = server.baseUrl;
  });
  afterAll(async () => {
    await server?.close();
    await db?.drop();
    await inbox?.stop();
  });

  /** An owner with a verified address (inviting needs it). */
  async function owner() {
    const email = uniqueEmail('owner');
    let reg: { status: number; body: TokenResponseJson } | undefined;
    const verifyToken = await inbox.tokenFrom(email, '/verify-email', async () => {
      reg = await api<TokenResponseJson>(url, '/auth/register', { body: { email, password: PASSWORD } });
    });
    expect((await api(url, '/auth/email/verify', { body: { token: verifyToken } })).status).toBe(204);
    const body = reg?.body as TokenResponseJson;
    return { email, token: body.accessToken, refreshToken: body.refreshToken };
  }

  /** Invites `email` as a member; returns the invitation token from the email. */
  async function invitation(ownerToken: string, email: string): Promise<string> {
    return inbox.tokenFrom(email, '/accept-invitation', async () => {
      const r = await api(url, '/tenants/me/invitations', {
        token: ownerToken,
        body: { email, role: 'member' },
      });
      expect(r.status).toBe(201);
    });
  }

  it('needs an owner with a factor and a recent two-factor session, then revokes the sessions without mfa', async () => {
    const boss = await owner();
    const memberEmail = uniqueEmail('member');
    const joined = await api<TokenResponseJson>(url, '/auth/invitations/accept', {
      body: { token: await invitation(boss.token, memberEmail), password: PASSWORD },
    });
    expect(joined.status).toBe(201);

    expect(await api(url, '/tenants/me/security', { token: boss.token })).toMatchObject({
      status: 200,
      body: { requireMfa: false },
    });
    // The owner has no factor yet.
    expectProblem(
      await api(url, '/tenants/me/security', {
        method: 'PATCH',
        token: boss.token,
        body: { requireMfa: true },
      }),
      409,
      'mfa_not_enabled',
    );
    // A member is not the owner.
    expectProblem(
      await api(url, '/tenants/me/security', {
        method: 'PATCH',
        token: joined.body.accessToken,
        body: { requireMfa: true },
      }),
      403,
      'forbidden',
    );
    const { secret } = await enrolTotp(url, boss.token, clock.now());
    // Password-only session: not recent enough for a user with a factor.
    expectProblem(
      await api(url, '/tenants/me/security', {
        method: 'PATCH',
        token: boss.token,
        body: { requireMfa: true },
      }),
      403,
      'reauthentication_required',
    );
    clock.advance(30_000);
    const strong = await api<TokenResponseJson>(url, '/auth/mfa/verify', {
      body: {
        mfaToken: await passwordStep(url, boss.email),
        method: 'totp',
        code: totpCode(secret, clock.now()),
      },
    });
    expect(strong.status).toBe(200);
    const turnedOn = await api(url, '/tenants/me/security', {
      method: 'PATCH',
      token: strong.body.accessToken,
      body: { requireMfa: true },
    });
    expect(turnedOn).toMatchObject({ status: 200, body: { requireMfa: true } });

    // The member's and the owner's password-only sessions are revoked; the two-factor one stays.
    for (const refreshToken of [joined.body.refreshToken, boss.refreshToken]) {
      expectProblem(await api(url, '/auth/refresh', { body: { refreshToken } }), 401, 'invalid_token');
    }
    expect(
      (await api(url, '/auth/refresh', { body: { refreshToken: strong.body.refreshToken } })).status,
    ).toBe(200);

    // The member logs in: mfa_setup_required, no cookie; enrols with the mfaToken and gets a session.
    const login = await api<MfaProblem>(url, '/auth/login', {
      body: { email: memberEmail, password: PASSWORD },
    });
    expectProblem(login, 401, 'mfa_setup_required');
    expect(login.body.expiresIn).toBe(300);
    expect(login.body).not.toHaveProperty('methods');
    expect(setCookies(login.res)).toEqual({});
    const setup = await api<{ secret: string; otpauthUri: string }>(url, '/auth/mfa/totp/setup', {
      body: { mfaToken: login.body.mfaToken },
    });
    expect(setup.status).toBe(200);
    expect(setup.body.otpauthUri).toMatch(/^otpauth:\/\/totp\/tenant-auth:/);
    const confirmed = await api<ConfirmedJson>(url, '/auth/mfa/totp/confirm', {
      body: { mfaToken: login.body.mfaToken, code: totpCode(setup.body.secret, clock.now()) },
    });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.recoveryCodes).toHaveLength(10);
    expect(confirmed.body.session.amr).toEqual(['pwd', 'otp', 'mfa']);
    expect(Object.keys(setCookies(confirmed.res)).sort()).toEqual(['access_token', 'refresh_token']);
    // The setup token served its purpose.
    expectProblem(
      await api(url, '/auth/mfa/totp/setup', { body: { mfaToken: login.body.mfaToken } }),
      401,
      'invalid_token',
    );
    // The last factor of a user of such a tenant cannot go.
    clock.advance(30_000);
    const re = await api<TokenResponseJson>(url, '/auth/reauthenticate', {
      token: confirmed.body.accessToken,
      body: { password: PASSWORD, method: 'totp', code: totpCode(setup.body.secret, clock.now()) },
    });
    expect(re.status).toBe(200);
    expectProblem(
      await api(url, '/auth/mfa/totp', { method: 'DELETE', token: re.body.accessToken }),
      409,
      'mfa_required_by_tenant',
    );
  });

  it('answers the acceptance of an invitation into such a tenant 401 mfa_setup_required, the account created', async () => {
    const boss = await owner();
    const { secret } = await enrolTotp(url, boss.token, clock.now());
    clock.advance(30_000);
    const strong = await api<TokenResponseJson>(url, '/auth/mfa/verify', {
      body: {
        mfaToken: await passwordStep(url, boss.email),
        method: 'totp',
        code: totpCode(secret, clock.now()),
      },
    });
    const email = uniqueEmail('invited');
    const token = await invitation(strong.body.accessToken, email);
    expect(
      (
        await api(url, '/tenants/me/security', {
          method: 'PATCH',
          token: strong.body.accessToken,
          body: { requireMfa: true },
        })
      ).status,
    ).toBe(200);
    const accepted = await api<MfaProblem>(url, '/auth/invitations/accept', {
      body: { token, password: PASSWORD },
    });
    expectProblem(accepted, 401, 'mfa_setup_required');
    expect(accepted.body.mfaToken).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    expect(setCookies(accepted.res)).toEqual({});
    // The account exists: its password leads to the same enrolment.
    const login = await api<MfaProblem>(url, '/auth/login', { body: { email, password: PASSWORD } });
    expectProblem(login, 401, 'mfa_setup_required');
  });

  it('enrols with one setup mfaToken only: the others are void once a factor is on (docs/http-api.md, "Rules that change in 1.3")', async () => {
    const boss = await owner();
    const { secret } = await enrolTotp(url, boss.token, clock.now());
    clock.advance(30_000);
    const strong = await api<TokenResponseJson>(url, '/auth/mfa/verify', {
      body: {
        mfaToken: await passwordStep(url, boss.email),
        method: 'totp',
        code: totpCode(secret, clock.now()),
      },
    });
    const email = uniqueEmail('enrol');
    const token = await invitation(strong.body.accessToken, email);
    const policy = await api(url, '/tenants/me/security', {
      method: 'PATCH',
      token: strong.body.accessToken,
      body: { requireMfa: true },
    });
    expect(policy.status).toBe(200);
    const first = await api<MfaProblem>(url, '/auth/invitations/accept', {
      body: { token, password: PASSWORD },
    });
    const second = await api<MfaProblem>(url, '/auth/login', { body: { email, password: PASSWORD } });
    expectProblem(second, 401, 'mfa_setup_required');
    const setup = await api<{ secret: string }>(url, '/auth/mfa/totp/setup', {
      body: { mfaToken: first.body.mfaToken },
    });
    const confirmed = await api(url, '/auth/mfa/totp/confirm', {
      body: { mfaToken: first.body.mfaToken, code: totpCode(setup.body.secret, clock.now()) },
    });
    expect(confirmed.status).toBe(200);
    for (const path of ['/auth/mfa/totp/setup', '/auth/passkeys/registration/options'])
      expectProblem(await api(url, path, { body: { mfaToken: second.body.mfaToken } }), 401, 'invalid_token');
  });
});
