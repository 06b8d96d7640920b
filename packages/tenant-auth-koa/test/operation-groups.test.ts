import { randomUUID } from 'node:crypto';
import Router from '@koa/router';
import Koa from 'koa';
import { isTenantAuthError, type RateLimitResult, TenantAuthError } from 'tenant-auth-core';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FORM_MEDIA_TYPE } from '../src/body-rules.js';
import type { OperationGroup } from '../src/operation-group.js';
import { defineOperation } from '../src/operations/define.js';
import { problemCodesOf } from '../src/operations/problems.js';
import { type ErrorWriter, writeErrorHeaders } from '../src/problem.js';
import { requestBody } from '../src/request-body.js';
import { composeTenantAuthKoa } from '../src/tenant-auth-koa.js';
import { createTestAuth, json, listen, ORIGIN, quiet, type Running } from './helpers.js';

/*
 * The seam a protocol of its own joins through (SCIM at /scim/v2: docs/http-api.md, "SCIM 2.0
 * provisioning per tenant"): a group of operations mounted outside the prefix, with its own media type,
 * error form and rate budget, served by the one middleware of createTenantAuthKoa. Proved here with a
 * small fake resource ("widgets") in a SCIM-like dialect, which exists only in this test.
 */

const ERROR_SCHEMA = 'urn:example:widgets:Error';
const WIDGET_BUDGET = 3;

const widgetSchema = z.object({ id: z.string(), name: z.string(), labels: z.array(z.string()) });
type Widget = z.output<typeof widgetSchema>;

/** The fake resource and its operations: what the SCIM group will be, in miniature. */
function widgetGroup(): OperationGroup & { spent: () => number } {
  const widgets = new Map<string, Widget>();
  const find = (id: string) => {
    const widget = widgets.get(id);
    if (widget === undefined) throw new TenantAuthError('not_found', 'No such widget.');
    return widget;
  };
  const operations = [
    defineOperation({
      id: 'createWidget',
      method: 'POST',
      path: '/Widgets',
      caller: 'none',
      budget: 'general',
      tag: 'meta',
      summary: 'Create a widget.',
      success: { status: 201, body: widgetSchema, description: 'The widget.' },
      handler: ({ ctx }) => {
        const { name } = requestBody(ctx) as { name?: unknown };
        if (typeof name !== 'string') {
          throw new TenantAuthError('validation_failed', 'A widget needs a name.', {
            errors: [{ field: 'name', code: 'required', message: 'A name is required.' }],
          });
        }
        const widget = { id: randomUUID(), name, labels: [] };
        widgets.set(widget.id, widget);
        return widget;
      },
    }),
    defineOperation({
      id: 'getWidget',
      method: 'GET',
      path: '/Widgets/:id',
      caller: 'none',
      budget: 'general',
      tag: 'meta',
      summary: 'One widget.',
      success: { status: 200, body: widgetSchema, description: 'The widget.' },
      handler: ({ params }) => find(params.id),
    }),
    // Posted by another site's page on purpose (as an identity provider posts a SAML response).
    defineOperation({
      id: 'labelWidget',
      method: 'POST',
      path: '/Widgets/:id/labels',
      caller: 'none',
      budget: 'general',
      tag: 'meta',
      summary: 'Label a widget from a form.',
      request: { mediaTypes: [FORM_MEDIA_TYPE], limitBytes: 256 * 1024, crossSite: true },
      success: { status: 200, body: widgetSchema, description: 'The widget.' },
      handler: ({ ctx, params }) => {
        const widget = find(params.id);
        const { label } = requestBody(ctx) as { label?: string };
        if (label !== undefined) widget.labels.push(label);
        return widget;
      },
    }),
    // A form of the application's own pages: the same-origin rule holds.
    defineOperation({
      id: 'renameWidget',
      method: 'POST',
      path: '/Widgets/:id/name',
      caller: 'none',
      budget: 'general',
      tag: 'meta',
      summary: 'Rename a widget from a form.',
      request: { mediaTypes: [FORM_MEDIA_TYPE] },
      success: { status: 200, body: widgetSchema, description: 'The widget.' },
      handler: ({ ctx, params }) => {
        const widget = find(params.id);
        widget.name = String((requestBody(ctx) as { name?: string }).name);
        return widget;
      },
    }),
  ];
  // Its own error form: RFC 7644's shape, with the status as a string.
  const writeError: ErrorWriter = (ctx, problem, err) => {
    writeErrorHeaders(ctx, problem);
    const scimType = isTenantAuthError(err, 'validation_failed') ? 'invalidValue' : undefined;
    ctx.type = 'application/scim+json';
    ctx.body = JSON.stringify({
      schemas: [ERROR_SCHEMA],
      status: String(problem.status),
      ...(scimType === undefined ? {} : { scimType }),
      detail: problem.detail,
    });
  };
  // Its own budget: WIDGET_BUDGET requests in all, counted here (the prefix's budgets never see them).
  let spent = 0;
  const rateLimit = async (): Promise<RateLimitResult> => {
    spent++;
    const allowed = spent <= WIDGET_BUDGET;
    const result: RateLimitResult = {
      budget: 'general',
      allowed,
      limit: WIDGET_BUDGET,
      remaining: Math.max(0, WIDGET_BUDGET - spent),
      resetSeconds: 60,
      retryAfterSeconds: allowed ? 0 : 60,
    };
    if (!allowed) {
      throw new TenantAuthError('rate_limited', 'Too many widget requests.', {
        retryAfterSeconds: 60,
        rateLimit: result,
      });
    }
    return result;
  };
  return {
    operations,
    mediaTypes: ['application/scim+json', 'application/json'],
    writeError,
    rateLimit,
    cors: false,
    spent: () => spent,
  };
}

