import { createHash, randomBytes } from 'node:crypto';
import { ManualClock } from 'tenant-auth-core/testing';
import type { TokenResponseJson } from 'tenant-auth-koa/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, verifiedOwner } from './helpers/api-keys.js';
import { type ApiResponse, api, expectProblem, PASSWORD, uniqueEmail } from './helpers/http.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from './helpers/postgres.js';
import { TestInbox } from './helpers/smtp.js';
import { startTestServer, type TestServer } from './helpers/test-server.js';

/*
 * API 1.2, "API keys", over real HTTP on PGlite and PostgreSQL: creating a key (recent, admin, verified
 * email, a role no higher than the creator's), what a key may reach (the tenant's routes, the admin ones
 * its role allows) and what it may not (routes about a user, the recent ones, a cookie), revocation and
 * expiry, tenant isolation on every route a key reaches, audit events by key, lastUsedAt, and no secret
 * in any later answer or log line.
 */

const backends = [{ name: 'pglite' }, ...(TEST_DATABASE_URL ? [{ name: 'postgres' }] : [])];
const SECRET = /^tak_[A-Za-z0-9_-]{43}$/;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe.each(backends)('API keys on $name', ({ name }) => {
  let server: TestServer;
  let db: TestDatabase | undefined;
  let inbox: TestInbox;
  let url: string;
  const clock = new ManualClock(Date.now());
  /** Every answer of the suite, for the secret scan at its end. */
  const answers: string[] = [];
  const secrets: string[] = [];

  beforeAll(async () => {
    inbox = await new TestInbox().start();
    if (name === 'postgres') db = await createTestDatabase(TEST_DATABASE_URL as string);
    server = await startTestServer(
      {
        DATABASE_URL: db?.url ?? 'memory:',
        SMTP_URL: inbox.url,
        APP_URL: 'https://app.test',
        LOG_LEVEL: 'trace',
      },
      { clock },
    );
    url = server.baseUrl;
  });
  afterAll(async () => {
    await server?.close();
    await db?.drop();
    await inbox?.stop();
  });

  /** `api` with a key (or any bearer), the answer kept for the secret scan. */
  async function call<T = Record<string, unknown>>(
    path: string,
    options: Parameters<typeof api>[2] = {},
  ): Promise<ApiResponse<T>> {
    const r = await api<T>(url, path, options);
    answers.push(JSON.stringify(r.body), JSON.stringify([...r.headers]));
    return r;
  }

  async function ownerWithKey(role = 'admin', extra: { expiresInDays?: number } = {}) {
    const owner = await verifiedOwner(url, inbox);
    const created = await createKey(url, owner.token, { role, ...extra });
    secrets.push(created.secret);
    return { owner, key: created };
  }

  it('creates a key: tak_ + 256 bits, its prefix, the secret this once; the list never shows it', async () => {
    const { owner, key } = await ownerWithKey('member', { expiresInDays: 30 });
    expect(key.secret).toMatch(SECRET);
    expect(Buffer.from(key.secret.slice(4), 'base64url')).toHaveLength(32);
    expect(key.apiKey).toEqual({
      id: expect.any(String),
      name: 'CI deploys',
      role: 'member',
      prefix: key.secret.slice(0, 12),
      createdAt: clock.now().toISOString(),
      createdBy: owner.user.id,
      expiresAt: new Date(clock.now().getTime() + 30 * 86_400_000).toISOString(),
      lastUsedAt: null,
    });
    const list = await call<{ apiKeys: unknown[] }>('/tenants/me/api-keys', { token: owner.token });
    expect(list.status).toBe(200);
    expect(list.body.apiKeys).toEqual([key.apiKey]);
    expect(JSON.stringify(list.body)).not.toContain(key.secret.slice(12));
    // Only the SHA-256 is stored.
    const rows: { secret_hash: string }[] = await server.database.orm.em
      .fork()
      .getConnection()
      .execute('select secret_hash from tenant_auth_api_key where id = ?', [key.apiKey.id]);
    expect(rows[0]?.secret_hash).toBe(sha256(key.secret));
  });

  it('refuses a creator without a verified email, without a recent authentication, or below admin', async () => {
    const unverified = await api<TokenResponseJson>(url, '/auth/register', {
      body: { email: uniqueEmail('unverified'), password: PASSWORD },
    });
    const body = { name: 'x', role: 'member' };
    expectProblem(
      await call('/tenants/me/api-keys', { token: unverified.body.accessToken, body }),
      403,
      'email_not_verified',
    );
    const owner = await verifiedOwner(url, inbox);
    clock.advance(601_000);
    expectProblem(
      await call('/tenants/me/api-keys', { token: owner.token, body }),
      403,
      'reauthentication_required',
    );
    const { key } = await ownerWithKey('member');
    expectProblem(await call('/tenants/me/api-keys', { token: key.secret, body }), 403, 'forbidden');
  });

  it('refuses an owner key to an admin (403) and a role that is none (400 invalid_role)', async () => {
    const { owner, key } = await ownerWithKey('admin');
    // An admin of the same tenant, made through the key (an admin key may invite an admin).
    const email = uniqueEmail('admin');
    const token = await inbox.tokenFrom(email, '/accept-invitation', async () => {
      expect(
        (await call('/tenants/me/invitations', { token: key.secret, body: { email, role: 'admin' } })).status,
      ).toBe(201);
    });
    const admin = await api<TokenResponseJson>(url, '/auth/invitations/accept', {
      body: { token, password: PASSWORD },
    });
    expect(admin.status).toBe(201);
    const r = await call('/tenants/me/api-keys', {
      token: admin.body.accessToken,
      body: { name: 'x', role: 'owner' },
    });
    expectProblem(r, 403, 'forbidden');
    const bad = await call<{ errors: { field: string; code: string }[] }>('/tenants/me/api-keys', {
      token: owner.token,
      body: { name: 'x', role: 'root' },
    });
    expectProblem(bad, 400, 'validation_failed');
    expect(bad.body.errors).toContainEqual(expect.objectContaining({ field: 'role', code: 'invalid_role' }));
    expect((await createKey(url, admin.body.accessToken, { role: 'admin' })).apiKey.role).toBe('admin');
  });

  it("acts with at most its creator's current role: a demoted admin's key cannot restore them, a removed one's stops", async () => {
    const { owner } = await ownerWithKey('member');
    const email = uniqueEmail('demoted');
    const token = await inbox.tokenFrom(email, '/accept-invitation', async () => {
      const invited = await call('/tenants/me/invitations', {
        token: owner.token,
        body: { email, role: 'admin' },
      });
      expect(invited.status).toBe(201);
    });
    const admin = await api<TokenResponseJson>(url, '/auth/invitations/accept', {
      body: { token, password: PASSWORD },
    });
    expect(admin.status).toBe(201);
    const adminId = admin.body.user.id;
    const key = await createKey(url, admin.body.accessToken, { role: 'admin' });
    secrets.push(key.secret);
    expect((await call('/tenants/me/invitations', { token: key.secret })).status).toBe(200);
    // The owner demotes the admin: the admin's key must not give the role back.
    const demoted = await call(`/tenants/me/members/${adminId}`, {
      method: 'PATCH',
      token: owner.token,
      body: { role: 'member' },
    });
    expect(demoted.status).toBe(200);
    const restore = await call(`/tenants/me/members/${adminId}`, {
      method: 'PATCH',
      token: key.secret,
      body: { role: 'admin' },
    });
    expectProblem(restore, 403, 'forbidden');
    expectProblem(await call('/tenants/me/invitations', { token: key.secret }), 403, 'forbidden');
    expect((await call('/tenants/me/members', { token: key.secret })).status).toBe(200);
    // Removed: the key works no more.
    const removed = await call(`/tenants/me/members/${adminId}`, { method: 'DELETE', token: owner.token });
    expect(removed.status).toBe(204);
    expectProblem(await call('/tenants/me/members', { token: key.secret }), 401, 'invalid_token');
    clock.advance(5_000);
    expectProblem(await call('/tenants/me', { token: key.secret }), 401, 'invalid_token');
  });

  it("reaches the tenant's routes, and the admin routes its role allows; a member key gets 403 there", async () => {
    const { owner, key: admin } = await ownerWithKey('admin');
    const member = await createKey(url, owner.token, { role: 'member' });
    secrets.push(member.secret);
    for (const secret of [admin.secret, member.secret]) {
      const me = await call<{ id: string }>('/tenants/me', { token: secret });
      expect(me.status).toBe(200);
      expect(me.body.id).toBe(owner.user.tenantId);
      expect((await call(`/tenants/${owner.user.tenantId}`, { token: secret })).status).toBe(200);
      expect((await call('/health', { token: secret })).status).toBe(200);
      expect((await call('/tenants/me/members', { token: secret })).status).toBe(200);
    }
    for (const path of ['/tenants/me/audit-events', '/tenants/me/invitations']) {
      expect((await call(path, { token: admin.secret })).status).toBe(200);
      expectProblem(await call(path, { token: member.secret }), 403, 'forbidden');
    }
    const byMember = await call(`/tenants/me/members/${owner.user.id}`, {
      method: 'PATCH',
      token: member.secret,
      body: { role: 'member' },
    });
    expectProblem(byMember, 403, 'forbidden');
  });

  it('answers a key 403 on every route about a user and every recent one, and never reads it from a cookie', async () => {
    const { owner, key } = await ownerWithKey('owner');
    const user = [
      ['GET', '/users/me'],
      ['GET', '/sessions'],
      ['DELETE', '/sessions'],
      ['GET', '/tenants/me/api-keys'],
      ['POST', '/tenants/me/api-keys'],
      ['GET', '/tenants/me/security'],
      ['PATCH', '/tenants/me/security'],
      ['POST', '/auth/mfa/totp/setup'],
      ['POST', '/auth/reauthenticate'],
      ['POST', '/auth/refresh'],
      ['POST', '/auth/logout'],
      ['POST', '/auth/login'],
      ['POST', '/auth/password/change'],
    ] as const;
    for (const [method, path] of user) {
      const body = method === 'GET' || method === 'DELETE' ? undefined : {};
      const r = await call(path, { method, token: key.secret, ...(body ? { body } : {}) });
      expect([path, r.status, (r.body as { code?: string }).code]).toEqual([path, 403, 'forbidden']);
    }
    // In the access cookie a key is no credential at all.
    const cookie = await call('/tenants/me', { headers: { cookie: `access_token=${key.secret}` } });
    expectProblem(cookie, 401, 'invalid_token');
    // The owner's sessions are untouched by any of it.
    expect(
      (await call<{ sessions: unknown[] }>('/sessions', { token: owner.token })).body.sessions,
    ).toHaveLength(1);
  });

  it('answers 401 invalid_token to an unknown, an expired and a revoked key (revoked: at once here)', async () => {
    const unknown = `tak_${randomBytes(32).toString('base64url')}`;
    expectProblem(await call('/tenants/me', { token: unknown }), 401, 'invalid_token');
    const { owner, key } = await ownerWithKey('member', { expiresInDays: 1 });
    expect((await call('/tenants/me', { token: key.secret })).status).toBe(200);
    clock.advance(86_400_000);
    expectProblem(await call('/tenants/me', { token: key.secret }), 401, 'invalid_token');
    void owner;
    // Another tenant's administrator cannot revoke a key (404), which keeps working.
    const live = await createKey(url, (await verifiedOwner(url, inbox)).token, { role: 'member' });
    secrets.push(live.secret);
    const stranger = await verifiedOwner(url, inbox);
    const theirs = await call(`/tenants/me/api-keys/${live.apiKey.id}`, {
      method: 'DELETE',
      token: stranger.token,
    });
    expectProblem(theirs, 404, 'not_found');
    expect((await call('/tenants/me', { token: live.secret })).status).toBe(200);
  });

  it('revokes with 204: the key stops at once on this instance, drops from the list, and is logged', async () => {
    const { owner, key } = await ownerWithKey('admin');
    expect((await call('/tenants/me/members', { token: key.secret })).status).toBe(200);
    const del = await call(`/tenants/me/api-keys/${key.apiKey.id}`, { method: 'DELETE', token: owner.token });
    expect(del.status).toBe(204);
    expectProblem(await call('/tenants/me/members', { token: key.secret }), 401, 'invalid_token');
    expectProblem(await call('/tenants/me', { token: key.secret }), 401, 'invalid_token');
    expect(
      (await call<{ apiKeys: unknown[] }>('/tenants/me/api-keys', { token: owner.token })).body.apiKeys,
    ).toEqual([]);
    expect(
      (await call(`/tenants/me/api-keys/${key.apiKey.id}`, { method: 'DELETE', token: owner.token })).status,
    ).toBe(404);
    const events = await call<{
      events: { type: string; actorId: string; actorType: string; subjectId: string }[];
    }>('/tenants/me/audit-events', { token: owner.token });
    const mine = events.body.events.filter((e) => e.subjectId === key.apiKey.id);
    expect(mine.map((e) => [e.type, e.actorId, e.actorType]).sort()).toEqual([
      ['api_key_created', owner.user.id, 'user'],
      ['api_key_revoked', owner.user.id, 'user'],
    ]);
  });

  it("sees only its own tenant on every route it reaches (another tenant's ids are 404)", async () => {
    const { owner, key } = await ownerWithKey('owner');
    const { owner: other } = await ownerWithKey('owner');
    const otherInvite = await api<{ invitation: { id: string } }>(url, '/tenants/me/invitations', {
      token: other.token,
      body: { email: uniqueEmail('theirs'), role: 'member' },
    });
    expect(otherInvite.status).toBe(201);
    expect((await call(`/tenants/${other.user.tenantId}`, { token: key.secret })).status).toBe(404);
    const members = await call<{ members: { id: string }[] }>('/tenants/me/members', { token: key.secret });
    expect(members.body.members.map((m) => m.id)).toEqual([owner.user.id]);
    const patch = await call(`/tenants/me/members/${other.user.id}`, {
      method: 'PATCH',
      token: key.secret,
      body: { role: 'admin' },
    });
    expectProblem(patch, 404, 'not_found');
    expectProblem(
      await call(`/tenants/me/members/${other.user.id}`, { method: 'DELETE', token: key.secret }),
      404,
      'not_found',
    );
    const invitations = await call<{ invitations: unknown[] }>('/tenants/me/invitations', {
      token: key.secret,
    });
    expect(invitations.body.invitations).toEqual([]);
    const revokeTheirs = await call(`/tenants/me/invitations/${otherInvite.body.invitation.id}`, {
      method: 'DELETE',
      token: key.secret,
    });
    expectProblem(revokeTheirs, 404, 'not_found');
    const audit = await call<{
      events: { tenantId?: string; actorId: string | null; subjectId: string | null }[];
    }>('/tenants/me/audit-events', { token: key.secret });
    expect(audit.status).toBe(200);
    expect(JSON.stringify(audit.body)).not.toContain(other.user.id);
  });

  it('records what a key does with actorId = the key and actorType api_key', async () => {
    const { owner, key } = await ownerWithKey('admin');
    const invited = await call<{ invitation: { id: string } }>('/tenants/me/invitations', {
      token: key.secret,
      body: { email: uniqueEmail('by-key'), role: 'member' },
    });
    expect(invited.status).toBe(201);
    expect(
      (
        await call(`/tenants/me/invitations/${invited.body.invitation.id}`, {
          method: 'DELETE',
          token: key.secret,
        })
      ).status,
    ).toBe(204);
    const events = await call<{
      events: { type: string; actorId: string; actorType: string; sessionId: string | null }[];
    }>('/tenants/me/audit-events', { token: key.secret });
    const byKey = events.body.events.filter((e) => e.actorType === 'api_key');
    // One clock tick: the two ids share their time, so the order between them is not the point.
    expect(byKey.map((e) => [e.type, e.actorId, e.sessionId]).sort()).toEqual([
      ['invitation_created', key.apiKey.id, null],
      ['invitation_revoked', key.apiKey.id, null],
    ]);
    expect(
      events.body.events
        .filter((e) => e.actorType === 'user')
        .every((e) => e.actorId === owner.user.id || e.actorId === null),
    ).toBe(true);
  });

  it('writes lastUsedAt on use, at most once a minute', async () => {
    const { owner, key } = await ownerWithKey('member');
    const lastUsed = async () => {
      await server.auth.whenIdle();
      const r = await call<{ apiKeys: { id: string; lastUsedAt: string | null }[] }>('/tenants/me/api-keys', {
        token: owner.token,
      });
      return r.body.apiKeys.find((k) => k.id === key.apiKey.id)?.lastUsedAt;
    };
    expect(await lastUsed()).toBeNull();
    const first = clock.now().toISOString();
    expect((await call('/tenants/me', { token: key.secret })).status).toBe(200);
    expect(await lastUsed()).toBe(first);
    clock.advance(30_000);
    expect((await call('/tenants/me', { token: key.secret })).status).toBe(200);
    expect(await lastUsed()).toBe(first);
    clock.advance(31_000);
    const second = clock.now().toISOString();
    expect((await call('/tenants/me', { token: key.secret })).status).toBe(200);
    expect(await lastUsed()).toBe(second);
  });

  it('counts checks by outcome in Prometheus, and no secret reaches an answer, a log line or an audit event', async () => {
    const metrics = await (await fetch(`${url}/metrics`)).text();
    const value = (outcome: string) =>
      Number(
        new RegExp(`tenant_auth_api_key_checks_total\\{outcome="${outcome}"\\} (\\d+)`).exec(metrics)?.[1],
      );
    expect(value('accepted')).toBeGreaterThan(0);
    expect(value('unknown')).toBeGreaterThan(0);
    expect(value('expired')).toBeGreaterThan(0);
    expect(value('revoked')).toBeGreaterThan(0);
    expect(secrets.length).toBeGreaterThan(5);
    const logs = server.logs.join('\n');
    expect(server.logs.length).toBeGreaterThan(100);
    const rows: { text: string }[] = await server.database.orm.em
      .fork()
      .getConnection()
      .execute(`select row_to_json(e)::text as text from tenant_auth_audit_event e`);
    const stored = rows.map((r) => r.text).join('\n');
    for (const secret of secrets) {
      const body = secret.slice(4);
      for (const [where, text] of [
        ['answers', answers.join('\n')],
        ['logs', logs],
        ['audit events', stored],
      ] as const) {
        expect(text.includes(body), `${where} hold a secret`).toBe(false);
        expect(text.includes(sha256(secret)), `${where} hold a secret's hash`).toBe(false);
      }
    }
  });
});
