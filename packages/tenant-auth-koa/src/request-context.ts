import { randomUUID } from 'node:crypto';
import type { Context } from 'koa';
import type { RequestContext } from 'tenant-auth-core';

/**
 * @internal The id of the request: the one an earlier middleware put on `ctx.state.requestId` (a request
 * logger), or a new one, sent back in `X-Request-Id`. Never taken from the client, so it cannot be
 * used to forge log lines.
 */
export function requestIdOf(ctx: Context): string {
  const existing = ctx.state.requestId;
  if (typeof existing === 'string' && existing !== '') return existing;
  const id = randomUUID();
  ctx.state.requestId = id;
  ctx.set('X-Request-Id', id);
  return id;
}

/**
 * @internal Where the request came from, as core records it: Koa's `ctx.ip` (which honours
 * `X-Forwarded-For` only when the app trusts a proxy), the `User-Agent` header and the request id.
 */
export function requestContext(ctx: Context): RequestContext {
  const userAgent = ctx.get('user-agent');
  return { ipAddress: ctx.ip || null, userAgent: userAgent || null, requestId: requestIdOf(ctx) };
}
