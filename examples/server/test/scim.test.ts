import { randomUUID } from 'node:crypto';
import type { TokenResponseJson } from 'tenant-auth-koa/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  replayScimConversation,
  type ScimExchange,
  scimConversation,
} from '../../../test-support/scim-conversations.js';
import { startTxtDnsServer, type TxtDnsServer } from './helpers/dns-txt.js';
import { api, expectProblem, PASSWORD } from './helpers/http.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from './helpers/postgres.js';
import { TestInbox } from './helpers/smtp.js';
import { newDomain, verifiedDomain } from './helpers/sso.js';
import { startTestServer, type TestServer } from './helpers/test-server.js';

/*
 * API 1.3, "SCIM 2.0 provisioning per tenant", over real HTTP on PGlite and PostgreSQL: the owner's SCIM
 * token, the recorded Entra ID and Okta conversations replayed against /scim/v2, and the rules around
 * them (tokens, tenant isolation, deactivation, the last owner, verified domains, uniqueness, roles from
 * groups, the per-tenant budget, audit events, secrets kept out of the logs).
 */

const backends = [{ name: 'pglite' }, ...(TEST_DATABASE_URL ? [{ name: 'postgres' }] : [])];

const PUBLIC_URL = 'https://auth.example.com';
const BASE_URL = `${PUBLIC_URL}/scim/v2`;
const SCIM_BUDGET = 100;
const SCIM_TYPE = 'application/scim+json';
const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';
const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

interface ScimAnswer<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
}

interface ScimUserJson {
  id: string;
  userName: string;
  active: boolean;
  externalId?: string;
}