let server: Running | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

/**
 * An application with tenant-auth (the widgets at /widgets/v2, outside /api/v1) and a route of its own;
 * the widgets' budget counts only when `counted`.
 */
async function start(options: { counted?: boolean } = {}) {
  const { auth } = createTestAuth({ rateLimit: { strict: 100, general: 100 } });
  const group = widgetGroup();
  const served = options.counted ? group : { ...group, rateLimit: async () => null };
  const tenantAuth = composeTenantAuthKoa(
    { auth, logger: quiet },
    { mounts: [{ path: '/widgets/v2', group: served }] },
  );
  const app = new Koa();
  app.use(tenantAuth.middleware());
  const own = new Router();
  own.get('/widgets/elsewhere', (ctx) => {
    ctx.body = 'the application';
  });
  app.use(own.routes());
  server = await listen(app);
  return { url: server.url, group };
}

/** A request whose body is typed as the test says. */
function send(url: string, method: string, type: string | undefined, body?: string, headers = {}) {
  return fetch(url, {
    method,
    headers: { ...(type === undefined ? {} : { 'content-type': type }), ...headers },
    ...(body === undefined ? {} : { body }),
  });
}

const SCIM = 'application/scim+json';

describe('a group of operations mounted outside the prefix', () => {
  it('serves its operations at its own path, in its own media type', async () => {
    const { url } = await start();
    const created = await send(`${url}/widgets/v2/Widgets`, 'POST', SCIM, JSON.stringify({ name: 'cog' }));
    expect(created.status).toBe(201);
    expect(created.headers.get('content-type')).toMatch(/^application\/scim\+json/);
    const widget = await json(created);
    expect(widget).toEqual({ id: expect.any(String), name: 'cog', labels: [] });
    // Its second media type too, and the route template names the mount path.
    const plain = await send(`${url}/widgets/v2/Widgets`, 'POST', 'application/json', '{"name":"gear"}');
    expect(plain.status).toBe(201);
    const read = await fetch(`${url}/widgets/v2/Widgets/${widget.id}`);
    expect(read.status).toBe(200);
    expect(await json(read)).toEqual(widget);
    expect(read.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('answers every failure in its own error form, never problem+json', async () => {
    const { url } = await start();
    const expectError = async (res: Response, status: number) => {
      expect(res.status).toBe(status);
      expect(res.headers.get('content-type')).toMatch(/^application\/scim\+json/);
      const body = await json(res);
      expect(body).toMatchObject({ schemas: [ERROR_SCHEMA], status: String(status) });
      return body;
    };
    await expectError(await fetch(`${url}/widgets/v2/Widgets/${randomUUID()}`), 404);
    await expectError(await fetch(`${url}/widgets/v2/Nothing`), 404);
    const wrongMethod = await fetch(`${url}/widgets/v2/Widgets`, { method: 'DELETE' });
    await expectError(wrongMethod, 405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');
    const wrongType = await expectError(
      await send(`${url}/widgets/v2/Widgets`, 'POST', 'text/plain', '{}'),
      415,
    );
    expect(wrongType.detail).toBe('The request body must be application/scim+json or application/json.');
    await expectError(await send(`${url}/widgets/v2/Widgets`, 'POST', SCIM, '{"name":'), 400);
    const invalid = await expectError(await send(`${url}/widgets/v2/Widgets`, 'POST', SCIM, '{}'), 400);
    expect(invalid.scimType).toBe('invalidValue');
    const big = JSON.stringify({ name: 'x'.repeat(17 * 1024) });
    await expectError(await send(`${url}/widgets/v2/Widgets`, 'POST', SCIM, big), 413);
  });

  it('counts its own budget, and the prefix keeps its own', async () => {
    const { url, group } = await start({ counted: true });
    for (let i = 0; i < WIDGET_BUDGET; i++) {
      const res = await fetch(`${url}/widgets/v2/Widgets/${randomUUID()}`);
      expect(res.status).toBe(404);
      expect(res.headers.get('ratelimit-remaining')).toBe(String(WIDGET_BUDGET - i - 1));
    }
    const refused = await fetch(`${url}/widgets/v2/Widgets/${randomUUID()}`);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(await json(refused)).toMatchObject({ schemas: [ERROR_SCHEMA], status: '429' });
    expect(group.spent()).toBe(WIDGET_BUDGET + 1);
    // The prefix's general budget (100) was not touched by the widgets' requests.
    const api = await fetch(`${url}/api/v1/tenants/me`);
    expect(api.status).toBe(401);
    expect(api.headers.get('ratelimit-remaining')).toBe('99');
    expect(group.spent()).toBe(WIDGET_BUDGET + 1);
  });

  it('leaves the prefix to problem+json and the application its own routes beside the mount path', async () => {
    const { url } = await start();
    const api = await fetch(`${url}/api/v1/nothing-here`);
    expect(api.status).toBe(404);
    expect(api.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const own = await fetch(`${url}/widgets/elsewhere`);
    expect(own.status).toBe(200);
    expect(await own.text()).toBe('the application');
    expect(own.headers.get('x-content-type-options')).toBeNull();
  });

  it('refuses a mount path that another group has', () => {
    const { auth } = createTestAuth();
    const group = widgetGroup();
    const compose = (path: string) => composeTenantAuthKoa({ auth }, { mounts: [{ path, group }] });
    expect(() => compose('/api/v1')).toThrow(/mounts must be a path of its own \(\/api\/v1 is taken\)/);
    expect(() => compose('/widgets/v2/')).toThrow(TenantAuthError);
    expect(() => compose('')).toThrow(/mounts must be a path of its own/);
  });

  it('is not shadowed by a prefix that holds its path (the longest mount path serves a request)', async () => {
    const { auth } = createTestAuth();
    const group = { ...widgetGroup(), rateLimit: async () => null };
    const tenantAuth = composeTenantAuthKoa(
      { auth, logger: quiet, prefix: '' },
      { mounts: [{ path: '/widgets/v2', group }] },
    );
    const app = new Koa();
    app.use(tenantAuth.middleware());
    server = await listen(app);
    const created = await send(`${server.url}/widgets/v2/Widgets`, 'POST', SCIM, '{"name":"cog"}');
    expect(created.status).toBe(201);
    const missing = await fetch(`${server.url}/widgets/v2/Nothing`);
    expect(missing.headers.get('content-type')).toMatch(/^application\/scim\+json/);
    expect((await fetch(`${server.url}/tenants/me`)).status).toBe(401);
  });
});

describe('an operation that takes a form', () => {
  async function widget(url: string): Promise<Widget> {
    return json(await send(`${url}/widgets/v2/Widgets`, 'POST', SCIM, '{"name":"cog"}'));
  }

  it('reads its fields, up to its own limit, from any site when it is crossSite', async () => {
    const { url } = await start();
    const { id } = await widget(url);
    const evil = { origin: 'https://idp.example' };
    const label = await send(
      `${url}/widgets/v2/Widgets/${id}/labels`,
      'POST',
      FORM_MEDIA_TYPE,
      'label=a%20b+c',
      evil,
    );
    expect(label.status).toBe(200);
    expect((await json(label)).labels).toEqual(['a b c']);
    // 200 KiB: above the JSON limit (16 KiB), within the operation's own (256 KiB).
    const large = new URLSearchParams({ label: 'x'.repeat(200 * 1024) }).toString();
    expect(
      (await send(`${url}/widgets/v2/Widgets/${id}/labels`, 'POST', FORM_MEDIA_TYPE, large)).status,
    ).toBe(200);
    const tooLarge = new URLSearchParams({ label: 'x'.repeat(257 * 1024) }).toString();
    expect(
      (await send(`${url}/widgets/v2/Widgets/${id}/labels`, 'POST', FORM_MEDIA_TYPE, tooLarge)).status,
    ).toBe(413);
  });

  it('refuses JSON, a field sent twice and a __proto__ field', async () => {
    const { url } = await start();
    const { id } = await widget(url);
    const labels = `${url}/widgets/v2/Widgets/${id}/labels`;
    const asJson = await send(labels, 'POST', 'application/json', '{"label":"a"}');
    expect(asJson.status).toBe(415);
    expect((await json(asJson)).detail).toBe('The request body must be application/x-www-form-urlencoded.');
    expect((await send(labels, 'POST', FORM_MEDIA_TYPE, 'label=a&label=b')).status).toBe(400);
    expect((await send(labels, 'POST', FORM_MEDIA_TYPE, '__proto__=a')).status).toBe(400);
    // And a JSON operation still refuses a form.
    expect((await send(`${url}/widgets/v2/Widgets`, 'POST', FORM_MEDIA_TYPE, 'name=cog')).status).toBe(415);
  });

  it('holds a form that is not crossSite to the same-origin rule', async () => {
    const { url } = await start();
    const { id } = await widget(url);
    const rename = `${url}/widgets/v2/Widgets/${id}/name`;
    const foreign = await send(rename, 'POST', FORM_MEDIA_TYPE, 'name=evil', {
      origin: 'https://evil.example',
    });
    expect(foreign.status).toBe(403);
    expect((await json(foreign)).status).toBe('403');
    expect((await send(rename, 'POST', FORM_MEDIA_TYPE, 'name=anonymous')).status).toBe(403);
    const own = await send(rename, 'POST', FORM_MEDIA_TYPE, 'name=sprocket', { origin: ORIGIN });
    expect(own.status).toBe(200);
    expect((await json(own)).name).toBe('sprocket');
  });

  it('lets only an operation without a caller be crossSite (a type error otherwise)', () => {
    const withCaller = defineOperation({
      id: 'relabelWidget',
      method: 'POST',
      path: '/Widgets/:id/relabel',
      caller: 'access',
      budget: 'general',
      tag: 'meta',
      summary: 'Relabel a widget.',
      // @ts-expect-error a cookie-authenticated change is never exempt from the same-origin rule
      request: { mediaTypes: [FORM_MEDIA_TYPE], crossSite: true },
      success: { status: 204, description: 'Done.' },
      handler: () => {},
    });
    expect(withCaller.caller).toBe('access');
  });

  it('declares csrf_rejected for a form that is not crossSite, and not for one that is', () => {
    const [, , label, rename] = widgetGroup().operations;
    expect(rename && problemCodesOf(rename)).toContain('csrf_rejected');
    expect(label && problemCodesOf(label)).not.toContain('csrf_rejected');
  });
});
