import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type Koa from 'koa';
import type { Logger } from './logger.js';

/** What is known about the request being handled, for log lines written deeper down. */
export interface RequestInfo {
  requestId: string;
  ip: string;
}

/**
 * The current request, for code that has no `ctx` (such as core's auth event hook).
 *
 * @example const ip = currentRequest.getStore()?.ip;
 */
export const currentRequest = new AsyncLocalStorage<RequestInfo>();

/**
 * One log line per request: method, path (never the query string, which may hold secrets), status,
 * duration, client IP as Koa sees it (so `TRUST_PROXY` applies), and a request id that is also sent
 * back in `X-Request-Id` (tenant-auth-koa reuses that id for its events). Put it first.
 *
 * @example app.use(requestLog(logger));
 */
export function requestLog(logger: Logger): Koa.Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    const requestId = randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    let failed = false;
    try {
      await currentRequest.run({ requestId, ip: ctx.ip }, next);
    } catch (err) {
      failed = true;
      throw err;
    } finally {
      const status = failed ? 500 : ctx.status;
      const ms = Math.round((performance.now() - started) * 10) / 10;
      const line = {
        event: 'request',
        requestId,
        method: ctx.method,
        path: ctx.path.length > 200 ? `${ctx.path.slice(0, 200)}…` : ctx.path,
        status,
        ms,
        ip: ctx.ip,
      };
      if (status >= 500) logger.error(line, 'request');
      else logger.info(line, 'request');
    }
  };
}
