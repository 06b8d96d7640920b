import { randomUUID } from 'node:crypto';
import Koa from 'koa';
import {
  createMemoryStores,
  type RateLimitStore,
  TenantAuthError,
  type TenantAuthStores,
} from 'tenant-auth-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenApiValidator, type OpenApiValidator } from '../../../test-support/openapi-validator.js';
import { fieldErrorCodeSchema, PROBLEM_CODES } from '../src/contract.js';
import { createCheckedTenantAuthKoa } from './answer-check.js';
import { createTestAuth, listen, ORIGIN, PASSWORD, quiet, type Running, uniqueEmail } from './helpers.js';

/*
 * The OpenAPI document against what the middleware really answers: every operation is sent the failures
 * that the layers in front of its route produce (another method, a body that is not JSON, too large or
 * malformed, no token, a cookie from a foreign origin, a spent budget, a rate-limit store that is down),
 * and every answer must be documented for that operation, with its headers and body schema.
 */

// biome-ignore lint/suspicious/noExplicitAny: the document is read freely
type Doc = any;

interface Server {
  running: Running;
  doc: Doc;
  validator: OpenApiValidator;
}

async function start(rateLimitStore?: RateLimitStore): Promise<Server> {
  const { auth } = createTestAuth(rateLimitStore ? { rateLimit: { store: rateLimitStore } } : {});
  const tenantAuth = createCheckedTenantAuthKoa({ auth, logger: quiet, health: { ping: async () => {} } });
  const app = new Koa();
  app.use(tenantAuth.middleware());
  const running = await listen(app);
  const doc = tenantAuth.openapiDocument as Doc;
  return { running, doc, validator: createOpenApiValidator(doc) };
}

/** Stores whose every method fails with `unavailable` (a database that went away) while `isDown()`. */
function unavailableWhen(stores: TenantAuthStores, isDown: () => boolean): TenantAuthStores {
  const fail = () => new TenantAuthError('unavailable', 'The database does not answer.');
  const wrap = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(object, key, receiver) {
        const value = Reflect.get(object, key, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (isDown()) return Promise.reject(fail());
          return value.apply(object, args);
        };
      },
    });
  return {
    ...stores,
    tenants: wrap(stores.tenants),
    users: wrap(stores.users),
    sessions: wrap(stores.sessions),
    oneTimeTokens: wrap(stores.oneTimeTokens),
    outbox: wrap(stores.outbox),
    auditEvents: wrap(stores.auditEvents),
    transaction: (work) => (isDown() ? Promise.reject(fail()) : stores.transaction(work)),
  };
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Every operation of the document, with a concrete path (random ids). */
function operationsOf(doc: Doc): { method: string; template: string; path: string; operation: Doc }[] {
  return Object.entries(doc.paths as Record<string, Doc>).flatMap(([template, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({
      method,
      template,
      path: template.replace(/\{[^}]+\}/g, () => randomUUID()),
      operation: item[method],
    })),
  );
}

/** Sends a request and returns its status after checking the answer against the document. */
async function send(
  server: Server,
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; code?: string; headers: Headers }> {
  const full = `/api/v1${path}`;
  const res = await fetch(`${server.running.url}${full}`, {
    method: method.toUpperCase(),
    // A redirect (the SSO callback's 303) is the answer under test, not the page it points to.
    redirect: 'manual',
    headers: init.headers ?? {},
    ...(init.body === undefined ? {} : { body: init.body }),
  });
  const text = await res.text();
  const problems = server.validator.check(
    { method, path: full },
    { status: res.status, headers: res.headers, text },
  );
  expect(problems, `${method.toUpperCase()} ${path}`).toEqual([]);
  const code = text.startsWith('{') ? (JSON.parse(text) as { code?: string }).code : undefined;
  return { status: res.status, ...(code === undefined ? {} : { code }), headers: res.headers };
}

