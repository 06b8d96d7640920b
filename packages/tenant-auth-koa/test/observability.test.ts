import { randomUUID } from 'node:crypto';
import Router from '@koa/router';
import { SpanStatusCode, trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import Koa from 'koa';
import { isTenantAuthError, type TenantAuthOptions } from 'tenant-auth-core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createTenantAuthKoa,
  openTelemetrySpan,
  type ResponseInfo,
  type TenantAuthKoaOptions,
  UNMATCHED_ROUTE,
} from '../src/index.js';
import { createCheckedTenantAuthKoa } from './answer-check.js';
import {
  createTestAuth,
  json,
  listen,
  ORIGIN,
  PASSWORD,
  postJson,
  quiet,
  type Running,
  type TokenBody,
  uniqueEmail,
} from './helpers.js';

/*
 * What an application observes of tenant-auth for its metrics and traces: the response hook (route
 * templates, never raw paths) and the OpenTelemetry span helper for core's instrumentation.
 */

let server: Running | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** An application with tenant-auth under /api/v1, a route of its own under it and one outside it. */
async function observedApp(
  options: Partial<TenantAuthKoaOptions> = {},
  authOptions: Partial<TenantAuthOptions> = {},
) {
  const seen: ResponseInfo[] = [];
  const t = createTestAuth({ rateLimit: { strict: 100, general: 1000 }, ...authOptions });
  const app = new Koa();
  const tenantAuth = createCheckedTenantAuthKoa({
    auth: t.auth,
    logger: quiet,
    onResponse: (info) => seen.push(info),
    ...options,
  });
  app.use(tenantAuth.middleware());
  const own = new Router({ prefix: '/api/v1' });
  own.get('/projects/:id', tenantAuth.requireAuth(), (ctx) => {
    ctx.body = { id: ctx.params.id };
  });
  app.use(own.routes());
  const outside = new Router();
  outside.get('/status/:id', (ctx) => {
    ctx.body = { ok: true };
  });
  app.use(outside.routes());
  const running = await listen(app);
  server = running;
  return { t, seen, url: running.url, api: `${running.url}/api/v1` };
}

