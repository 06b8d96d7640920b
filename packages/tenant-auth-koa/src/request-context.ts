import type { Context } from 'koa';
import type { RequestContext } from 'tenant-auth-core';

/**
 * Where the request came from, as core records it: Koa's `ctx.ip` (which honours `X-Forwarded-For`
 * only when the app sets `proxy` / `maxIpsCount`) and the `User-Agent` header.
 *
 * @example
 * await auth.login(body, requestContext(ctx));
 */
export function requestContext(ctx: Context): RequestContext {
  const userAgent = ctx.get('user-agent');
  return { ipAddress: ctx.ip || null, userAgent: userAgent || null };
}