describe('the OpenAPI document', () => {
  let server: Server;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(() => server.running.close());

  it('names its schemas, with the enums of the codes and the bounds the server enforces', () => {
    const { schemas } = server.doc.components;
    for (const name of [
      'User',
      'Tenant',
      'Session',
      'TokenResponse',
      'RegisterResponse',
      'Problem',
      'ProblemCode',
      'FieldError',
      'FieldErrorCode',
      'Member',
      'Invitation',
      'AuditEvent',
      'AuditEventType',
      'Role',
    ]) {
      expect(schemas[name], name).toBeDefined();
    }
    expect(schemas.RegisterResponse.allOf[0]).toEqual({ $ref: '#/components/schemas/TokenResponse' });
    expect(JSON.stringify(schemas.RegisterResponse)).not.toContain('accessToken');
    expect(schemas.ProblemCode.enum).toEqual([...PROBLEM_CODES]);
    expect(schemas.Problem.properties.code).toEqual({ $ref: '#/components/schemas/ProblemCode' });
    expect(schemas.FieldErrorCode.enum).toEqual(fieldErrorCodeSchema.options);
    expect(schemas.FieldError.properties.code).toEqual({ $ref: '#/components/schemas/FieldErrorCode' });
    const { auth } = createTestAuth();
    expect(auth.inputLimits.passwordMaxLength).toBe(128);
    for (const request of ['RegisterRequest', 'AcceptInvitationRequest', 'ResetPasswordRequest']) {
      expect(schemas[request].properties.password).toMatchObject({
        minLength: auth.inputLimits.passwordMinLength,
        maxLength: auth.inputLimits.passwordMaxLength,
      });
    }
    expect(schemas.ChangePasswordRequest.properties.newPassword.maxLength).toBe(128);
    for (const field of ['expiresIn', 'refreshExpiresIn']) {
      expect(schemas.TokenResponse.properties[field]).toMatchObject({
        type: 'integer',
        minimum: 1,
        maximum: 2_147_483_647,
      });
    }
    expect(server.doc.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
  });

  it('lists, for every operation, the statuses of the layers in front of its route', () => {
    for (const { method, template, operation } of operationsOf(server.doc)) {
      const statuses = Object.keys(operation.responses);
      const where = `${method} ${template}`;
      expect(statuses, where).toEqual(expect.arrayContaining(['405', '429', '500']));
      // Only what reads no store and takes the general budget (which fails open) cannot be unavailable.
      if (!['jwks', 'openapi'].includes(operation.operationId)) expect(statuses, where).toContain('503');
      if (method !== 'get') expect(statuses, where).toEqual(expect.arrayContaining(['400', '413', '415']));
      if (operation.security.length > 0) expect(statuses, where).toContain('401');
    }
  });

  it('declares the headers: Cache-Control, Set-Cookie (set and cleared), RateLimit-*, Retry-After, WWW-Authenticate', () => {
    const { paths, components } = server.doc;
    const headersOf = (response: Doc) =>
      response.$ref ? components.responses[response.$ref.split('/').pop()].headers : response.headers;
    expect(headersOf(paths['/auth/login'].post.responses['200'])['Set-Cookie'].required).toBe(true);
    expect(headersOf(paths['/auth/logout'].post.responses['204'])['Set-Cookie'].description).toMatch(
      /Clears/,
    );
    expect(headersOf(paths['/users/me'].delete.responses['204'])['Set-Cookie'].required).toBe(true);
    expect(headersOf(paths['/sessions'].get.responses['200'])['Cache-Control'].required).toBe(true);
    const limited = headersOf(paths['/auth/login'].post.responses['429']);
    for (const name of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After']) {
      expect(limited[name].required, name).toBe(true);
    }
    expect(headersOf(paths['/sessions'].get.responses['503'])['Retry-After'].required).toBe(true);
    expect(headersOf(paths['/sessions'].get.responses['401'])['WWW-Authenticate'].required).toBe(true);
  });

  it('documents the answer to another method on every path (405)', async () => {
    const byPath = new Map<string, { path: string; methods: string[] }>();
    for (const { method, template, path } of operationsOf(server.doc)) {
      const entry = byPath.get(template) ?? { path, methods: [] };
      entry.methods.push(method);
      byPath.set(template, entry);
    }
    for (const { path, methods } of byPath.values()) {
      const other = METHODS.find((m) => !methods.includes(m) && m !== 'get') ?? 'put';
      const res = await send(server, other, path);
      expect(res.status, `${other} ${path}`).toBe(405);
      expect(res.headers.get('allow')).toBeTruthy();
      // An unknown method is 405 too (the router itself would say 501).
      expect((await send(server, 'PROPFIND', path)).status).toBe(405);
    }
  });

  it('documents 415, 413 and 400 invalid_json on every unsafe operation', async () => {
    for (const { method, path, operation } of operationsOf(server.doc).filter((o) => o.method !== 'get')) {
      const where = `${method} ${path}`;
      const content = (operation.requestBody as { content?: Record<string, unknown> } | undefined)?.content;
      if (content && 'application/x-www-form-urlencoded' in content) {
        // A form operation (SAML's ACS): JSON is the other media type; its limit is its own.
        const json = await send(server, method, path, {
          headers: { 'content-type': 'application/json' },
          body: '{}',
        });
        expect(json.code, where).toBe('unsupported_media_type');
        const huge = await send(server, method, path, {
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: `SAMLResponse=${'x'.repeat(300 * 1024)}`,
        });
        expect(huge.code, where).toBe('payload_too_large');
        continue;
      }
      const form = await send(server, method, path, {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'a=1',
      });
      expect(form.code, where).toBe('unsupported_media_type');
      // PUT /tenants/me/sso takes a SAML IdP's metadata: 640 KiB.
      const pad = path.endsWith('/tenants/me/sso') ? 700 * 1024 : 20_000;
      const large = await send(server, method, path, {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ pad: 'x'.repeat(pad) }),
      });
      expect(large.code, where).toBe('payload_too_large');
      const broken = await send(server, method, path, {
        headers: { 'content-type': 'application/json' },
        body: '{"email":',
      });
      expect(broken.code, where).toBe('invalid_json');
    }
  });

  it('documents 401 on every authenticated operation, and 403 csrf_rejected on the unsafe ones', async () => {
    const registered = await fetch(`${server.running.url}/api/v1/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: uniqueEmail(), password: PASSWORD }),
    });
    const { accessToken } = (await registered.json()) as { accessToken: string };
    for (const { method, path, operation } of operationsOf(server.doc)) {
      if (operation.security.length === 0) continue;
      const where = `${method} ${path}`;
      const anonymous = await send(server, method, path);
      if (operation.operationId !== 'health' || anonymous.status !== 200) {
        expect(anonymous.status, where).toBe(401);
      }
      if (method === 'get') continue;
      const foreign = await send(server, method, path, {
        headers: { cookie: `access_token=${accessToken}; refresh_token=x`, origin: 'https://evil.example' },
      });
      expect(foreign.code, where).toBe('csrf_rejected');
    }
    void ORIGIN;
  });

  it('documents 429 with the budget headers on every operation', async () => {
    const spent: RateLimitStore = { hit: async () => ({ count: 1_000_000, resetMs: 30_000 }) };
    const limited = await start(spent);
    try {
      for (const { method, path } of operationsOf(limited.doc)) {
        const res = await send(limited, method, path);
        expect(res.status, `${method} ${path}`).toBe(429);
        expect(res.headers.get('ratelimit-remaining')).toBe('0');
      }
      expect((await send(limited, 'get', '/no/such/route')).status).toBe(429);
    } finally {
      await limited.running.close();
    }
  });

  it('documents 503 with Retry-After on every operation that reads the stores or takes the strict budget', async () => {
    // The rate-limit store is down (the strict budget fails closed, the general one open) and so are the
    // stores, after one registration; the session check makes every access token read them.
    let down = false;
    const stores = unavailableWhen(createMemoryStores(), () => down);
    const { auth } = createTestAuth({
      stores,
      checkSessionOnVerify: true,
      rateLimit: {
        store: {
          hit: async () => {
            throw new Error('connection refused');
          },
        },
      },
    });
    const tenantAuth = createCheckedTenantAuthKoa({ auth, logger: quiet, health: { ping: async () => {} } });
    const app = new Koa();
    app.use(tenantAuth.middleware());
    const doc = tenantAuth.openapiDocument as Doc;
    const unavailable: Server = { running: await listen(app), doc, validator: createOpenApiValidator(doc) };
    try {
      const { accessToken } = await auth.register({ email: uniqueEmail(), password: PASSWORD });
      down = true;
      for (const { method, path, operation } of operationsOf(doc)) {
        const res = await send(unavailable, method, path, {
          headers: { authorization: `Bearer ${accessToken}` },
        });
        const where = `${method} ${path}`;
        if (/\/auth\/sso\/saml\/[^/]+\/metadata$/.test(path)) {
          // This auth has no `sso` option: its SSO store is core's stand-in, which reads nothing.
          expect(res.status, where).toBe(404);
        } else if (path.endsWith('/auth/sso/callback') || path.endsWith('/acs')) {
          // Without an `sso_state` cookie the callback reads nothing: straight to the error page.
          expect(res.status, where).toBe(303);
        } else if ('503' in operation.responses) {
          expect(res.status, where).toBe(503);
          expect(Number(res.headers.get('retry-after')), where).toBeGreaterThan(0);
        } else {
          expect(res.status, where).toBe(200);
        }
      }
    } finally {
      await unavailable.running.close();
    }
  });

  it('refuses what it does not document: an unknown status, field or content type', () => {
    const { validator } = server;
    const headers = new Headers({ 'content-type': 'application/json', 'cache-control': 'no-store' });
    const tenant = { id: randomUUID(), slug: 'acme', name: 'Acme', createdAt: '2026-01-01T00:00:00.000Z' };
    const ok = { method: 'GET', path: '/api/v1/tenants/me' };
    expect(validator.check(ok, { status: 200, headers, text: JSON.stringify(tenant) })).toEqual([]);
    expect(validator.check(ok, { status: 418, headers, text: '{}' })[0]).toMatch(/418 is not documented/);
    expect(
      validator.check(ok, { status: 200, headers, text: JSON.stringify({ ...tenant, secret: 'x' }) })[0],
    ).toMatch(/secret is not in the schema/);
    expect(
      validator.check(ok, { status: 200, headers: new Headers({ 'content-type': 'text/html' }), text: '' })
        .length,
    ).toBeGreaterThan(0);
    const { createdAt: _createdAt, ...incomplete } = tenant;
    expect(validator.check(ok, { status: 200, headers, text: JSON.stringify(incomplete) }).join()).toMatch(
      /createdAt/,
    );
  });
});
