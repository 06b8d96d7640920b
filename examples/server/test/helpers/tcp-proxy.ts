import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP forwarder in front of a real server (like toxiproxy): `down()` cuts every connection and refuses
 * new ones, `up()` accepts again on the same port. The client sees a real network outage. `freeze()`
 * keeps every connection open but forwards nothing more either way: a server that stopped answering.
 */
export interface TcpProxy {
  port: number;
  down(): Promise<void>;
  freeze(): void;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  let frozen = false;
  const listen = async () => {
    // allowHalfOpen: a frozen server does not answer a client's FIN either.
    const s = createServer({ allowHalfOpen: true }, (client) => {
      const upstream = createConnection(targetPort, targetHost);
      for (const sock of [client, upstream]) {
        sockets.add(sock);
        sock.on('close', () => sockets.delete(sock));
        sock.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.on('data', (chunk: Buffer) => {
        if (!frozen) upstream.write(chunk);
      });
      upstream.on('data', (chunk: Buffer) => {
        if (!frozen) client.write(chunk);
      });
      client.on('end', () => {
        if (!frozen) upstream.end();
      });
      upstream.on('end', () => {
        if (!frozen) client.end();
      });
    });
    s.listen(port, '127.0.0.1');
    await once(s, 'listening');
    port = (s.address() as AddressInfo).port;
    server = s;
  };
  const down = async () => {
    frozen = false;
    const s = server;
    server = undefined;
    for (const sock of sockets) sock.destroy();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  await listen();
  const freeze = () => {
    frozen = true;
  };
  return { port, down, freeze, up: listen, close: down };
}
