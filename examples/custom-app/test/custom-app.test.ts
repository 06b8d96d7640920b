import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { MikroORM } from '@mikro-orm/core';
import type { Logger } from 'tenant-auth-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { createOrm, migrate } from '../src/database.js';
import { backends, createTestDatabase } from './postgres.js';

const WEB_ORIGIN = 'https://app.example.com';
const PASSWORD = 'Correct-Horse-Battery-42';

interface ProjectJson {
  id: string;
  tenantId: string;
  name: string;
  createdAt: string;
}

interface Caller {
  tenantId: string;
  accessToken: string;
  /** The `Cookie` header a browser would send to the API after registering. */
  cookie: string;
}

describe.each(backends)('the custom app on $name', ({ name }) => {
  let orm: MikroORM;
  let server: Server;
  let dropDatabase: (() => Promise<void>) | undefined;
  let url: string;
  const errors: unknown[] = [];
  const logger: Logger = { info() {}, warn() {}, error: (obj) => errors.push(obj) };

  beforeAll(async () => {
    let databaseUrl: string | undefined;
    if (name === 'postgres') ({ url: databaseUrl, drop: dropDatabase } = await createTestDatabase());
    orm = createOrm(databaseUrl);
    const { app } = createApp({
      orm,
      jwtSecret: 'test-access-secret-0123456789abcdef-XYZ',
      jwtRefreshSecret: 'test-refresh-secret-0123456789abcdef-XYZ',
      production: false,
      origins: [WEB_ORIGIN],
      bcryptCost: 4,
      logger,
    });
    await migrate(orm);
    server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const address = server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });

  afterAll(async () => {
    server?.close();
    await orm?.close(true);
    await dropDatabase?.();
    expect(errors).toEqual([]);
  });

  async function call(path: string, init: RequestInit & { token?: string; json?: unknown } = {}) {
    const { token, json, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (token) headers.set('authorization', `Bearer ${token}`);
    if (json !== undefined) headers.set('content-type', 'application/json');
    const res = await fetch(`${url}${path}`, {
      method: rest.method ?? (json === undefined ? 'GET' : 'POST'),
      ...rest,
      headers,
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) };
  }

  function expectProblem(r: Awaited<ReturnType<typeof call>>, status: number, code: string) {
    expect(r.status).toBe(status);
    expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(r.body).toMatchObject({ type: 'about:blank', status, code });
  }

  async function register(tenantName: string): Promise<Caller> {
    const email = `${randomUUID()}@example.com`;
    const res = await fetch(`${url}/api/v1/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: PASSWORD, tenantName }),
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { accessToken: string; user: { tenantId: string } };
    const cookie = res.headers
      .getSetCookie()
      .map((line) => line.split(';')[0])
      .join('; ');
    return { tenantId: body.user.tenantId, accessToken: body.accessToken, cookie };
  }

  async function createProject(caller: Caller, projectName: string): Promise<ProjectJson> {
    const r = await call('/api/v1/projects', { token: caller.accessToken, json: { name: projectName } });
    expect(r.status).toBe(201);
    return r.body as ProjectJson;
  }

  let a: Caller;
  let b: Caller;
  let aProjects: ProjectJson[];
  let bProject: ProjectJson;

  beforeAll(async () => {
    a = await register('Tenant A');
    b = await register('Tenant B');
    expect(a.tenantId).not.toBe(b.tenantId);
    aProjects = [await createProject(a, 'Apollo'), await createProject(a, 'Gemini')];
    bProject = await createProject(b, 'Vostok');
  });

  it('creates a project in the caller’s tenant (201)', () => {
    expect(aProjects[0]).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      tenantId: a.tenantId,
      name: 'Apollo',
      createdAt: expect.any(String),
    });
    expect(bProject.tenantId).toBe(b.tenantId);
  });

  it('lists only the caller’s tenant’s projects', async () => {
    const forA = await call('/api/v1/projects', { token: a.accessToken });
    expect(forA.status).toBe(200);
    expect(forA.body).toEqual({ projects: aProjects });

    const forB = await call('/api/v1/projects', { token: b.accessToken });
    expect(forB.body).toEqual({ projects: [bProject] });
  });

  it('answers a project by id to its own tenant only; 404 for another tenant’s, an unknown or a non-UUID id', async () => {
    const own = await call(`/api/v1/projects/${bProject.id}`, { token: b.accessToken });
    expect(own.status).toBe(200);
    expect(own.body).toEqual(bProject);

    const foreign = await call(`/api/v1/projects/${bProject.id}`, { token: a.accessToken });
    expectProblem(foreign, 404, 'not_found');
    const unknown = await call(`/api/v1/projects/${randomUUID()}`, { token: a.accessToken });
    expectProblem(unknown, 404, 'not_found');
    // Nothing tells another tenant's project from one that does not exist.
    expect(foreign.body).toEqual(unknown.body);

    const notAUuid = await call('/api/v1/projects/not-a-uuid', { token: a.accessToken });
    expectProblem(notAUuid, 404, 'not_found');
  });

  it('ignores a tenantId in the body: the project is created in the caller’s tenant', async () => {
    const r = await call('/api/v1/projects', {
      token: a.accessToken,
      json: { name: 'Trojan', tenantId: b.tenantId },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ tenantId: a.tenantId, name: 'Trojan' });

    const forB = await call('/api/v1/projects', { token: b.accessToken });
    expect(forB.body).toEqual({ projects: [bProject] });
    const forA = await call('/api/v1/projects', { token: a.accessToken });
    expect((forA.body as { projects: ProjectJson[] }).projects.map((p) => p.name)).toContain('Trojan');
  });

  it('refuses an invalid name with the problem shape of tenant-auth (400 validation_failed)', async () => {
    for (const json of [{}, { name: '   ' }, { name: 42 }, { name: 'x'.repeat(201) }]) {
      const r = await call('/api/v1/projects', { token: a.accessToken, json });
      expectProblem(r, 400, 'validation_failed');
      expect(r.body.errors).toEqual([
        { field: 'name', code: expect.any(String), message: expect.any(String) },
      ]);
    }
  });

  it('answers 401 invalid_token without a token, or with a bad one', async () => {
    for (const [path, method] of [
      ['/api/v1/projects', 'GET'],
      ['/api/v1/projects', 'POST'],
      [`/api/v1/projects/${aProjects[0]?.id}`, 'GET'],
    ] as const) {
      const r = await call(path, { method, ...(method === 'POST' ? { json: { name: 'x' } } : {}) });
      expectProblem(r, 401, 'invalid_token');
      expect(r.headers.get('www-authenticate')).toBe('Bearer');
    }
    const bad = await call('/api/v1/projects', { token: 'not.a.token' });
    expectProblem(bad, 401, 'invalid_token');
  });

  it('accepts the access cookie, but refuses a cookie-authenticated POST from a foreign origin (403 csrf_rejected)', async () => {
    const fromApp = await call('/api/v1/projects', {
      headers: { cookie: a.cookie, origin: WEB_ORIGIN },
      json: { name: 'From the web app' },
    });
    expect(fromApp.status).toBe(201);
    expect(fromApp.body).toMatchObject({ tenantId: a.tenantId });

    const fromElsewhere = await call('/api/v1/projects', {
      headers: { cookie: a.cookie, origin: 'https://evil.example' },
      json: { name: 'Forged' },
    });
    expectProblem(fromElsewhere, 403, 'csrf_rejected');
    const noOrigin = await call('/api/v1/projects', {
      headers: { cookie: a.cookie },
      json: { name: 'Forged' },
    });
    expectProblem(noOrigin, 403, 'csrf_rejected');

    const list = await call('/api/v1/projects', { token: a.accessToken });
    expect((list.body as { projects: ProjectJson[] }).projects.map((p) => p.name)).not.toContain('Forged');
  });

  it('applies tenant-auth’s rules to the app’s routes under the prefix: JSON bodies only, problem 404 and 405', async () => {
    const form = await call('/api/v1/projects', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${a.accessToken}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'name=Form',
    });
    expectProblem(form, 415, 'unsupported_media_type');
    expectProblem(await call('/api/v1/nothing-here', { token: a.accessToken }), 404, 'not_found');
    const wrongMethod = await call('/api/v1/projects', { method: 'DELETE', token: a.accessToken });
    expectProblem(wrongMethod, 405, 'method_not_allowed');
  });

  it('leaves the app’s own routes outside the prefix untouched: a form-encoded POST works', async () => {
    const res = await fetch(`${url}/webhooks/billing`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'event=invoice.paid&amount=42',
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received: 'invoice.paid' });
    // None of tenant-auth's headers, and Koa's own plain 404 outside the prefix.
    expect(res.headers.get('x-request-id')).toBeNull();
    expect(res.headers.get('ratelimit-limit')).toBeNull();
    const missing = await fetch(`${url}/no-such-page`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/^text\/plain/);
  });
});
