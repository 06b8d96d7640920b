import type { TokenResponseJson } from 'tenant-auth-koa/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, expectProblem, PASSWORD, setCookies, uniqueEmail } from './helpers/http.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from './helpers/postgres.js';
import { TestInbox } from './helpers/smtp.js';
import { startTestServer, type TestServer } from './helpers/test-server.js';

/*
 * API 1.1, "Account recovery and email verification": every row of the table over real HTTP, with
 * every link read from a message a real SMTP server received, on PGlite and PostgreSQL.
 */

const backends = [{ name: 'pglite' }, ...(TEST_DATABASE_URL ? [{ name: 'postgres' }] : [])];
const NEW_PASSWORD = 'Quiet-Orchard-Compass-91';

type Problem = { status: number; code: string; errors?: { field: string; code: string }[] };

describe.each(backends)('account recovery and email on $name', ({ name }) => {
  let server: TestServer;
  let db: TestDatabase | undefined;
  let inbox: TestInbox;
  let url: string;

  beforeAll(async () => {
    inbox = await new TestInbox().start();
    if (name === 'postgres') db = await createTestDatabase(TEST_DATABASE_URL as string);
    server = await startTestServer({
      DATABASE_URL: db?.url ?? 'memory:',
      SMTP_URL: inbox.url,
      APP_URL: 'https://app.test',
    });
    url = server.baseUrl;
  });
  afterAll(async () => {
    await server?.close();
    await db?.drop();
    await inbox?.stop();
  });

  async function fieldCodes(r: Promise<{ status: number; body: unknown }>) {
    const { status, body } = await r;
    expect(status).toBe(400);
    return ((body as Problem).errors ?? []).map((e) => `${e.field}:${e.code}`);
  }

  /** Registers, and returns the account with the link of its verification email. */
  async function account() {
    const email = uniqueEmail('acct');
    let r: { status: number; body: TokenResponseJson } | undefined;
    const mail = await inbox.receive(email, async () => {
      r = await api<TokenResponseJson>(url, '/auth/register', { body: { email, password: PASSWORD } });
    });
    expect(r?.status).toBe(201);
    const body = r?.body as TokenResponseJson;
    return { ...body, email, token: body.accessToken, verifyToken: TestInbox.tokenOf(mail, '/verify-email') };
  }

  const login = (email: string, password = PASSWORD) =>
    api<TokenResponseJson>(url, '/auth/login', { body: { email, password } });
  const refresh = (refreshToken: string) => api(url, '/auth/refresh', { body: { refreshToken } });

  describe('POST /auth/password/forgot and /reset', () => {
    it('answers 202 {} for a known and an unknown address alike, and mails only the known one', async () => {
      const ada = await account();
      const unknown = uniqueEmail('ghost');
      const known = await inbox.receive(ada.email, async () => {
        const r = await api(url, '/auth/password/forgot', { body: { email: ada.email } });
        expect(r.status).toBe(202);
        expect(r.body).toEqual({});
      });
      const other = await api(url, '/auth/password/forgot', { body: { email: unknown } });
      expect(other.status).toBe(202);
      expect(other.body).toEqual({});
      expect(known.text).toContain('https://app.test/reset-password?token=');
      await server.auth.whenIdle();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(inbox.to(unknown)).toEqual([]);
    });

    it('answers 400 to a malformed body only', async () => {
      expectProblem(
        await api(url, '/auth/password/forgot', { body: { email: 42 } }),
        400,
        'validation_failed',
      );
      expectProblem(
        await api(url, '/auth/password/forgot', {
          rawBody: 'email=a',
          headers: { 'content-type': 'text/plain' },
        }),
        415,
        'unsupported_media_type',
      );
    });

    it('resets (204): every session revoked, email verified, the link single-use', async () => {
      const ada = await account();
      const other = await login(ada.email);
      const token = await inbox.tokenFrom(ada.email, '/reset-password', () =>
        api(url, '/auth/password/forgot', { body: { email: ada.email } }),
      );
      const r = await api(url, '/auth/password/reset', { body: { token, password: NEW_PASSWORD } });
      expect(r.status).toBe(204);
      expectProblem(await refresh(ada.refreshToken), 401, 'invalid_token');
      expectProblem(await refresh(other.body.refreshToken), 401, 'invalid_token');
      expectProblem(await login(ada.email), 401, 'invalid_credentials');
      const again = await login(ada.email, NEW_PASSWORD);
      expect(again.body.user.emailVerified).toBe(true);
      expect(
        await fieldCodes(api(url, '/auth/password/reset', { body: { token, password: `${NEW_PASSWORD}x` } })),
      ).toEqual(['token:invalid_or_expired']);
    });

    it('keeps the old password and the link working when the new password is refused', async () => {
      const ada = await account();
      const token = await inbox.tokenFrom(ada.email, '/reset-password', () =>
        api(url, '/auth/password/forgot', { body: { email: ada.email } }),
      );
      const weak = await fieldCodes(
        api(url, '/auth/password/reset', { body: { token, password: 'password' } }),
      );
      expect(weak.every((c) => c.startsWith('password:'))).toBe(true);
      expect((await login(ada.email)).status).toBe(200);
      expect(
        (await api(url, '/auth/password/reset', { body: { token, password: NEW_PASSWORD } })).status,
      ).toBe(204);
    });

    it('lets exactly one of four concurrent uses of one link succeed', async () => {
      const ada = await account();
      const token = await inbox.tokenFrom(ada.email, '/reset-password', () =>
        api(url, '/auth/password/forgot', { body: { email: ada.email } }),
      );
      const results = await Promise.all(
        ['A', 'B', 'C', 'D'].map((x) =>
          api(url, '/auth/password/reset', { body: { token, password: `${NEW_PASSWORD}${x}` } }),
        ),
      );
      expect(results.map((r) => r.status).sort()).toEqual([204, 400, 400, 400]);
    });
  });

  describe('POST /auth/password/change', () => {
    it('changes (204), keeps the current session and revokes every other', async () => {
      const ada = await account();
      const other = await login(ada.email);
      const r = await api(url, '/auth/password/change', {
        token: ada.token,
        body: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD },
      });
      expect(r.status).toBe(204);
      expect((await refresh(ada.refreshToken)).status).toBe(200);
      expectProblem(await refresh(other.body.refreshToken), 401, 'invalid_token');
      expect((await login(ada.email, NEW_PASSWORD)).status).toBe(200);
    });

    it('answers 400 incorrect to a wrong current password, policy codes to a weak new one, 401 without a token', async () => {
      const ada = await account();
      expect(
        await fieldCodes(
          api(url, '/auth/password/change', {
            token: ada.token,
            body: { currentPassword: 'nope', newPassword: NEW_PASSWORD },
          }),
        ),
      ).toEqual(['currentPassword:incorrect']);
      const weak = await fieldCodes(
        api(url, '/auth/password/change', {
          token: ada.token,
          body: { currentPassword: PASSWORD, newPassword: 'short' },
        }),
      );
      expect(weak).toContain('newPassword:too_short');
      expectProblem(
        await api(url, '/auth/password/change', {
          body: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD },
        }),
        401,
        'invalid_token',
      );
    });
  });

  describe('email verification', () => {
    it('registration mails a link; POST /auth/email/verify marks the address verified (204), once', async () => {
      const ada = await account();
      const r = await api(url, '/auth/email/verify', { body: { token: ada.verifyToken } });
      expect(r.status).toBe(204);
      const refreshed = await api<TokenResponseJson>(url, '/auth/refresh', {
        body: { refreshToken: ada.refreshToken },
      });
      expect(refreshed.body.user.emailVerified).toBe(true);
      expect(await fieldCodes(api(url, '/auth/email/verify', { body: { token: ada.verifyToken } }))).toEqual([
        'token:invalid_or_expired',
      ]);
    });

    it('POST /auth/email/verification sends a new link (202 {}), nothing once verified, 401 without a token', async () => {
      const ada = await account();
      const token = await inbox.tokenFrom(ada.email, '/verify-email', async () => {
        const r = await api(url, '/auth/email/verification', { method: 'POST', token: ada.token });
        expect(r.status).toBe(202);
        expect(r.body).toEqual({});
      });
      expect(token).not.toBe(ada.verifyToken);
      expect((await api(url, '/auth/email/verify', { body: { token } })).status).toBe(204);
      const count = inbox.to(ada.email).length;
      expect((await api(url, '/auth/email/verification', { method: 'POST', token: ada.token })).status).toBe(
        202,
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(inbox.to(ada.email)).toHaveLength(count);
      expectProblem(await api(url, '/auth/email/verification', { method: 'POST' }), 401, 'invalid_token');
    });
  });

  describe('email change', () => {
    it('202 {}: a link to the new address and a notice to the old; confirming (204) swaps and revokes every other session', async () => {
      const ada = await account();
      const other = await login(ada.email);
      const newEmail = uniqueEmail('moved');
      const notice = inbox.waitFor(ada.email, inbox.to(ada.email).length + 1);
      const token = await inbox.tokenFrom(newEmail, '/confirm-email-change', async () => {
        const r = await api(url, '/auth/email/change', {
          token: ada.token,
          body: { newEmail, password: PASSWORD },
        });
        expect(r.status).toBe(202);
        expect(r.body).toEqual({});
      });
      expect((await notice).text).toContain(newEmail);
      expect((await api(url, '/auth/email/change/confirm', { body: { token } })).status).toBe(204);
      expectProblem(await login(ada.email), 401, 'invalid_credentials');
      const moved = await login(newEmail);
      expect(moved.body.user).toMatchObject({ email: newEmail, emailVerified: true });
      expect((await refresh(ada.refreshToken)).status).toBe(200);
      expectProblem(await refresh(other.body.refreshToken), 401, 'invalid_token');
    });

    it('answers invalid_email, email_taken, password incorrect (400) and 401 without a token', async () => {
      const ada = await account();
      const eve = await account();
      const change = (body: unknown, token = ada.token) => api(url, '/auth/email/change', { token, body });
      expect(await fieldCodes(change({ newEmail: 'nope', password: PASSWORD }))).toEqual([
        'newEmail:invalid_email',
      ]);
      expect(await fieldCodes(change({ newEmail: eve.email, password: PASSWORD }))).toEqual([
        'newEmail:email_taken',
      ]);
      expect(await fieldCodes(change({ newEmail: uniqueEmail(), password: 'nope' }))).toEqual([
        'password:incorrect',
      ]);
      expectProblem(
        await api(url, '/auth/email/change', { body: { newEmail: uniqueEmail(), password: PASSWORD } }),
        401,
        'invalid_token',
      );
    });

    it('confirming an address taken meanwhile is 400 email_taken and leaves the old address', async () => {
      const ada = await account();
      const wanted = uniqueEmail('wanted');
      const token = await inbox.tokenFrom(wanted, '/confirm-email-change', () =>
        api(url, '/auth/email/change', { token: ada.token, body: { newEmail: wanted, password: PASSWORD } }),
      );
      expect((await api(url, '/auth/register', { body: { email: wanted, password: PASSWORD } })).status).toBe(
        201,
      );
      expect(await fieldCodes(api(url, '/auth/email/change/confirm', { body: { token } }))).toEqual([
        'token:email_taken',
      ]);
      expect((await login(ada.email)).status).toBe(200);
    });
  });

  describe('DELETE /users/me', () => {
    it('deletes the account and its sessions (204, cookies cleared); the tenant goes with its only member', async () => {
      const ada = await account();
      const r = await api(url, '/users/me', {
        method: 'DELETE',
        token: ada.token,
        body: { password: PASSWORD },
      });
      expect(r.status).toBe(204);
      const cleared = setCookies(r.res);
      expect(cleared.access_token?.attributes['max-age']).toBe('0');
      expectProblem(await refresh(ada.refreshToken), 401, 'invalid_token');
      expectProblem(await login(ada.email), 401, 'invalid_credentials');
      expect(
        (await api(url, '/auth/register', { body: { email: ada.email, password: PASSWORD } })).status,
      ).toBe(201);
    });

    it('answers 400 incorrect, 409 last_owner while others remain, 401 without a token', async () => {
      const ada = await account();
      expect(
        await fieldCodes(
          api(url, '/users/me', { method: 'DELETE', token: ada.token, body: { password: 'nope' } }),
        ),
      ).toEqual(['password:incorrect']);
      // Inviting needs a verified email (API 1.2).
      expect((await api(url, '/auth/email/verify', { body: { token: ada.verifyToken } })).status).toBe(204);
      const email = uniqueEmail('stays');
      const token = await inbox.tokenFrom(email, '/accept-invitation', () =>
        api(url, '/tenants/me/invitations', { token: ada.token, body: { email, role: 'member' } }),
      );
      const bob = await api<TokenResponseJson>(url, '/auth/invitations/accept', {
        body: { token, password: PASSWORD },
      });
      expectProblem(
        await api(url, '/users/me', { method: 'DELETE', token: ada.token, body: { password: PASSWORD } }),
        409,
        'last_owner',
      );
      expect(
        (
          await api(url, '/users/me', {
            method: 'DELETE',
            token: bob.body.accessToken,
            body: { password: PASSWORD },
          })
        ).status,
      ).toBe(204);
      expectProblem(
        await api(url, '/users/me', { method: 'DELETE', body: { password: PASSWORD } }),
        401,
        'invalid_token',
      );
    });
  });

  it('takes the strict budget on every recovery route, and counts wrong current passwords against the account', async () => {
    // A server of its own with tight budgets: the shared one above is generous on purpose.
    const tight = await startTestServer({
      DATABASE_URL: 'memory:',
      SMTP_URL: inbox.url,
      RATE_LIMIT_AUTH_MAX: '3',
      LOGIN_FAILURES_PER_ACCOUNT: '2',
    });
    try {
      const strict = async (path: string, body: unknown) => {
        const statuses: number[] = [];
        for (let i = 0; i < 4; i++) statuses.push((await api(tight.baseUrl, path, { body })).status);
        return statuses;
      };
      expect(await strict('/auth/password/forgot', { email: uniqueEmail() })).toEqual([202, 202, 202, 429]);
      const r = await api(tight.baseUrl, '/auth/password/reset', { body: { token: 'x', password: 'y' } });
      expect(r.status).toBe(429);
      expect(r.headers.get('ratelimit-remaining')).toBe('0');
    } finally {
      await tight.close();
    }
    const perAccount = await startTestServer({
      DATABASE_URL: 'memory:',
      SMTP_URL: inbox.url,
      LOGIN_FAILURES_PER_ACCOUNT: '2',
    });
    try {
      const email = uniqueEmail('guarded');
      const reg = await api<TokenResponseJson>(perAccount.baseUrl, '/auth/register', {
        body: { email, password: PASSWORD },
      });
      const change = () =>
        api<Problem>(perAccount.baseUrl, '/auth/password/change', {
          token: reg.body.accessToken,
          body: { currentPassword: 'wrong-guess', newPassword: NEW_PASSWORD },
        });
      expect((await change()).status).toBe(400);
      expect((await change()).status).toBe(400);
      const third = await change();
      expect(third.status).toBe(429);
      expect(third.headers.get('ratelimit-remaining')).toBe('0');
      expect(
        (await api(perAccount.baseUrl, '/auth/login', { body: { email, password: PASSWORD } })).status,
      ).toBe(429);
    } finally {
      await perAccount.close();
    }
  });
});
