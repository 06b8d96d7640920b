import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_GROUP } from '../../packages/tenant-auth-koa/src/operation-group.js';
import { OPERATIONS } from '../../packages/tenant-auth-koa/src/operations/index.js';
import {
  composeTenantAuthKoa,
  createTenantAuthKoa,
} from '../../packages/tenant-auth-koa/src/tenant-auth-koa.js';
import {
  checkAnswers,
  createCheckedTenantAuthKoa,
} from '../../packages/tenant-auth-koa/test/answer-check.js';
import {
  createTestAuth,
  type Json,
  json,
  type Middleware,
  PASSWORD,
  quiet,
  type Running,
  serve,
  uniqueEmail,
} from '../../packages/tenant-auth-koa/test/helpers.js';
import { getMember } from './add-a-route.js';

/*
 * The table of operations with the recipe's entry added, as operations/members.ts would hold it: the
 * router, the OpenAPI document and the answer check of the koa tests pick it up from that one entry.
 */

const operations = [...OPERATIONS, getMember];
const api = { ...API_GROUP, operations };

let running: Running;
let document: Json;
let owner: { accessToken: string; userId: string };
let stranger: { userId: string };

beforeAll(async () => {
  const { auth } = createTestAuth();
  // Every answer of this server is checked against its operation (answer-check.ts), the new one included.
  const tenantAuth = createCheckedTenantAuthKoa({ auth, logger: quiet }, { api });
  document = tenantAuth.openapiDocument;
  running = await serve(tenantAuth.middleware());
  const registered = await auth.register({ email: uniqueEmail(), password: PASSWORD });
  owner = { accessToken: registered.accessToken, userId: registered.user.id };
  stranger = { userId: (await auth.register({ email: uniqueEmail(), password: PASSWORD })).user.id };
});

afterAll(() => running?.close());

const memberUrl = (userId: string) => `${running.url}/api/v1/tenants/me/members/${userId}`;
const asOwner = () => ({ headers: { authorization: `Bearer ${owner.accessToken}` } });

describe('add a route: one entry in the operation table', () => {
  it('is served by the router, with its guard and its errors', async () => {
    const res = await fetch(memberUrl(owner.userId), asOwner());
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ id: owner.userId, role: 'owner' });
    expect(res.headers.get('cache-control')).toBe('no-store');
    // Another tenant's member is not found, as an unknown id is; no token is a 401.
    expect((await fetch(memberUrl(stranger.userId), asOwner())).status).toBe(404);
    expect((await fetch(memberUrl(randomUUID()), asOwner())).status).toBe(404);
    expect((await fetch(memberUrl(owner.userId))).status).toBe(401);
    // The path's other methods stay, and now allow GET.
    const other = await fetch(memberUrl(owner.userId), { ...asOwner(), method: 'PUT' });
    expect(other.status).toBe(405);
    expect(other.headers.get('allow')?.split(', ').sort()).toEqual(['DELETE', 'GET', 'HEAD', 'PATCH']);
  });

  it('is listed by the OpenAPI document, with the statuses of the layers in front of it', () => {
    const item = document.paths['/tenants/me/members/{userId}'];
    expect(Object.keys(item)).toEqual(['get', 'patch', 'delete']);
    expect(item.get.operationId).toBe('getMember');
    expect(item.get.security).toEqual([{ bearerAuth: [] }, { accessCookie: [] }, { apiKeyAuth: [] }]);
    expect(Object.keys(item.get.responses)).toEqual(['200', '401', '404', '405', '429', '500', '503']);
    expect(item.get.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Member',
    });
  });

  it('is checked by the answer check: an answer its entry does not declare fails the test', async () => {
    const { auth } = createTestAuth();
    const inner = composeTenantAuthKoa({ auth, logger: quiet }, { api });
    // A middleware that spoils the answer, between the check and tenant-auth, as a wrong handler would.
    const reports: string[] = [];
    const spoil: Middleware = async (ctx, next) => {
      await next();
      if (ctx.status === 200) ctx.body = { ...(ctx.body as object), passwordHash: 'x' };
      if (ctx.status === 404) ctx.body = (ctx.body as string).replace('"not_found"', '"last_owner"');
    };
    const server = await serve(
      checkAnswers(
        inner.openapiDocument,
        (ctx, next) => spoil(ctx, () => inner.middleware()(ctx, next)),
        (problems) => reports.push(...problems),
        operations,
      ),
    );
    try {
      const { accessToken, user } = await auth.register({ email: uniqueEmail(), password: PASSWORD });
      const headers = { authorization: `Bearer ${accessToken}` };
      await (await fetch(`${server.url}/api/v1/tenants/me/members/${user.id}`, { headers })).text();
      await (await fetch(`${server.url}/api/v1/tenants/me/members/${randomUUID()}`, { headers })).text();
    } finally {
      await server.close();
    }
    expect(reports.join('\n')).toMatch(/passwordHash is not in the schema/);
    expect(reports.join('\n')).toMatch(/getMember does not declare the code last_owner/);
  });

  it('is all it takes: without the entry, the path answers GET with 405 and the document has no get', async () => {
    const { auth } = createTestAuth();
    const without = createTenantAuthKoa({ auth, logger: quiet });
    const paths = without.openapiDocument.paths as Record<string, Record<string, unknown>>;
    expect(paths['/tenants/me/members/{userId}']?.get).toBeUndefined();
    const server = await serve(without.middleware());
    try {
      const { accessToken, user } = await auth.register({ email: uniqueEmail(), password: PASSWORD });
      const res = await fetch(`${server.url}/api/v1/tenants/me/members/${user.id}`, {
        headers: { authorization: `Bearer ${accessToken}` },
      });
      expect(res.status).toBe(405);
    } finally {
      await server.close();
    }
  });
});
