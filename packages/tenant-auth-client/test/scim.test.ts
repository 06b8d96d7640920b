import { afterEach, describe, expect, it } from 'vitest';
import {
  createTenantAuthClient,
  type ReauthenticationContext,
  type TenantAuthClient,
  TenantAuthClientError,
} from '../src/index.js';
import { FakeApi, FakeTime, json, problem, USER } from './fakes.js';

// The SCIM methods of the client (API 1.3, "SCIM 2.0 provisioning per tenant") against a fake server:
// the routes they call, what they send and answer, the answers they refuse, and the owner's recent routes
// through onReauthenticationRequired. The real routes run in examples/web/test/directory-sync.test.ts.

const BASE = 'http://api.test/api/v1';
const CREDENTIALS = { email: USER.email, password: 'Correct-Horse-Battery-42' };
const TOKEN = `tas_${'A'.repeat(43)}`;
const SETTINGS = {
  enabled: true,
  baseUrl: 'https://auth.example.com/scim/v2',
  createdAt: '2026-05-01T12:00:00.000Z',
  lastUsedAt: null,
  groupRoles: [{ group: 'Admins', role: 'admin' }],
};

let clients: TenantAuthClient[] = [];
afterEach(() => {
  for (const c of clients) c.close();
  clients = [];
});

function setup(onReauthenticationRequired?: (context: ReauthenticationContext) => Promise<boolean>) {
  const time = new FakeTime();
  const api = new FakeApi(time);
  const client = createTenantAuthClient({
    baseUrl: BASE,
    mode: 'bearer',
    fetch: api.fetch,
    clock: time,
    timers: time,
    autoRefresh: false,
    crossTab: false,
    ...(onReauthenticationRequired ? { onReauthenticationRequired } : {}),
  });
  clients.push(client);
  return { api, client };
}

async function caught(promise: Promise<unknown>): Promise<TenantAuthClientError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof TenantAuthClientError) return err;
    throw err;
  }
  throw new Error('expected the promise to reject');
}

describe('the SCIM methods', () => {
  it('call their routes with the access token, send the mapping as its body, and answer what the page reads', async () => {
    const { api, client } = setup();
    await client.login(CREDENTIALS);
    const created = { token: TOKEN, createdAt: '2026-05-01T12:00:00.000Z', baseUrl: SETTINGS.baseUrl };
    api.routes.set('POST /api/v1/tenants/me/scim/token', () => json(201, created));
    api.routes.set('GET /api/v1/tenants/me/scim', () => json(200, { scim: SETTINGS }));
    api.routes.set('DELETE /api/v1/tenants/me/scim/token', () => new Response(null, { status: 204 }));
    api.routes.set('PUT /api/v1/tenants/me/scim/group-roles', (request) => json(200, request.body as object));

    expect(await client.createScimToken()).toEqual(created);
    expect(await client.getScim()).toEqual(SETTINGS);
    const mapping = [
      { group: 'Engineering', role: 'admin' as const },
      { group: 'Everyone', role: 'member' as const },
    ];
    expect(await client.setScimGroupRoles(mapping)).toEqual(mapping);
    await expect(client.revokeScimToken()).resolves.toBeUndefined();

    const scim = api.calls.filter((c) => c.path.startsWith('/api/v1/tenants/me/scim'));
    expect(scim.map((c) => `${c.method} ${c.path}`)).toEqual([
      'POST /api/v1/tenants/me/scim/token',
      'GET /api/v1/tenants/me/scim',
      'PUT /api/v1/tenants/me/scim/group-roles',
      'DELETE /api/v1/tenants/me/scim/token',
    ]);
    for (const call of scim) expect(call.headers.authorization).toMatch(/^Bearer /);
    // The creation sends nothing: the server makes the token.
    expect(scim[0]?.body).toBeUndefined();
    expect(scim[2]?.body).toEqual({ groupRoles: mapping });
  });

  it('refuse an answer without what a page acts on as an http_error, never a half-read value', async () => {
    const { api, client } = setup();
    await client.login(CREDENTIALS);
    // A token answer without its token (or not a SCIM token), a connection without its mapping.
    api.routes.set('POST /api/v1/tenants/me/scim/token', () =>
      json(201, { createdAt: '2026-05-01T12:00:00.000Z', baseUrl: SETTINGS.baseUrl }),
    );
    expect(await caught(client.createScimToken())).toMatchObject({ code: 'http_error', status: 201 });
    api.routes.set('POST /api/v1/tenants/me/scim/token', () =>
      json(201, { token: 'whsec_x', createdAt: '2026-05-01T12:00:00.000Z', baseUrl: SETTINGS.baseUrl }),
    );
    expect(await caught(client.createScimToken())).toMatchObject({ code: 'http_error' });
    api.routes.set('GET /api/v1/tenants/me/scim', () =>
      json(200, { scim: { enabled: false, baseUrl: SETTINGS.baseUrl } }),
    );
    expect(await caught(client.getScim())).toMatchObject({ code: 'http_error', status: 200 });
    // A mapping with an owner line is no mapping the server keeps.
    api.routes.set('PUT /api/v1/tenants/me/scim/group-roles', () =>
      json(200, { groupRoles: [{ group: 'Founders', role: 'owner' }] }),
    );
    expect(await caught(client.setScimGroupRoles([]))).toMatchObject({ code: 'http_error' });
  });

  it("pass the server's refusals through with their codes", async () => {
    const { api, client } = setup();
    await client.login(CREDENTIALS);
    api.routes.set('DELETE /api/v1/tenants/me/scim/token', () => problem(404, 'not_found'));
    expect(await caught(client.revokeScimToken())).toMatchObject({ code: 'not_found', status: 404 });
    api.routes.set('PUT /api/v1/tenants/me/scim/group-roles', () =>
      problem(400, 'validation_failed', {
        errors: [{ field: 'groupRoles.0.role', code: 'invalid_role', message: 'A role below owner.' }],
      }),
    );
    const refused = await caught(client.setScimGroupRoles([{ group: 'Admins', role: 'admin' }]));
    expect(refused.code).toBe('validation_failed');
    expect(refused.errors).toEqual([
      { field: 'groupRoles.0.role', code: 'invalid_role', message: 'A role below owner.' },
    ]);
    api.routes.set('POST /api/v1/tenants/me/scim/token', () => problem(403, 'forbidden'));
    expect(await caught(client.createScimToken())).toMatchObject({ code: 'forbidden', status: 403 });
  });

  it("an owner's recent route refused with reauthentication_required prompts, then runs again", async () => {
    const prompts: string[] = [];
    const { api, client } = setup(async (context) => {
      prompts.push(context.error.code);
      await context.reauthenticate({ password: CREDENTIALS.password });
      return true;
    });
    await client.login(CREDENTIALS);
    const state = { recent: false };
    api.routes.set('POST /api/v1/auth/reauthenticate', () => {
      state.recent = true;
      return api.signIn(200);
    });
    api.routes.set('POST /api/v1/tenants/me/scim/token', () =>
      state.recent
        ? json(201, { token: TOKEN, createdAt: '2026-05-01T12:00:00.000Z', baseUrl: SETTINGS.baseUrl })
        : problem(403, 'reauthentication_required'),
    );
    expect((await client.createScimToken()).token).toBe(TOKEN);
    expect(prompts).toEqual(['reauthentication_required']);
    expect(api.calls.filter((c) => c.path === '/api/v1/tenants/me/scim/token')).toHaveLength(2);
  });
});
