import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
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
  const inFlight = new Set<ServerResponse>();
  const handler = app.callback();
  // One listener function for every response ('close' comes once): no closure per request.
  function onResponseClose(this: ServerResponse) {
    inFlight.delete(this);
    // A keep-alive connection whose last request just ended would otherwise hold the close up.
    if (closing) setImmediate(() => server.closeIdleConnections());
  }
  const server = createServer((req, res) => {
    if (closing) res.setHeader('Connection', 'close');
    inFlight.add(res);
    res.on('close', onResponseClose);
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
        for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
        let forced = false;
        const timer = setTimeout(() => {
          forced = true;
          server.closeAllConnections();
        }, timeoutMs);
        // close() stops accepting and, since Node 19, also closes idle keep-alive connections.
        server.close(() => {
          clearTimeout(timer);
          resolve({ forced });
        });
        server.closeIdleConnections();
      });
      return closed;
    },
  };
}
