import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP forwarder in front of a real server (like toxiproxy): `down()` cuts every connection and refuses
 * new ones, `up()` accepts again on the same port. The client sees a real network outage.
 */
export interface TcpProxy {
  port: number;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const listen = async () => {
    const s = createServer((client) => {
      const upstream = createConnection(targetPort, targetHost);
      for (const sock of [client, upstream]) {
        sockets.add(sock);
        sock.on('close', () => sockets.delete(sock));
        sock.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    s.listen(port, '127.0.0.1');
    await once(s, 'listening');
    port = (s.address() as AddressInfo).port;
    server = s;
  };
  const down = async () => {
    const s = server;
    server = undefined;
    for (const sock of sockets) sock.destroy();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  await listen();
  return { port, down, up: listen, close: down };
}
