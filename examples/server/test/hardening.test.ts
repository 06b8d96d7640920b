import type { TokenResponseJson } from 'tenant-auth-koa/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, expectProblem, PASSWORD, uniqueEmail } from './helpers/http.js';
import { TestInbox } from './helpers/smtp.js';
import { startTestServer, type TestServer } from './helpers/test-server.js';

/*
 * API 1.2, "Errors added in 1.2" and "Rules that change in 1.2", over real HTTP (PGlite; the rules live in
 * core, the same on PostgreSQL): the hardening of issue 28.
 */
describe('API 1.2 hardening over HTTP', () => {
  let server: TestServer;
  let inbox: TestInbox;
  let url: string;

  beforeAll(async () => {
    inbox = await new TestInbox().start();
    server = await startTestServer({ SMTP_URL: inbox.url, APP_URL: 'https://app.test' });
    url = server.baseUrl;
  });
  afterAll(async () => {
    await server?.close();
    await inbox?.stop();
  });

  /** Registers an owner and verifies its address through the link registration sent. */
  async function verifiedOwner() {
    const email = uniqueEmail('owner');
    let registered: TokenResponseJson | undefined;
    const token = await inbox.tokenFrom(email, '/verify-email', async () => {
      const r = await api<TokenResponseJson>(url, '/auth/register', { body: { email, password: PASSWORD } });
      expect(r.status).toBe(201);
      registered = r.body;
    });
    expect((await api(url, '/auth/email/verify', { body: { token } })).status).toBe(204);
    return { email, token: (registered as TokenResponseJson).accessToken };
  }

  it('after "sign out everywhere", the old access token creating an owner invitation gets 401 invalid_token', async () => {
    const ada = await verifiedOwner();
    const laptop = await api<TokenResponseJson>(url, '/auth/login', {
      body: { email: ada.email, password: PASSWORD },
    });
    expect(laptop.status).toBe(200);
    // Before: the first session's token may invite.
    const before = await api(url, '/tenants/me/invitations', {
      token: ada.token,
      body: { email: uniqueEmail('friend'), role: 'member' },
    });
    expect(before.status).toBe(201);

    const out = await api<{ revoked: number }>(url, '/sessions', {
      method: 'DELETE',
      token: laptop.body.accessToken,
    });
    expect(out.status).toBe(200);

    const invite = await api(url, '/tenants/me/invitations', {
      token: ada.token,
      body: { email: uniqueEmail('mallory'), role: 'owner' },
    });
    expectProblem(invite, 401, 'invalid_token');
    expectProblem(await api(url, '/tenants/me/audit-events', { token: ada.token }), 401, 'invalid_token');
    expectProblem(
      await api(url, '/auth/password/change', {
        token: ada.token,
        body: { currentPassword: PASSWORD, newPassword: 'Quiet-Orchard-Compass-91' },
      }),
      401,
      'invalid_token',
    );
    // A plain read keeps the 1.0 rule.
    expect((await api(url, '/tenants/me', { token: ada.token })).status).toBe(200);
  });

  it('answers 403 email_not_verified to an owner inviting before verifying its address', async () => {
    const email = uniqueEmail('squatter');
    const r = await api<TokenResponseJson>(url, '/auth/register', { body: { email, password: PASSWORD } });
    expect(r.status).toBe(201);
    const invite = await api(url, '/tenants/me/invitations', {
      token: r.body.accessToken,
      body: { email: uniqueEmail('accomplice'), role: 'owner' },
    });
    expectProblem(invite, 403, 'email_not_verified');
  });
});

describe('a burst of registrations from one address (API 1.2)', () => {
  /** Fifteen registrations at once from one client address: the statuses, and the 429s. */
  async function burst(url: string) {
    const answers = await Promise.all(
      Array.from({ length: 15 }, () =>
        api(url, '/auth/register', { body: { email: uniqueEmail('office'), password: PASSWORD } }),
      ),
    );
    return answers;
  }

  it('gets 429 rate_limited with Retry-After, never 503, when the network holds its hashing share', async () => {
    // bcrypt cost 10, so the registrations overlap; a share of 2 hashes at once for the network.
    const server = await startTestServer({ BCRYPT_COST: '10', PASSWORD_HASHING_NETWORK_SHARE: '2' });
    try {
      const answers = await burst(server.baseUrl);
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((s) => s !== 201 && s !== 429)).toEqual([]);
      const refused = answers.filter((a) => a.status === 429);
      expect(refused.length).toBeGreaterThan(0);
      for (const r of refused) {
        expectProblem(r, 429, 'rate_limited');
        expect(r.headers.get('retry-after')).toBe('1');
        expect(r.headers.get('ratelimit-remaining')).toBe('0');
      }
    } finally {
      await server.close();
    }
  });

  it('lets the whole burst in with PASSWORD_HASHING_NETWORK_SHARE raised for an office', async () => {
    const server = await startTestServer({ BCRYPT_COST: '10', PASSWORD_HASHING_NETWORK_SHARE: '20' });
    try {
      expect((await burst(server.baseUrl)).map((a) => a.status)).toEqual(Array(15).fill(201));
    } finally {
      await server.close();
    }
  });
});
