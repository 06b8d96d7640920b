import { randomUUID } from 'node:crypto';
import type Koa from 'koa';
import type { Logger } from './logger.js';

/**
 * One log line per request: method, path (never the query string, which may hold secrets), status,
 * duration, client IP as Koa sees it (so `TRUST_PROXY` applies), and a request id that is also sent
 * back in `X-Request-Id`. Put it first, outside the error middleware.
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
      await next();
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