describe.each(backends)('SCIM 2.0 provisioning on $name', ({ name }) => {
  let server: TestServer;
  let db: TestDatabase | undefined;
  let dns: TxtDnsServer;
  let inbox: TestInbox;
  let url: string;
  /** Every SCIM token the tests made: none may reach the logs. */
  const tokens: string[] = [];

  beforeAll(async () => {
    inbox = await new TestInbox().start();
    dns = await startTxtDnsServer();
    if (name === 'postgres') db = await createTestDatabase(TEST_DATABASE_URL as string);
    server = await startTestServer({
      DATABASE_URL: db?.url ?? 'memory:',
      DNS_SERVERS: dns.address,
      SMTP_URL: inbox.url,
      APP_URL: 'https://app.test',
      PUBLIC_URL,
      SCIM_RATE_LIMIT_MAX: String(SCIM_BUDGET),
      LOG_LEVEL: 'debug',
    });
    url = server.baseUrl;
  });
  afterAll(async () => {
    await server?.close();
    await db?.drop();
    await dns?.close();
    await inbox?.stop();
  });

  /** A request to `/scim/v2` as a directory sends it: SCIM's media type, the token as a Bearer. */
  async function scim<T = Record<string, unknown>>(
    token: string | undefined,
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ScimAnswer<T>> {
    const res = await fetch(`${url}/scim/v2${path}`, {
      method,
      headers: {
        accept: SCIM_TYPE,
        ...(body === undefined ? {} : { 'content-type': SCIM_TYPE }),
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        // The recorded headers as the directory sent them (`Content-Type` in its own case), not twice.
        ...Object.fromEntries(Object.entries(headers).map(([key, value]) => [key.toLowerCase(), value])),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (text !== '') expect(res.headers.get('content-type')).toMatch(/^application\/scim\+json/);
    return {
      status: res.status,
      headers: res.headers,
      body: (text === '' ? undefined : JSON.parse(text)) as T,
    };
  }

  /** Asserts an answer in SCIM's error form (RFC 7644 3.12): `status` a string, `scimType` when given. */
  function expectScimError(r: ScimAnswer, status: number, scimType?: string) {
    expect(r.status, JSON.stringify(r.body)).toBe(status);
    expect(r.body).toMatchObject({ schemas: [ERROR_SCHEMA], status: String(status) });
    if (scimType === undefined) expect(r.body).not.toHaveProperty('scimType');
    else expect(r.body.scimType).toBe(scimType);
  }

  /**
   * An owner at `owner-…@<domain>` whose tenant verified `domain` and `more`, and its SCIM token; with
   * `verifiedOwner`, the owner's address verified too (to invite).
   */
  async function directoryTenant(domain = newDomain(), more: readonly string[] = [], verifiedOwner = false) {
    const email = `owner-${randomUUID().slice(0, 6)}@${domain}`;
    const register = () =>
      api<TokenResponseJson>(url, '/auth/register', { body: { email, password: PASSWORD } });
    let reg: Awaited<ReturnType<typeof register>> | undefined;
    if (verifiedOwner) {
      const verification = await inbox.tokenFrom(email, '/verify-email', async () => {
        reg = await register();
      });
      expect((await api(url, '/auth/email/verify', { body: { token: verification } })).status).toBe(204);
    } else {
      reg = await register();
    }
    if (reg === undefined) throw new Error('registration did not answer');
    expect(reg.status).toBe(201);
    const ownerToken = reg.body.accessToken;
    for (const name of [domain, ...more]) await verifiedDomain(url, dns, ownerToken, name);
    const created = await api<{ token: string; createdAt: string; baseUrl: string }>(
      url,
      '/tenants/me/scim/token',
      { method: 'POST', token: ownerToken },
    );
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      token: expect.stringMatching(/^tas_[A-Za-z0-9_-]{43}$/),
      createdAt: expect.any(String),
      baseUrl: BASE_URL,
    });
    tokens.push(created.body.token);
    return { domain, email, ownerId: reg.body.user.id, ownerToken, token: created.body.token };
  }

  /** A user of the owner's tenant with a password and a session (invited, accepted). */
  async function invitedMember(ownerToken: string, email: string) {
    const invitation = await inbox.tokenFrom(email, '/accept-invitation', async () => {
      const r = await api(url, '/tenants/me/invitations', {
        token: ownerToken,
        body: { email, role: 'member' },
      });
      expect(r.status).toBe(201);
    });
    const r = await api<TokenResponseJson>(url, '/auth/invitations/accept', {
      body: { token: invitation, password: PASSWORD },
    });
    expect(r.status).toBe(201);
    return r.body;
  }

  const newUser = (userName: string, extra: Record<string, unknown> = {}) => ({
    schemas: [USER_SCHEMA],
    userName,
    name: { givenName: 'Given', familyName: 'Family' },
    emails: [{ value: userName, type: 'work', primary: true }],
    active: true,
    ...extra,
  });
  const patchOf = (...operations: unknown[]) => ({ schemas: [PATCH_SCHEMA], Operations: operations });

  describe.each(['entra', 'okta'] as const)('the recorded %s conversation', (directory) => {
    it('replays over HTTP: every answer holds what the fixture expects', async () => {
      const recorded = scimConversation(directory);
      const { token } = await directoryTenant(newDomain(), recorded.tenant.verifiedDomains);
      const answer = async (request: ScimExchange['request']) => {
        // The fixtures write queries as the documentation shows them; fetch percent-encodes them.
        const r = await scim(token, request.method, request.path, request.body, request.headers ?? {});
        if (request.method === 'POST' && r.status === 201) {
          expect(r.headers.get('location')).toBe((r.body as { meta: { location: string } }).meta.location);
          expect(r.headers.get('location')).toMatch(new RegExp(`^${BASE_URL}/(Users|Groups)/`));
        }
        return r;
      };
      await replayScimConversation(recorded, answer);
    });
  });

  it('answers discovery with the token only; a missing, wrong, replaced or revoked token is 401 in SCIM form', async () => {
    const tenant = await directoryTenant();
    const config = await scim(tenant.token, 'GET', '/ServiceProviderConfig');
    expect(config.status).toBe(200);
    expect(config.body).toMatchObject({
      patch: { supported: true },
      filter: { supported: true, maxResults: 200 },
    });
    for (const path of ['/ResourceTypes', '/Schemas']) {
      const list = await scim(tenant.token, 'GET', path);
      expect(list.body).toMatchObject({ totalResults: 2, Resources: expect.any(Array) });
    }

    const missing = await scim(undefined, 'GET', '/ServiceProviderConfig');
    expectScimError(missing, 401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    expectScimError(await scim(`tas_${'A'.repeat(43)}`, 'GET', '/Users'), 401);
    const wrong = await scim('not-a-token', 'GET', '/Schemas');
    expectScimError(wrong, 401);
    expect(wrong.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    // An access token of the owner is no SCIM token.
    expectScimError(await scim(tenant.ownerToken, 'GET', '/Users'), 401);

    // A new token replaces the old one at once.
    const next = await api<{ token: string }>(url, '/tenants/me/scim/token', {
      method: 'POST',
      token: tenant.ownerToken,
    });
    expect(next.status).toBe(201);
    tokens.push(next.body.token);
    expectScimError(await scim(tenant.token, 'GET', '/Users'), 401);
    expect((await scim(next.body.token, 'GET', '/Users')).status).toBe(200);

    const settings = await api<{ scim: Record<string, unknown> }>(url, '/tenants/me/scim', {
      token: tenant.ownerToken,
    });
    expect(settings.status).toBe(200);
    expect(settings.body.scim).toMatchObject({ enabled: true, baseUrl: BASE_URL, groupRoles: [] });
    expect(JSON.stringify(settings.body)).not.toContain(next.body.token);

    // Revoked: 401 at once; a second revocation finds nothing.
    const revoked = await api(url, '/tenants/me/scim/token', { method: 'DELETE', token: tenant.ownerToken });
    expect(revoked.status).toBe(204);
    expectScimError(await scim(next.body.token, 'GET', '/ServiceProviderConfig'), 401);
    expectProblem(
      await api(url, '/tenants/me/scim/token', { method: 'DELETE', token: tenant.ownerToken }),
      404,
      'not_found',
    );
    const after = await api<{ scim: Record<string, unknown> }>(url, '/tenants/me/scim', {
      token: tenant.ownerToken,
    });
    expect(after.body.scim).toMatchObject({ enabled: false, createdAt: null });
  });

  it("answers 404 for another tenant's users and groups, and 400 for another tenant's user as a member", async () => {
    const a = await directoryTenant();
    const b = await directoryTenant();
    const user = await scim<ScimUserJson>(a.token, 'POST', '/Users', newUser(`ada@${a.domain}`));
    expect(user.status).toBe(201);
    const group = await scim<{ id: string }>(a.token, 'POST', '/Groups', {
      schemas: [GROUP_SCHEMA],
      displayName: 'Engineering',
    });
    expect(group.status).toBe(201);
    expectScimError(await scim(b.token, 'GET', `/Users/${user.body.id}`), 404);
    expectScimError(
      await scim(
        b.token,
        'PATCH',
        `/Users/${user.body.id}`,
        patchOf({ op: 'replace', path: 'active', value: false }),
      ),
      404,
    );
    expectScimError(await scim(b.token, 'DELETE', `/Users/${user.body.id}`), 404);
    expectScimError(await scim(b.token, 'GET', `/Groups/${group.body.id}`), 404);
    expectScimError(await scim(b.token, 'DELETE', `/Groups/${group.body.id}`), 404);
    const listed = await scim<{ totalResults: number }>(
      b.token,
      'GET',
      `/Users?filter=${encodeURIComponent(`userName eq "ada@${a.domain}"`)}`,
    );
    expect(listed.body.totalResults).toBe(0);
    expectScimError(
      await scim(b.token, 'POST', '/Groups', {
        schemas: [GROUP_SCHEMA],
        displayName: 'Thieves',
        members: [{ value: user.body.id }],
      }),
      400,
      'invalidValue',
    );
    // A's user is untouched.
    const still = await scim<ScimUserJson>(a.token, 'GET', `/Users/${user.body.id}`);
    expect(still.body.active).toBe(true);
  });

  it("deactivation by PATCH revokes the user's sessions and refuses its password (403 account_disabled); active: true restores it", async () => {
    const tenant = await directoryTenant(newDomain(), [], true);
    const email = `bob-${randomUUID().slice(0, 6)}@${tenant.domain}`;
    const bob = await invitedMember(tenant.ownerToken, email);
    // The directory takes over the user it finds (a link: same id, 201).
    const linked = await scim<ScimUserJson>(
      tenant.token,
      'POST',
      '/Users',
      newUser(email, { externalId: 'bob-1' }),
    );
    expect(linked.status).toBe(201);
    expect(linked.body.id).toBe(bob.user.id);

    const off = await scim<ScimUserJson>(
      tenant.token,
      'PATCH',
      `/Users/${bob.user.id}`,
      patchOf({ op: 'Replace', path: 'active', value: 'False' }),
    );
    expect(off.status).toBe(200);
    expect(off.body.active).toBe(false);
    expectProblem(
      await api(url, '/auth/refresh', { body: { refreshToken: bob.refreshToken } }),
      401,
      'invalid_token',
    );
    expectProblem(
      await api(url, '/auth/login', { body: { email, password: PASSWORD } }),
      403,
      'account_disabled',
    );
    const members = await api<{ members: { id: string; active: boolean }[] }>(url, '/tenants/me/members', {
      token: tenant.ownerToken,
    });
    expect(members.body.members.find((m) => m.id === bob.user.id)?.active).toBe(false);

    const on = await scim<ScimUserJson>(
      tenant.token,
      'PATCH',
      `/Users/${bob.user.id}`,
      patchOf({ op: 'replace', value: { active: true } }),
    );
    expect(on.body.active).toBe(true);
    expect((await api(url, '/auth/login', { body: { email, password: PASSWORD } })).status).toBe(200);

    // Audited as the directory's.
    for (const type of ['user_deactivated', 'user_reactivated', 'scim_user_created']) {
      const events = await api<{ events: { type: string; actorType: string }[] }>(
        url,
        `/tenants/me/audit-events?type=${type}`,
        { token: tenant.ownerToken },
      );
      expect(events.status).toBe(200);
      expect(events.body.events.length, type).toBeGreaterThan(0);
      for (const event of events.body.events) expect(event.actorType, type).toBe('scim');
    }
  });

  it('a patch applies all its operations or none', async () => {
    const tenant = await directoryTenant();
    const user = await scim<ScimUserJson>(tenant.token, 'POST', '/Users', newUser(`cy@${tenant.domain}`));
    const refused = await scim(
      tenant.token,
      'PATCH',
      `/Users/${user.body.id}`,
      patchOf(
        { op: 'replace', path: 'externalId', value: 'changed' },
        { op: 'replace', path: 'active', value: 'maybe' },
      ),
    );
    expectScimError(refused, 400, 'invalidValue');
    const read = await scim<ScimUserJson>(tenant.token, 'GET', `/Users/${user.body.id}`);
    expect(read.body.externalId).toBeUndefined();
    expect(read.body.active).toBe(true);
  });

  it('ten concurrent creates of one userName (in any case): one 201, nine 409 uniqueness, one user', async () => {
    const tenant = await directoryTenant();
    const userName = `zoe@${tenant.domain}`;
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        scim(tenant.token, 'POST', '/Users', newUser(i % 2 ? userName.toUpperCase() : userName)),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, ...Array(9).fill(409)]);
    for (const refused of answers.filter((a) => a.status === 409))
      expectScimError(refused, 409, 'uniqueness');
    const found = await scim<{ totalResults: number }>(
      tenant.token,
      'GET',
      `/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`,
    );
    expect(found.body.totalResults).toBe(1);
  });

  it('a patch refused by a rule after some of its writes (the last owner) writes none of them', async () => {
    const tenant = await directoryTenant();
    const before = await scim<ScimUserJson>(tenant.token, 'GET', `/Users/${tenant.ownerId}`);
    // The names are written first in the transaction; deactivating the last active owner then fails.
    const refused = await scim(
      tenant.token,
      'PATCH',
      `/Users/${tenant.ownerId}`,
      patchOf(
        { op: 'replace', path: 'displayName', value: 'Renamed' },
        { op: 'replace', path: 'externalId', value: 'ext-owner' },
        { op: 'replace', path: 'active', value: false },
      ),
    );
    expectScimError(refused, 409, 'mutability');
    const after = await scim<ScimUserJson>(tenant.token, 'GET', `/Users/${tenant.ownerId}`);
    expect(after.body).toEqual(before.body);
  });

  it('never changes the address of an owner or of a user it does not manage (403): its token takes over no account', async () => {
    const tenant = await directoryTenant(newDomain(), [], true);
    const member = await invitedMember(tenant.ownerToken, `dee@${tenant.domain}`);
    for (const id of [tenant.ownerId, member.user.id]) {
      const moved = await scim(
        tenant.token,
        'PATCH',
        `/Users/${id}`,
        patchOf({ op: 'replace', path: 'userName', value: `mallory@${tenant.domain}` }),
      );
      expectScimError(moved, 403);
    }
    // Linked by a POST, the owner is the directory's, and still its address is not.
    expect((await scim(tenant.token, 'POST', '/Users', newUser(tenant.email))).status).toBe(201);
    const linkedOwner = await scim(
      tenant.token,
      'PATCH',
      `/Users/${tenant.ownerId}`,
      patchOf({ op: 'replace', path: 'userName', value: `mallory@${tenant.domain}` }),
    );
    expectScimError(linkedOwner, 403);
    const login = await api(url, '/auth/login', { body: { email: tenant.email, password: PASSWORD } });
    expect(login.status).toBe(200);
    const me = await api<{ email: string }>(url, '/users/me', { token: member.accessToken });
    expect(me.body.email).toBe(`dee@${tenant.domain}`);
  });

  it('the last active owner cannot be deactivated or removed (409 mutability)', async () => {
    const tenant = await directoryTenant();
    const off = await scim(
      tenant.token,
      'PATCH',
      `/Users/${tenant.ownerId}`,
      patchOf({ op: 'replace', path: 'active', value: false }),
    );
    expectScimError(off, 409, 'mutability');
    expectScimError(await scim(tenant.token, 'DELETE', `/Users/${tenant.ownerId}`), 409, 'mutability');
    const login = await api(url, '/auth/login', { body: { email: tenant.email, password: PASSWORD } });
    expect(login.status).toBe(200);
  });

  it('userName outside the verified domains is 400 invalidValue; an address in use elsewhere is 409 uniqueness, naming no one', async () => {
    const tenant = await directoryTenant();
    expectScimError(
      await scim(tenant.token, 'POST', '/Users', newUser(`eve@${newDomain()}`)),
      400,
      'invalidValue',
    );
    // An address of the tenant's domain that another tenant's user holds (registered before the domain was verified).
    const domain = newDomain();
    const taken = `dan-${randomUUID().slice(0, 6)}@${domain}`;
    const elsewhere = await api<TokenResponseJson>(url, '/auth/register', {
      body: { email: taken, password: PASSWORD, tenantName: 'Elsewhere Ltd' },
    });
    expect(elsewhere.status).toBe(201);
    const other = await directoryTenant(domain);
    const conflict = await scim(other.token, 'POST', '/Users', newUser(taken));
    expectScimError(conflict, 409, 'uniqueness');
    const text = JSON.stringify(conflict.body);
    expect(text).not.toContain(taken);
    expect(text).not.toContain(elsewhere.body.user.tenantId);
    expect(text).not.toContain('Elsewhere');
  });

  it("maps groups to roles: PUT group-roles re-derives the roles of the directory's users", async () => {
    const tenant = await directoryTenant();
    const user = await scim<ScimUserJson>(tenant.token, 'POST', '/Users', newUser(`fay@${tenant.domain}`));
    const group = await scim<{ id: string }>(tenant.token, 'POST', '/Groups', {
      schemas: [GROUP_SCHEMA],
      displayName: 'Admins',
      members: [{ value: user.body.id }],
    });
    expect(group.status).toBe(201);
    const roleOf = async (id: string) => {
      const r = await api<{ members: { id: string; role: string }[] }>(url, '/tenants/me/members', {
        token: tenant.ownerToken,
      });
      return r.body.members.find((m) => m.id === id)?.role;
    };
    expect(await roleOf(user.body.id)).toBe('member');
    const put = await api<{ groupRoles: unknown[] }>(url, '/tenants/me/scim/group-roles', {
      method: 'PUT',
      token: tenant.ownerToken,
      body: { groupRoles: [{ group: 'Admins', role: 'admin' }] },
    });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ groupRoles: [{ group: 'Admins', role: 'admin' }] });
    expect(await roleOf(user.body.id)).toBe('admin');
    // Leaving the group takes the role away, in the same transaction.
    const removed = await scim(
      tenant.token,
      'PATCH',
      `/Groups/${group.body.id}`,
      patchOf({ op: 'remove', path: `members[value eq "${user.body.id}"]` }),
    );
    expect([200, 204]).toContain(removed.status);
    expect(await roleOf(user.body.id)).toBe('member');
    // Owners are made by owners.
    const owner = await api(url, '/tenants/me/scim/group-roles', {
      method: 'PUT',
      token: tenant.ownerToken,
      body: { groupRoles: [{ group: 'Admins', role: 'owner' }] },
    });
    expectProblem(owner, 400, 'validation_failed');
    expect(owner.body).toMatchObject({ errors: [expect.objectContaining({ code: 'invalid_role' })] });
    const settings = await api<{ scim: { groupRoles: unknown[] } }>(url, '/tenants/me/scim', {
      token: tenant.ownerToken,
    });
    expect(settings.body.scim.groupRoles).toEqual([{ group: 'Admins', role: 'admin' }]);
    const changed = await api<{ events: { actorType: string }[] }>(
      url,
      '/tenants/me/audit-events?type=scim_group_changed',
      { token: tenant.ownerToken },
    );
    expect(changed.body.events.length).toBeGreaterThan(0);
    for (const event of changed.body.events) expect(event.actorType).toBe('scim');
  });

  it("spends each tenant's own budget: beyond SCIM_RATE_LIMIT_MAX, 429 with Retry-After in SCIM form", async () => {
    const busy = await directoryTenant();
    const calm = await directoryTenant();
    for (let i = 0; i < SCIM_BUDGET; i++) {
      const r = await scim(busy.token, 'GET', '/ServiceProviderConfig');
      expect(r.status).toBe(200);
    }
    const refused = await scim(busy.token, 'GET', '/Users');
    expectScimError(refused, 429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('ratelimit-limit')).toBe(String(SCIM_BUDGET));
    expect((await scim(calm.token, 'GET', '/Users')).status).toBe(200);
  });

  it('counts SCIM requests in /metrics, and never writes a SCIM token to the log', async () => {
    const metrics = await fetch(`${url}/metrics`);
    const text = await metrics.text();
    expect(text).toMatch(
      /tenant_auth_scim_requests_total\{operation="create_user",outcome="success"\} [1-9]/,
    );
    expect(text).toMatch(
      /tenant_auth_scim_requests_total\{operation="list_users",outcome="invalid_token"\} [1-9]/,
    );
    expect(tokens.length).toBeGreaterThan(5);
    const logs = server.logs.join('\n');
    expect(logs).toContain('/scim/v2/');
    for (const token of tokens) {
      expect(logs).not.toContain(token);
      expect(text).not.toContain(token);
    }
  });
});
