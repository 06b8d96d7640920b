import { Agent, request } from 'node:http';
import Koa from 'koa';
import { afterEach, describe, expect, it } from 'vitest';
import { type HttpServer, listen } from './http-server.js';

/** A Koa app whose `/slow` answers when `release()` is called, and whose `/stream` sends its head first. */
function appWithHeldRoutes() {
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const app = new Koa();
  app.use(async (ctx) => {
    if (ctx.path === '/slow') {
      await held;
      ctx.body = { ok: true };
    } else if (ctx.path === '/stream') {
      ctx.respond = false;
      ctx.res.writeHead(200, { 'content-type': 'text/plain' });
      ctx.res.write('head sent;');
      await held;
      ctx.res.end('done');
    } else {
      ctx.body = { ok: true };
    }
  });
  return { app, release };
}

/** A GET on a keep-alive agent: status, `Connection` header and body. */
function get(port: number, path: string, agent: Agent) {
  return new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('listen: the HTTP server and its graceful close', () => {
  const opened: { http: HttpServer; agent: Agent }[] = [];
  afterEach(async () => {
    for (const { http, agent } of opened.splice(0)) {
      agent.destroy();
      await http.close(100);
    }
  });

  async function start() {
    const { app, release } = appWithHeldRoutes();
    const http = await listen(app, 0, '127.0.0.1');
    const agent = new Agent({ keepAlive: true });
    opened.push({ http, agent });
    return { http, agent, release };
  }

  it('keeps connections alive while serving', async () => {
    const { http, agent } = await start();
    const res = await get(http.port, '/fast', agent);
    expect(res.status).toBe(200);
    expect(res.connection).toBe('keep-alive');
  });

  it('answers a request in flight at the close with Connection: close, and closes without the deadline', async () => {
    const { http, agent, release } = await start();
    // A keep-alive connection left idle by an earlier answer must not hold the close up either.
    await get(http.port, '/fast', new Agent({ keepAlive: true }));
    const answer = get(http.port, '/slow', agent);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // A deadline under Node's keep-alive timeout (5 s): a connection left open would force the close.
    const closed = http.close(3_000);
    release();
    const res = await answer;
    expect(res.status).toBe(200);
    expect(res.connection).toBe('close');
    expect(await closed).toEqual({ forced: false });
  });

  it('closes a keep-alive connection whose answer began before the close and ended after it', async () => {
    const { http, agent, release } = await start();
    const answer = get(http.port, '/stream', agent);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closed = http.close(3_000);
    release();
    const res = await answer;
    expect(res.body).toBe('head sent;done');
    // Its head said keep-alive before the close began; the connection, idle after it, is closed anyway
    // before the deadline (under Node's keep-alive timeout of 5 s).
    expect(res.connection).toBe('keep-alive');
    expect(await closed).toEqual({ forced: false });
  });
});
