import type { Context } from 'koa';
import { defineOperation, type Operation, type RouteSettings } from '../operations/define.js';
import { scimBadRequest } from './scim-error.js';

/** @internal What a SCIM route's handler gets: the request, its path parameters, and its base URL. */
export interface ScimRequest {
  ctx: Context;
  params: Record<string, string>;
  settings: RouteSettings;
  baseUrl: string;
}

/**
 * @internal A route of `/scim/v2` in the operation table's form: no caller of the prefix's (the group's
 * budget step authenticated the directory), and an answer the handler writes itself (SCIM's media type,
 * `Location`). Not in the OpenAPI document, which states the prefix's routes.
 */
export function scimOperation(route: {
  id: string;
  method: Operation['method'];
  path: string;
  summary: string;
  status: 200 | 201 | 204;
  handle: (request: ScimRequest) => Promise<void>;
}): Operation {
  return defineOperation({
    id: route.id,
    method: route.method,
    path: route.path,
    caller: 'none',
    budget: 'general',
    tag: 'tenants',
    summary: route.summary,
    success: { status: route.status, description: route.summary },
    answersItself: true,
    handler: ({ ctx, params }, settings) => {
      if (settings.scim === undefined) throw new Error('The SCIM group is served without the scim option.');
      return route.handle({ ctx, params, settings, baseUrl: settings.scim.baseUrl });
    },
  });
}

/** @internal A query parameter given at most once (`400 invalidValue` when repeated). */
export function queryValue(ctx: Context, name: string): string | undefined {
  const value = ctx.query[name];
  if (value === undefined || typeof value === 'string') return value;
  throw scimBadRequest('invalidValue', `${name} must be given once.`);
}

/** @internal Whether `excludedAttributes` names `attribute` (RFC 7644 3.4.2.5; Entra ID excludes `members`). */
export function isExcluded(ctx: Context, attribute: string): boolean {
  const excluded = queryValue(ctx, 'excludedAttributes');
  if (excluded === undefined) return false;
  return excluded
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .includes(attribute.toLowerCase());
}