async function register(api: string): Promise<TokenBody> {
  const res = await postJson(`${api}/auth/register`, { email: uniqueEmail(), password: PASSWORD });
  expect(res.status).toBe(201);
  return (await json(res)) as TokenBody;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('onResponse', () => {
  it('names each request by its route template, method and status, never by its path', async () => {
    const { seen, api } = await observedApp();
    const reg = await register(api);
    const headers = bearer(reg.accessToken);
    for (let i = 0; i < 3; i++) {
      expect((await fetch(`${api}/sessions/${randomUUID()}`, { method: 'DELETE', headers })).status).toBe(
        404,
      );
      expect((await fetch(`${api}/tenants/${randomUUID()}`, { headers })).status).toBe(404);
      expect((await fetch(`${api}/nope/${randomUUID()}`, { headers })).status).toBe(404);
    }
    expect((await fetch(`${api}/tenants/me`, { headers })).status).toBe(200);
    expect((await fetch(`${api}/sessions/${reg.session.id}`, { method: 'DELETE', headers })).status).toBe(
      204,
    );

    expect(seen[0]).toMatchObject({ route: '/api/v1/auth/register', method: 'POST', status: 201 });
    const routes = seen.slice(1).map((i) => `${i.method} ${i.route} ${i.status}`);
    expect(new Set(routes)).toEqual(
      new Set([
        'DELETE /api/v1/sessions/:id 404',
        'GET /api/v1/tenants/:id 404',
        `GET ${UNMATCHED_ROUTE} 404`,
        'GET /api/v1/tenants/me 200',
        'DELETE /api/v1/sessions/:id 204',
      ]),
    );
    expect(routes).toHaveLength(11);
    for (const info of seen) {
      expect(info.durationSeconds).toBeGreaterThan(0);
      expect(info.durationSeconds).toBeLessThan(10);
    }
  });

  it('names a refused request by the route it was meant for (429, 405, 401, a CORS preflight)', async () => {
    const { seen, api } = await observedApp({}, { rateLimit: { strict: 1, general: 1000 } });
    const body = { email: uniqueEmail(), password: PASSWORD };
    expect((await postJson(`${api}/auth/login`, body)).status).toBe(401);
    expect((await postJson(`${api}/auth/login`, body)).status).toBe(429);
    expect((await fetch(`${api}/auth/login`)).status).toBe(405);
    expect((await fetch(`${api}/sessions`)).status).toBe(401);
    const preflight = await fetch(`${api}/sessions/${randomUUID()}`, {
      method: 'OPTIONS',
      headers: { origin: ORIGIN, 'access-control-request-method': 'DELETE' },
    });
    expect(preflight.status).toBe(204);
    expect(seen.map((i) => `${i.method} ${i.route} ${i.status}`)).toEqual([
      'POST /api/v1/auth/login 401',
      'POST /api/v1/auth/login 429',
      'GET /api/v1/auth/login 405',
      'GET /api/v1/sessions 401',
      'OPTIONS /api/v1/sessions/:id 204',
    ]);
  });

  it("names the application's own routes under the prefix by their template, and leaves the rest to it", async () => {
    const { seen, api, url } = await observedApp();
    const reg = await register(api);
    seen.length = 0;
    const res = await fetch(`${api}/projects/${randomUUID()}`, { headers: bearer(reg.accessToken) });
    expect(res.status).toBe(200);
    expect((await fetch(`${api}/projects/${randomUUID()}`)).status).toBe(401);
    expect((await fetch(`${url}/status/${randomUUID()}`)).status).toBe(200);
    expect((await fetch(`${url}/elsewhere`)).status).toBe(404);
    expect(seen.map((i) => `${i.method} ${i.route} ${i.status}`)).toEqual([
      'GET /api/v1/projects/:id 200',
      'GET /api/v1/projects/:id 401',
    ]);
  });

  it('answers as usual when the hook throws', async () => {
    const { api } = await observedApp({
      onResponse: () => {
        throw new Error('metrics are broken');
      },
    });
    const reg = await register(api);
    expect((await fetch(`${api}/tenants/me`, { headers: bearer(reg.accessToken) })).status).toBe(200);
  });

  it('refuses an onResponse that is not a function, naming it', () => {
    const { auth } = createTestAuth();
    let caught: unknown;
    try {
      createTenantAuthKoa({ auth, onResponse: 'yes' as never });
    } catch (err) {
      caught = err;
    }
    expect(isTenantAuthError(caught, 'invalid_configuration')).toBe(true);
    expect((caught as { option?: string }).option).toBe('onResponse');
  });
});

describe('openTelemetrySpan', () => {
  function tracing() {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const names = () => exporter.getFinishedSpans().map((s) => s.name);
    return { exporter, provider, names };
  }

  const named = (spans: ReadableSpan[], name: string) => spans.filter((s) => s.name === name);

  it('traces registration, login, refresh and password hashing; a failure is an error span', async () => {
    const { exporter, provider } = tracing();
    const { api } = await observedApp(
      {},
      { instrumentation: { span: openTelemetrySpan('test', { tracerProvider: provider }) } },
    );
    const reg = await register(api);
    const email = reg.user.email;
    expect((await postJson(`${api}/auth/login`, { email, password: PASSWORD })).status).toBe(200);
    expect((await postJson(`${api}/auth/login`, { email, password: `${PASSWORD}!` })).status).toBe(401);
    expect((await postJson(`${api}/auth/refresh`, { refreshToken: reg.refreshToken })).status).toBe(200);

    const spans = exporter.getFinishedSpans();
    expect(named(spans, 'tenant-auth.register')).toHaveLength(1);
    // Registration hashes the password (core may hash its dummy for unknown emails too).
    expect(named(spans, 'tenant-auth.password.hash').length).toBeGreaterThanOrEqual(1);
    expect(named(spans, 'tenant-auth.login')).toHaveLength(2);
    expect(named(spans, 'tenant-auth.password.verify')).toHaveLength(2);
    expect(named(spans, 'tenant-auth.refresh')).toHaveLength(1);
    for (const span of spans) expect(span.instrumentationScope.name).toBe('test');

    const [ok, failed] = named(spans, 'tenant-auth.login');
    expect(ok?.status.code).toBe(SpanStatusCode.UNSET);
    expect(failed?.status.code).toBe(SpanStatusCode.ERROR);
    expect(failed?.attributes['tenant_auth.error_code']).toBe('invalid_credentials');
    expect(failed?.events.map((e) => e.name)).toEqual(['exception']);
    // No secret on any span.
    const everything = JSON.stringify(spans.map((s) => [s.attributes, s.events, s.status]));
    expect(everything).not.toContain(PASSWORD);
    expect(everything).not.toContain(reg.refreshToken);
  });

  it('uses the global tracer provider, also one registered after it was created', async () => {
    const span = openTelemetrySpan();
    const { exporter, provider } = tracing();
    expect(trace.setGlobalTracerProvider(provider)).toBe(true);
    try {
      const { api } = await observedApp({}, { instrumentation: { span } });
      await register(api);
      const names = exporter.getFinishedSpans().map((s) => s.name);
      expect(names).toContain('tenant-auth.register');
      expect(exporter.getFinishedSpans()[0]?.instrumentationScope.name).toBe('tenant-auth');
    } finally {
      trace.disable();
    }
  });

  it('is a no-op without a tracer provider', async () => {
    const { api } = await observedApp({}, { instrumentation: { span: openTelemetrySpan() } });
    const reg = await register(api);
    expect((await postJson(`${api}/auth/refresh`, { refreshToken: reg.refreshToken })).status).toBe(200);
  });
});
