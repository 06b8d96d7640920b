import { ManualClock } from 'tenant-auth-core/testing';
import type { TokenResponseJson } from 'tenant-auth-koa/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, expectProblem, PASSWORD, uniqueEmail } from './helpers/http.js';
import { enrolTotp, totpCode } from './helpers/mfa.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from './helpers/postgres.js';
import { startTestServer, type TestServer } from './helpers/test-server.js';

/*
 * docs/http-api.md, "Rules that change in 1.3": POST /auth/email/change, POST /auth/password/change and
 * DELETE /users/me are recent routes (with mfa in amr for a user who has a factor), and the rotation
 * POST /auth/reauthenticate makes opens no reuse grace, over real HTTP.
 */

const backends = [{ name: 'pglite' }, ...(TEST_DATABASE_URL ? [{ name: 'postgres' }] : [])];

describe.each(backends)('recent account changes on $name', ({ name }) => {
  let server: TestServer;
  let db: TestDatabase | undefined;
  let url: string;
  const clock = new ManualClock(Math.floor(Date.now() / 30_000) * 30_000 + 1000);

  beforeAll(async () => {
    if (name === 'postgres') db = await createTestDatabase(TEST_DATABASE_URL as string);
    server = await startTestServer({ DATABASE_URL: db?.url ?? 'memory:' }, { clock });
    url = server.baseUrl;
  });
  afterAll(async () => {
    await server?.close();
    await db?.drop();
  });

  const calls = (token: string) => [
    () =>
      api(url, '/auth/password/change', {
        token,
        body: { currentPassword: PASSWORD, newPassword: 'Quiet-Orchard-Compass-91' },
      }),
    () =>
      api(url, '/auth/email/change', { token, body: { newEmail: uniqueEmail('new'), password: PASSWORD } }),
    () => api(url, '/users/me', { method: 'DELETE', token, body: { password: PASSWORD } }),
  ];

  it('answers 403 reauthentication_required to a stale session, and takes the change after POST /auth/reauthenticate', async () => {
    const email = uniqueEmail('recent');
    const reg = await api<TokenResponseJson>(url, '/auth/register', { body: { email, password: PASSWORD } });
    clock.advance(601_000);
    for (const call of calls(reg.body.accessToken))
      expectProblem(await call(), 403, 'reauthentication_required');
    const again = await api<TokenResponseJson>(url, '/auth/reauthenticate', {
      token: reg.body.accessToken,
      body: { password: PASSWORD },
    });
    expect(again.status).toBe(200);
    const [, , remove] = calls(again.body.accessToken);
    expect((await (remove as () => Promise<{ status: number }>)()).status).toBe(204);
  });

  it('answers 403 reauthentication_required to a password-only session of a user with a factor', async () => {
    const email = uniqueEmail('recent-mfa');
    const reg = await api<TokenResponseJson>(url, '/auth/register', { body: { email, password: PASSWORD } });
    const { secret } = await enrolTotp(url, reg.body.accessToken, clock.now());
    for (const call of calls(reg.body.accessToken))
      expectProblem(await call(), 403, 'reauthentication_required');
    clock.advance(30_000);
    const strong = await api<TokenResponseJson>(url, '/auth/reauthenticate', {
      token: reg.body.accessToken,
      body: { password: PASSWORD, method: 'totp', code: totpCode(secret, clock.now()) },
    });
    expect(strong.status).toBe(200);
    const [change] = calls(strong.body.accessToken);
    expect((await (change as () => Promise<{ status: number }>)()).status).toBe(204);
  });

  it('gives the refresh token replaced by POST /auth/reauthenticate no reuse grace', async () => {
    const reg = await api<TokenResponseJson>(url, '/auth/register', {
      body: { email: uniqueEmail('grace'), password: PASSWORD },
    });
    const again = await api<TokenResponseJson>(url, '/auth/reauthenticate', {
      token: reg.body.accessToken,
      body: { password: PASSWORD },
    });
    expect(again.status).toBe(200);
    const old = await api(url, '/auth/refresh', { body: { refreshToken: reg.body.refreshToken } });
    expectProblem(old, 401, 'invalid_token');
  });
});
