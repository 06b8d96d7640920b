import { randomUUID } from 'node:crypto';
import type Koa from 'koa';
import { infoLineWriter, type Logger } from './logger.js';

/**
 * One log line per request: method, path (never the query string, which may hold secrets), status,
 * duration, client IP as Koa sees it (so `TRUST_PROXY` applies), and a request id that is also sent
 * back in `X-Request-Id` (tenant-auth-koa reuses that id, and passes it to core with the client IP, so
 * every authentication event names its request). Put it first.
 *
 * @example app.use(requestLog(logger));
 */
export function requestLog(logger: Logger): Koa.Middleware {
  const info = infoLineWriter(logger);
  return async (ctx, next) => {
    const started = performance.now();
    const requestId = randomUUID();
    ctx.state.requestId = requestId;
    // First to run, so nothing has been sent yet: straight on Node's response.
    ctx.res.setHeader('X-Request-Id', requestId);
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
      else info(line, 'request');
    }
  };
}
