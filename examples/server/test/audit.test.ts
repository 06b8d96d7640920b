import { ManualClock } from 'tenant-auth-core/testing';
import type { TokenResponseJson } from 'tenant-auth-koa/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, PASSWORD, uniqueEmail } from './helpers/http.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from './helpers/postgres.js';
import { TestInbox } from './helpers/smtp.js';
import { startTestServer, type TestServer } from './helpers/test-server.js';

/*
 * API 1.1, "Audit log": every event type recorded over real HTTP, the page shape, the filters and the
 * admin rule, on PGlite and PostgreSQL.
 */

const backends = [{ name: 'pglite' }, ...(TEST_DATABASE_URL ? [{ name: 'postgres' }] : [])];

interface AuditEventJson {
  id: string;
  type: string;
  at: string;
  actorId: string | null;
  subjectId: string | null;
  sessionId: string | null;
  ipAddress: string | null;
  userAgent: string | null;
  requestId: string | null;
}

const EVERY_TYPE = [
  'registered',
  'login_succeeded',
  'login_failed',
  'refreshed',
  'refresh_reissued',
  'replay_detected',
  'logout',
  'session_revoked',
  'sessions_revoked',
  'password_reset_requested',
  'password_reset',
  'password_changed',
  'email_verified',
  'email_changed',
  'invitation_created',
  'invitation_revoked',
  'invitation_accepted',
  'member_role_changed',
  'member_removed',
  'account_deleted',
];

