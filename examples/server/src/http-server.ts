import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';

/** An HTTP server with a graceful close. */
export interface HttpServer {
  server: Server;
  port: number;
  /**
   * Stops accepting connections, lets in-flight requests finish for up to `timeoutMs`, then closes the
   * connections still open. Resolves once every connection is gone; `forced` says whether the
   * deadline was reached.
   */
  close(timeoutMs: number): Promise<{ forced: boolean }>;
}

/**
 * Serves a Koa app on `port` (0 for an ephemeral one). While closing, responses carry
 * `Connection: close` so keep-alive clients do not send more requests on the connection.
 *
 * @example
 * const http = await listen(app, 4000);
 * process.once('SIGTERM', () => http.close(10_000));
 */
export async function listen(app: Koa, port: number, host?: string): Promise<HttpServer> {
  let closing = false;
  const handler = app.callback();
  // While closing, a response says `Connection: close` and its connection ends after it; decided when its
  // head is written (`res.end()` writes it through `writeHead` too), so no request is tracked.
  class Response<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
    // biome-ignore lint/suspicious/noExplicitAny: writeHead's overloads, passed on as they came.
    override writeHead(...args: any[]): this {
      if (closing) this.shouldKeepAlive = false;
      return (ServerResponse.prototype.writeHead as (...a: unknown[]) => this).apply(this, args);
    }
  }
  const server = createServer({ ServerResponse: Response }, (req, res) => {
    void handler(req, res);
  });
  // Requests Node's parser refuses before Koa sees them (a head over 16 KiB, a raw non-ASCII byte in the
  // target) get a problem too, not a bare status line.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable || (err as { code?: string }).code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    const title = status === 431 ? 'Request Header Fields Too Large' : 'Bad Request';
    const body = JSON.stringify({
      type: 'about:blank',
      title,
      status,
      code: 'http_error',
      detail: status === 431 ? 'The request head is too large.' : 'The request is malformed.',
    });
    socket.end(
      `HTTP/1.1 ${status} ${title}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  // Node's defaults allow slow clients to hold sockets for minutes; keep them bounded.
  server.headersTimeout = 20_000;
  server.requestTimeout = 30_000;
  server.listen(port, host);
  await once(server, 'listening');
  const address = server.address() as AddressInfo;
  let closed: Promise<{ forced: boolean }> | undefined;
  return {
    server,
    port: address.port,
    close(timeoutMs) {
      closed ??= new Promise((resolve) => {
        closing = true;
        let forced = false;
        const timer = setTimeout(() => {
          forced = true;
          server.closeAllConnections();
        }, timeoutMs);
        // A keep-alive connection whose response began before the close and ended after it is idle then,
        // and would hold the close up: closed on the next sweep.
        const sweep = setInterval(() => server.closeIdleConnections(), 50);
        // close() stops accepting and, since Node 19, also closes idle keep-alive connections.
        server.close(() => {
          clearTimeout(timer);
          clearInterval(sweep);
          resolve({ forced });
        });
        server.closeIdleConnections();
      });
      return closed;
    },
  };
}
