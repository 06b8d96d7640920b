import { randomUUID } from 'node:crypto';
import type { TokenResponseJson } from 'tenant-auth-koa/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, expectProblem, PASSWORD, setCookies, uniqueEmail } from './helpers/http.js';
import { invitedMember, verifiedOwner } from './helpers/people.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from './helpers/postgres.js';
import { TestInbox } from './helpers/smtp.js';
import { startTestServer, type TestServer } from './helpers/test-server.js';

/*
 * API 1.1, "Roles and members": every row of the table over real HTTP, with the invitation emails read
 * from a real SMTP server, on PGlite and PostgreSQL.
 */

const backends = [{ name: 'pglite' }, ...(TEST_DATABASE_URL ? [{ name: 'postgres' }] : [])];

interface Member {
  id: string;
  email: string;
  role: string;
  emailVerified: boolean;
  createdAt: string;
}

describe.each(backends)('members and invitations on $name', ({ name }) => {
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

  const owner = () => verifiedOwner(url, inbox);

  async function invite(token: string, email: string, role: string) {
    return api<{ invitation: { id: string } }>(url, '/tenants/me/invitations', {
      token,
      body: { email, role },
    });
  }

  /** Invites, reads the link from the mail, accepts: a new member of the inviter's tenant. */
  const join = (inviterToken: string, role: 'owner' | 'admin' | 'member') =>
    invitedMember(url, inbox, inviterToken, role);

  describe('GET /tenants/me/members', () => {
    it("lists the caller's tenant's members with role and email state, for any member; 401 without a token", async () => {
      const ada = await owner();
      const bob = await join(ada.token, 'member');
      await owner();
      const r = await api<{ members: Member[] }>(url, '/tenants/me/members', { token: bob.token });
      expect(r.status).toBe(200);
      expect(r.body.members.map((m) => [m.email, m.role, m.emailVerified])).toEqual([
        // Verified: an owner verifies before inviting (API 1.2).
        [ada.email, 'owner', true],
        [bob.email, 'member', true],
      ]);
      expect(r.body.members[0]).toEqual({
        id: ada.user.id,
        email: ada.email,
        role: 'owner',
        emailVerified: true,
        createdAt: expect.stringMatching(/Z$/),
        // API 1.3, "Errors added in 1.3": members lists gain active.
        active: true,
      });
      expectProblem(await api(url, '/tenants/me/members'), 401, 'invalid_token');
    });
  });

  describe('PATCH /tenants/me/members/:userId', () => {
    it('changes a role and answers the member (200)', async () => {
      const ada = await owner();
      const bob = await join(ada.token, 'member');
      const r = await api<Member>(url, `/tenants/me/members/${bob.user.id}`, {
        method: 'PATCH',
        token: ada.token,
        body: { role: 'admin' },
      });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ id: bob.user.id, role: 'admin', email: bob.email });
    });

    it('answers 404 for a user of another tenant or an id that is not one', async () => {
      const ada = await owner();
      const eve = await owner();
      for (const id of [eve.user.id, randomUUID(), 'not-an-id']) {
        const r = await api(url, `/tenants/me/members/${id}`, {
          method: 'PATCH',
          token: ada.token,
          body: { role: 'admin' },
        });
        expectProblem(r, 404, 'not_found');
      }
    });

    it('answers 403 to a member, to an admin touching an owner or granting owner', async () => {
      const ada = await owner();
      const bob = await join(ada.token, 'admin');
      const cat = await join(ada.token, 'member');
      const patch = (token: string, id: string, role: string) =>
        api(url, `/tenants/me/members/${id}`, { method: 'PATCH', token, body: { role } });
      expectProblem(await patch(cat.token, bob.user.id, 'member'), 403, 'forbidden');
      expectProblem(await patch(bob.token, ada.user.id, 'member'), 403, 'forbidden');
      expectProblem(await patch(bob.token, cat.user.id, 'owner'), 403, 'forbidden');
    });

    it('answers 409 last_owner when the only owner would step down, and 400 invalid_role', async () => {
      const ada = await owner();
      const r = await api(url, `/tenants/me/members/${ada.user.id}`, {
        method: 'PATCH',
        token: ada.token,
        body: { role: 'admin' },
      });
      expectProblem(r, 409, 'last_owner');
      const bad = await api<{ errors: { field: string; code: string }[] }>(
        url,
        `/tenants/me/members/${ada.user.id}`,
        {
          method: 'PATCH',
          token: ada.token,
          body: { role: 'emperor' },
        },
      );
      expectProblem(bad, 400, 'validation_failed');
      expect(bad.body.errors).toEqual([expect.objectContaining({ field: 'role', code: 'invalid_role' })]);
    });

    it('lets exactly one of two owners demoting each other at once succeed', async () => {
      const ada = await owner();
      const bob = await join(ada.token, 'owner');
      const [a, b] = await Promise.all([
        api(url, `/tenants/me/members/${bob.user.id}`, {
          method: 'PATCH',
          token: ada.token,
          body: { role: 'admin' },
        }),
        api(url, `/tenants/me/members/${ada.user.id}`, {
          method: 'PATCH',
          token: bob.token,
          body: { role: 'admin' },
        }),
      ]);
      expect([a.status, b.status].sort()).toEqual([200, 403]);
      const members = await api<{ members: Member[] }>(url, '/tenants/me/members', { token: ada.token });
      expect(members.body.members.filter((m) => m.role === 'owner')).toHaveLength(1);
    });

    it('refuses a demoted admin at once, though its access token still says admin', async () => {
      const ada = await owner();
      const bob = await join(ada.token, 'admin');
      const cat = await join(ada.token, 'member');
      await api(url, `/tenants/me/members/${bob.user.id}`, {
        method: 'PATCH',
        token: ada.token,
        body: { role: 'member' },
      });
      const claims = JSON.parse(Buffer.from(bob.token.split('.')[1] ?? '', 'base64url').toString());
      expect(claims.role).toBe('admin');
      expectProblem(
        await api(url, `/tenants/me/members/${cat.user.id}`, { method: 'DELETE', token: bob.token }),
        403,
        'forbidden',
      );
      expectProblem(await api(url, '/tenants/me/invitations', { token: bob.token }), 403, 'forbidden');
    });
  });

  describe('DELETE /tenants/me/members/:userId', () => {
    it('removes the account and revokes every session of it at once (204)', async () => {
      const ada = await owner();
      const bob = await join(ada.token, 'member');
      const second = await api<TokenResponseJson>(url, '/auth/login', {
        body: { email: bob.email, password: PASSWORD },
      });
      const r = await api(url, `/tenants/me/members/${bob.user.id}`, { method: 'DELETE', token: ada.token });
      expect(r.status).toBe(204);
      for (const refreshToken of [bob.refreshToken, second.body.refreshToken]) {
        expectProblem(await api(url, '/auth/refresh', { body: { refreshToken } }), 401, 'invalid_token');
      }
      // Its access tokens still verify until they expire (15 minutes; CHECK_SESSION_ON_VERIFY cuts them at
      // once), but whatever reads the account finds none, and it has no session left.
      expectProblem(await api(url, '/tenants/me/members', { token: bob.token }), 401, 'invalid_token');
      const sessions = await api<{ sessions: unknown[] }>(url, '/sessions', { token: bob.token });
      expect(sessions.body.sessions).toEqual([]);
      expectProblem(
        await api(url, '/auth/login', { body: { email: bob.email, password: PASSWORD } }),
        401,
        'invalid_credentials',
      );
    });

    it('answers 404 across tenants, 403 to an admin removing an owner, 409 to the last owner leaving', async () => {
      const ada = await owner();
      const bob = await join(ada.token, 'admin');
      const eve = await owner();
      expectProblem(
        await api(url, `/tenants/me/members/${eve.user.id}`, { method: 'DELETE', token: ada.token }),
        404,
        'not_found',
      );
      expectProblem(
        await api(url, `/tenants/me/members/${ada.user.id}`, { method: 'DELETE', token: bob.token }),
        403,
        'forbidden',
      );
      expectProblem(
        await api(url, `/tenants/me/members/${ada.user.id}`, { method: 'DELETE', token: ada.token }),
        409,
        'last_owner',
      );
      // A failed removal changes nothing.
      expect((await api(url, '/auth/refresh', { body: { refreshToken: eve.refreshToken } })).status).toBe(
        200,
      );
      expect((await api(url, '/sessions', { token: ada.token })).status).toBe(200);
    });
  });

  describe('invitations', () => {
    it('POST creates one (201) and sends its link; GET lists it; DELETE revokes it and its link stops working', async () => {
      const ada = await owner();
      const email = uniqueEmail('invitee');
      let created: { status: number; body: { invitation: Record<string, unknown> } } | undefined;
      const mail = await inbox.receive(email, async () => {
        created = await invite(ada.token, email, 'admin');
      });
      expect(created?.status).toBe(201);
      const invitation = created?.body.invitation ?? {};
      expect(invitation).toEqual({
        id: expect.any(String),
        email,
        role: 'admin',
        createdAt: expect.any(String),
        expiresAt: expect.any(String),
        invitedBy: ada.user.id,
      });
      expect(Date.parse(String(invitation.expiresAt)) - Date.parse(String(invitation.createdAt))).toBe(
        7 * 86_400_000,
      );
      expect(mail.text).toContain('https://app.test/accept-invitation?token=');
      const list = await api<{ invitations: unknown[] }>(url, '/tenants/me/invitations', {
        token: ada.token,
      });
      expect(list.status).toBe(200);
      expect(list.body.invitations).toEqual([invitation]);
      const revoked = await api(url, `/tenants/me/invitations/${String(invitation.id)}`, {
        method: 'DELETE',
        token: ada.token,
      });
      expect(revoked.status).toBe(204);
      const token = TestInbox.tokenOf(mail, '/accept-invitation');
      const accept = await api<{ errors: unknown[] }>(url, '/auth/invitations/accept', {
        body: { token, password: PASSWORD },
      });
      expectProblem(accept, 400, 'validation_failed');
      expect(accept.body.errors).toEqual([
        expect.objectContaining({ field: 'token', code: 'invalid_or_expired' }),
      ]);
      expectProblem(
        await api(url, `/tenants/me/invitations/${String(invitation.id)}`, {
          method: 'DELETE',
          token: ada.token,
        }),
        404,
        'not_found',
      );
    });

    it('refuses a taken, malformed or role-less address (400), an admin inviting an owner (403), a member (403)', async () => {
      const ada = await owner();
      const bob = await join(ada.token, 'admin');
      const cat = await join(ada.token, 'member');
      const eve = await owner();
      const codes = async (body: unknown) => {
        const r = await api<{ errors: { field: string; code: string }[] }>(url, '/tenants/me/invitations', {
          token: ada.token,
          body,
        });
        expect(r.status).toBe(400);
        return r.body.errors.map((e) => `${e.field}:${e.code}`);
      };
      expect(await codes({ email: eve.email, role: 'member' })).toEqual(['email:email_taken']);
      expect(await codes({ email: 'nope', role: 'member' })).toEqual(['email:invalid_email']);
      expect(await codes({ email: uniqueEmail(), role: 'king' })).toEqual(['role:invalid_role']);
      expectProblem(await invite(bob.token, uniqueEmail(), 'owner'), 403, 'forbidden');
      expectProblem(await invite(cat.token, uniqueEmail(), 'member'), 403, 'forbidden');
      expectProblem(await api(url, '/tenants/me/invitations', { token: cat.token }), 403, 'forbidden');
      expectProblem(await api(url, '/tenants/me/invitations'), 401, 'invalid_token');
    });

    it('does not let another tenant see or revoke an invitation (404)', async () => {
      const ada = await owner();
      const eve = await owner();
      const created = await invite(ada.token, uniqueEmail(), 'member');
      const id = created.body.invitation.id;
      expectProblem(
        await api(url, `/tenants/me/invitations/${id}`, { method: 'DELETE', token: eve.token }),
        404,
        'not_found',
      );
      const list = await api<{ invitations: unknown[] }>(url, '/tenants/me/invitations', {
        token: eve.token,
      });
      expect(list.body.invitations).toEqual([]);
    });

    it('accepting creates the user in the inviting tenant with the role, verified, signed in (201, cookies)', async () => {
      const ada = await owner();
      const email = uniqueEmail('joiner');
      const token = await inbox.tokenFrom(email, '/accept-invitation', () =>
        invite(ada.token, email, 'admin'),
      );
      const r = await api<TokenResponseJson>(url, '/auth/invitations/accept', {
        body: { token, password: PASSWORD, deviceInfo: 'Work laptop' },
      });
      expect(r.status).toBe(201);
      expect(r.body.user).toEqual({
        id: expect.any(String),
        email,
        tenantId: ada.user.tenantId,
        role: 'admin',
        emailVerified: true,
      });
      expect(r.headers.get('cache-control')).toBe('no-store');
      expect(Object.keys(setCookies(r.res))).toEqual(['access_token', 'refresh_token']);
      const sessions = await api<{ sessions: { deviceInfo: string }[] }>(url, '/sessions', {
        token: r.body.accessToken,
      });
      expect(sessions.body.sessions.map((s) => s.deviceInfo)).toEqual(['Work laptop']);
    });

    it('keeps the invitation usable after a failed accept, and lets one of five concurrent accepts win', async () => {
      const ada = await owner();
      const email = uniqueEmail('racer');
      const token = await inbox.tokenFrom(email, '/accept-invitation', () =>
        invite(ada.token, email, 'member'),
      );
      const weak = await api<{ errors: { field: string; code: string }[] }>(url, '/auth/invitations/accept', {
        body: { token, password: 'short' },
      });
      expectProblem(weak, 400, 'validation_failed');
      expect(weak.body.errors.map((e) => e.field)).toContain('password');
      const results = await Promise.all(
        Array.from({ length: 5 }, () =>
          api(url, '/auth/invitations/accept', { body: { token, password: PASSWORD } }),
        ),
      );
      expect(results.map((r) => r.status).sort()).toEqual([201, 400, 400, 400, 400]);
    });

    it('replaces a pending invitation of the same address: the older link stops working', async () => {
      const ada = await owner();
      const email = uniqueEmail('twice');
      const first = await inbox.tokenFrom(email, '/accept-invitation', () =>
        invite(ada.token, email, 'member'),
      );
      const second = await inbox.tokenFrom(email, '/accept-invitation', () =>
        invite(ada.token, email, 'admin'),
      );
      expectProblem(
        await api(url, '/auth/invitations/accept', { body: { token: first, password: PASSWORD } }),
        400,
        'validation_failed',
      );
      const r = await api<TokenResponseJson>(url, '/auth/invitations/accept', {
        body: { token: second, password: PASSWORD },
      });
      expect(r.body.user.role).toBe('admin');
      const pending = await api<{ invitations: unknown[] }>(url, '/tenants/me/invitations', {
        token: ada.token,
      });
      expect(pending.body.invitations).toEqual([]);
    });

    it('answers email_taken when the address got an account meanwhile', async () => {
      const ada = await owner();
      const email = uniqueEmail('late');
      const token = await inbox.tokenFrom(email, '/accept-invitation', () =>
        invite(ada.token, email, 'member'),
      );
      expect((await api(url, '/auth/register', { body: { email, password: PASSWORD } })).status).toBe(201);
      const r = await api<{ errors: { field: string; code: string }[] }>(url, '/auth/invitations/accept', {
        body: { token, password: PASSWORD },
      });
      expectProblem(r, 400, 'validation_failed');
      expect(r.body.errors).toEqual([expect.objectContaining({ field: 'email', code: 'email_taken' })]);
    });
  });
});
