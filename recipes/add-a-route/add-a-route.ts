// Recipe: add a route (docs/extending.md, "Add a route").
//
// A new operation over a method core already has: `GET /tenants/me/members/:userId`, one member of the
// caller's tenant, read with `auth.listMembers`. In tenant-auth itself this entry goes into the group of
// its path, packages/tenant-auth-koa/src/operations/members.ts, and that is the one file edited by hand:
// the router serves it, the OpenAPI document lists it (with every status the layers in front of it can
// answer), the koa tests check each of its answers against it, and the client's contract gains it on
// `pnpm --filter tenant-auth-client generate`. add-a-route.test.ts shows each of these.
import { TenantAuthError } from 'tenant-auth-core';
import { memberSchema } from '../../packages/tenant-auth-koa/src/http-contract.js';
import { defineOperation } from '../../packages/tenant-auth-koa/src/operations/define.js';
import { toMemberJson } from '../../packages/tenant-auth-koa/src/serialize.js';

/**
 * `GET /tenants/me/members/:userId`: one member of the caller's tenant (any member, or an API key; an id
 * of another tenant is `404`, as an unknown one).
 *
 * @example
 * composeTenantAuthKoa({ auth }, { api: { ...API_GROUP, operations: [...OPERATIONS, getMember] } });
 */
export const getMember = defineOperation({
  id: 'getMember',
  method: 'GET',
  path: '/tenants/me/members/:userId',
  caller: 'access',
  apiKeys: true,
  budget: 'general',
  tag: 'members',
  summary: "One member of the caller's tenant.",
  params: { userId: 'User id.' },
  success: { status: 200, body: memberSchema, description: 'The member.' },
  problems: ['not_found'],
  // `caller` is typed by `caller: 'access'` and `apiKeys: true`, `params` by the path; the answer must be
  // `memberSchema`'s JSON (a field more or less fails to compile).
  handler: async ({ caller, params }, { auth }) => {
    const member = (await auth.listMembers(caller)).find((m) => m.id === params.userId);
    if (member === undefined) throw new TenantAuthError('not_found', 'No such member.');
    return toMemberJson(member);
  },
});
