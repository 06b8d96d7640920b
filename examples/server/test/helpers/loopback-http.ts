import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** An HTTP server on a loopback address that counts the connections and requests it gets. */
export interface LoopbackHttpServer {
  /** The port it listens on. */
  port: number;
  /** TCP connections accepted so far (a TLS ClientHello counts too: it is a connection). */
  connections: number;
  /** `"<method> <path>"` of every request it answered, in order. */
  requests: string[];
  close(): Promise<void>;
}

/**
 * Starts a plain HTTP server on `host` (`127.0.0.1` or `::1`) answering with `handle` (404 without one).
 * Counting connections is how a test shows that nothing reached it.
 *
 * @example
 * const target = await startLoopbackHttp('127.0.0.1', (req, res) => res.end('ok'));
 * expect(target.connections).toBe(0);
 */
export async function startLoopbackHttp(
  host: '127.0.0.1' | '::1',
  handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(404).end(),
): Promise<LoopbackHttpServer> {
  const sockets = new Set<Socket>();
  const state = { connections: 0, requests: [] as string[] };
  const server = createServer((req, res) => {
    state.requests.push(`${req.method} ${req.url}`);
    handle(req, res);
  });
  server.on('connection', (socket: Socket) => {
    state.connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    get connections() {
      return state.connections;
    },
    requests: state.requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