describe.each(backends)('the audit log on $name', ({ name }) => {
  let server: TestServer;
  let db: TestDatabase | undefined;
  let inbox: TestInbox;
  let url: string;
  const clock = new ManualClock(Date.now());

  beforeAll(async () => {
    inbox = await new TestInbox().start();
    if (name === 'postgres') db = await createTestDatabase(TEST_DATABASE_URL as string);
    server = await startTestServer({ DATABASE_URL: db?.url ?? 'memory:', SMTP_URL: inbox.url }, { clock });
    url = server.baseUrl;
  });
  afterAll(async () => {
    await server?.close();
    await db?.drop();
    await inbox?.stop();
  });

  const post = <T = Record<string, unknown>>(path: string, body?: unknown, token?: string) =>
    api<T>(url, path, {
      method: 'POST',
      ...(body === undefined ? {} : { body }),
      ...(token ? { token } : {}),
    });

  async function allEvents(token: string, query = ''): Promise<AuditEventJson[]> {
    const events: AuditEventJson[] = [];
    let before: string | null = null;
    for (let page = 0; page < 100; page++) {
      const q = new URLSearchParams(query);
      q.set('limit', '5');
      if (before) q.set('before', before);
      const r = await api<{ events: AuditEventJson[]; next: string | null }>(
        url,
        `/tenants/me/audit-events?${q}`,
        { token },
      );
      expect(r.status).toBe(200);
      expect(r.body.events.length).toBeLessThanOrEqual(5);
      events.push(...r.body.events);
      if (!r.body.next) return events;
      before = r.body.next;
    }
    throw new Error('too many pages');
  }

  it('records every event type of the contract, with its parties and request, and never a secret', async () => {
    const ownerEmail = uniqueEmail('auditor');
    const headers = { 'user-agent': 'audit-test/1.0', 'x-request-id': 'req-audit-1' };
    let reg: { body: TokenResponseJson } | undefined;
    const verifyMail = await inbox.receive(ownerEmail, async () => {
      reg = await api<TokenResponseJson>(url, '/auth/register', {
        body: { email: ownerEmail, password: PASSWORD },
        headers,
      });
    });
    const owner = reg?.body as TokenResponseJson;
    const token = owner.accessToken;
    await post('/auth/email/verify', { token: TestInbox.tokenOf(verifyMail, '/verify-email') });
    await post('/auth/login', { email: ownerEmail, password: 'Wrong-Password-123' });
    const second = await post<TokenResponseJson>('/auth/login', { email: ownerEmail, password: PASSWORD });
    await post('/auth/refresh', { refreshToken: second.body.refreshToken });
    // Within the grace period the replaced token gets the same child; after it, it is a replay.
    await post('/auth/refresh', { refreshToken: second.body.refreshToken });
    clock.advance(11_000);
    await post('/auth/refresh', { refreshToken: second.body.refreshToken });
    const third = await post<TokenResponseJson>('/auth/login', { email: ownerEmail, password: PASSWORD });
    await api(url, '/auth/logout', { method: 'POST', token: third.body.accessToken });
    const fourth = await post<TokenResponseJson>('/auth/login', { email: ownerEmail, password: PASSWORD });
    await api(url, `/sessions/${fourth.body.session.id}`, { method: 'DELETE', token });
    await api(url, '/sessions?except=current', { method: 'DELETE', token });

    const memberEmail = uniqueEmail('member');
    const inviteToken = await inbox.tokenFrom(memberEmail, '/accept-invitation', () =>
      post('/tenants/me/invitations', { email: memberEmail, role: 'member' }, token),
    );
    const member = await post<TokenResponseJson>('/auth/invitations/accept', {
      token: inviteToken,
      password: PASSWORD,
    });
    const extra = await post<{ invitation: { id: string } }>(
      '/tenants/me/invitations',
      { email: uniqueEmail('x'), role: 'member' },
      token,
    );
    await api(url, `/tenants/me/invitations/${extra.body.invitation.id}`, { method: 'DELETE', token });
    await api(url, `/tenants/me/members/${member.body.user.id}`, {
      method: 'PATCH',
      token,
      body: { role: 'admin' },
    });
    const resetToken = await inbox.tokenFrom(memberEmail, '/reset-password', () =>
      post('/auth/password/forgot', { email: memberEmail }),
    );
    await post('/auth/password/reset', { token: resetToken, password: `${PASSWORD}-2` });
    const memberLogin = await post<TokenResponseJson>('/auth/login', {
      email: memberEmail,
      password: `${PASSWORD}-2`,
    });
    const memberToken = memberLogin.body.accessToken;
    await post(
      '/auth/password/change',
      { currentPassword: `${PASSWORD}-2`, newPassword: `${PASSWORD}-3` },
      memberToken,
    );
    const movedEmail = uniqueEmail('moved');
    const changeToken = await inbox.tokenFrom(movedEmail, '/confirm-email-change', () =>
      post('/auth/email/change', { newEmail: movedEmail, password: `${PASSWORD}-3` }, memberToken),
    );
    await post('/auth/email/change/confirm', { token: changeToken });
    await api(url, '/users/me', {
      method: 'DELETE',
      token: memberToken,
      body: { password: `${PASSWORD}-3` },
    });
    const thirdEmail = uniqueEmail('leaver');
    const thirdInvite = await inbox.tokenFrom(thirdEmail, '/accept-invitation', () =>
      post('/tenants/me/invitations', { email: thirdEmail, role: 'member' }, token),
    );
    const leaver = await post<TokenResponseJson>('/auth/invitations/accept', {
      token: thirdInvite,
      password: PASSWORD,
    });
    await api(url, `/tenants/me/members/${leaver.body.user.id}`, { method: 'DELETE', token });
    await server.auth.whenIdle();

    const events = await allEvents(token);
    expect(EVERY_TYPE.filter((type) => !events.some((e) => e.type === type))).toEqual([]);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    expect(events.map((e) => e.id)).toEqual([...events.map((e) => e.id)].sort().reverse());
    expect(events.find((e) => e.type === 'registered')).toMatchObject({
      actorId: owner.user.id,
      subjectId: owner.user.id,
      sessionId: owner.session.id,
      ipAddress: expect.stringContaining('127.0.0.1'),
      userAgent: 'audit-test/1.0',
      requestId: expect.any(String),
    });
    expect(events.find((e) => e.type === 'member_removed')).toMatchObject({
      actorId: owner.user.id,
      subjectId: leaver.body.user.id,
    });
    const text = JSON.stringify(events);
    for (const secret of [
      PASSWORD,
      owner.refreshToken,
      second.body.refreshToken,
      inviteToken,
      resetToken,
      changeToken,
    ]) {
      expect(text).not.toContain(secret);
    }
    // Filters: by type, by user.
    const failed = await allEvents(token, 'type=login_failed');
    expect(failed.map((e) => e.type)).toEqual(['login_failed']);
    const ofMember = await allEvents(token, `userId=${member.body.user.id}`);
    expect(ofMember.length).toBeGreaterThan(3);
    expect(
      ofMember.every((e) => e.actorId === member.body.user.id || e.subjectId === member.body.user.id),
    ).toBe(true);
  });

  it('answers 400 to a bad query, 401 without a token, 403 to a member; shows nothing of another tenant', async () => {
    const email = uniqueEmail('admin');
    let reg: { body: TokenResponseJson } | undefined;
    const verifyMail = await inbox.receive(email, async () => {
      reg = await api<TokenResponseJson>(url, '/auth/register', { body: { email, password: PASSWORD } });
    });
    // Inviting needs a verified email (API 1.2).
    await post('/auth/email/verify', { token: TestInbox.tokenOf(verifyMail, '/verify-email') });
    const admin = reg?.body as TokenResponseJson;
    const token = admin.accessToken;
    for (const query of [
      'limit=0',
      'limit=201',
      'limit=x',
      'before=@@',
      'type=nope',
      'userId=42',
      'limit=1&limit=2',
    ]) {
      const r = await api(url, `/tenants/me/audit-events?${query}`, { token });
      expect(r.status, query).toBe(400);
      expect(r.body).toMatchObject({ code: 'validation_failed' });
    }
    expect((await api(url, '/tenants/me/audit-events')).status).toBe(401);
    const memberEmail = uniqueEmail('plain');
    const invite = await inbox.tokenFrom(memberEmail, '/accept-invitation', () =>
      post('/tenants/me/invitations', { email: memberEmail, role: 'member' }, token),
    );
    const member = await post<TokenResponseJson>('/auth/invitations/accept', {
      token: invite,
      password: PASSWORD,
    });
    const forbidden = await api(url, '/tenants/me/audit-events', { token: member.body.accessToken });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toMatchObject({ code: 'forbidden' });
    const other = await api<TokenResponseJson>(url, '/auth/register', {
      body: { email: uniqueEmail('other'), password: PASSWORD },
    });
    const theirs = await allEvents(other.body.accessToken);
    expect(theirs.map((e) => e.type)).toEqual(['registered']);
    expect(theirs[0]?.subjectId).toBe(other.body.user.id);
    const page = await api<{ events: unknown[]; next: string | null }>(
      url,
      '/tenants/me/audit-events?limit=1',
      { token },
    );
    expect(page.body.events).toHaveLength(1);
    expect(typeof page.body.next).toBe('string');
  });
});
