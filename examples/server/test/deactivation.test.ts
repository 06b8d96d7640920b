import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from './helpers/api-keys.js';
import { api, expectProblem, PASSWORD } from './helpers/http.js';
import { invitedMember, verifiedOwner } from './helpers/people.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from './helpers/postgres.js';
import { TestInbox } from './helpers/smtp.js';
import { startTestServer, type TestServer } from './helpers/test-server.js';

/*
 * API 1.3, "Errors added in 1.3": deactivation over real HTTP, on PGlite and PostgreSQL. An admin's
 * `PATCH /tenants/me/members/:userId {active: false}` ends the member's sessions, refresh tokens and API
 * keys in one transaction; its password is `403 account_disabled`; the last active owner is protected.
 */

const backends = [{ name: 'pglite' }, ...(TEST_DATABASE_URL ? [{ name: 'postgres' }] : [])];

interface Member {
  id: string;
  email: string;
  role: string;
  active: boolean;
}

describe.each(backends)('deactivation on $name', ({ name }) => {
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

  const join = (inviterToken: string, role: 'owner' | 'admin' | 'member') =>
    invitedMember(url, inbox, inviterToken, role);

  const patch = (token: string, userId: string, body: Record<string, unknown>) =>
    api<Member>(url, `/tenants/me/members/${userId}`, { method: 'PATCH', token, body });

  it('revokes sessions, refresh tokens and API keys at once; refuses the password with 403 account_disabled', async () => {
    const ada = await owner();
    const bob = await join(ada.token, 'admin');
    const key = await createKey(url, bob.token, { name: 'bob CI', role: 'member' });
    expect((await api(url, '/tenants/me/members', { token: key.secret })).status).toBe(200);

    const r = await patch(ada.token, bob.user.id, { active: false });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: bob.user.id, email: bob.email, role: 'admin', active: false });

    expectProblem(await api(url, '/tenants/me/members', { token: bob.token }), 401, 'invalid_token');
    expectProblem(await api(url, '/tenants/me/members', { token: key.secret }), 401, 'invalid_token');
    expectProblem(
      await api(url, '/auth/refresh', { body: { refreshToken: bob.refreshToken } }),
      401,
      'invalid_token',
    );
    expectProblem(
      await api(url, '/auth/login', { body: { email: bob.email, password: PASSWORD } }),
      403,
      'account_disabled',
    );
    expectProblem(
      await api(url, '/auth/login', { body: { email: bob.email, password: `${PASSWORD}-wrong` } }),
      401,
      'invalid_credentials',
    );
    const list = await api<{ members: Member[] }>(url, '/tenants/me/members', { token: ada.token });
    expect(list.body.members.map((m) => [m.email, m.active])).toEqual([
      [ada.email, true],
      [bob.email, false],
    ]);
    const events = await api<{
      events: { type: string; actorId: string; actorType: string; subjectId: string }[];
    }>(url, '/tenants/me/audit-events?type=user_deactivated', { token: ada.token });
    expect(events.body.events.map((e) => [e.type, e.actorId, e.actorType, e.subjectId])).toEqual([
      ['user_deactivated', ada.user.id, 'user', bob.user.id],
    ]);

    // Restored: the password works again; the old refresh token and key do not.
    expect((await patch(ada.token, bob.user.id, { active: true })).body).toMatchObject({ active: true });
    expect((await api(url, '/auth/login', { body: { email: bob.email, password: PASSWORD } })).status).toBe(
      200,
    );
    expectProblem(await api(url, '/tenants/me/members', { token: key.secret }), 401, 'invalid_token');
    expectProblem(
      await api(url, '/auth/refresh', { body: { refreshToken: bob.refreshToken } }),
      401,
      'invalid_token',
    );
  });

  it('protects the last active owner (409 last_owner) and keeps admins away from owners', async () => {
    const ada = await owner();
    const bob = await join(ada.token, 'admin');
    expectProblem(await patch(ada.token, ada.user.id, { active: false }), 409, 'last_owner');
    expectProblem(await patch(bob.token, ada.user.id, { active: false }), 403, 'forbidden');
    const cat = await join(ada.token, 'owner');
    expect((await patch(ada.token, cat.user.id, { active: false })).status).toBe(200);
    // Cat is an owner, deactivated: Ada is the last active one.
    expectProblem(await patch(ada.token, ada.user.id, { active: false }), 409, 'last_owner');
    expectProblem(await patch(ada.token, ada.user.id, { role: 'admin' }), 409, 'last_owner');
    expectProblem(
      await api(url, `/tenants/me/members/${ada.user.id}`, { method: 'DELETE', token: ada.token }),
      409,
      'last_owner',
    );
  });

  it('answers 400 for an active that is not a boolean; role alone works as in 1.1', async () => {
    const ada = await owner();
    const bob = await join(ada.token, 'member');
    expect((await patch(ada.token, bob.user.id, { active: 'false' })).status).toBe(400);
    const r = await patch(ada.token, bob.user.id, { role: 'admin' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ role: 'admin', active: true });
  });
});
