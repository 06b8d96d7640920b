import { once } from 'node:events';
import { type AddressInfo, createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP forwarder in front of a real server (like toxiproxy), for the fault tests of every package: the
 * client under test sees a real network outage, with its own reconnect logic.
 *
 * - `stop()` resets every connection and stops listening; `start()` listens again on the same port.
 * - `pause()` keeps every connection open but forwards nothing either way (a server that stopped
 *   answering; a FIN is held back too); `resume()` forwards again, including what was held back.
 *
 * @example
 * const proxy = new TcpProxy('127.0.0.1', 5432);
 * await proxy.start();
 * const url = `postgres://postgres@127.0.0.1:${proxy.port}/test`;
 * await proxy.stop(); // the database is gone
 */
export class TcpProxy {
  port = 0;
  #server: Server | undefined;
  readonly #sockets = new Set<Socket>();
  readonly #held: Array<() => void> = [];
  #paused = false;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  /** Listens (again) on the same port as before, or on a free one the first time. */
  async start(): Promise<void> {
    // allowHalfOpen: a paused server does not answer a client's FIN either.
    const server = createServer({ allowHalfOpen: true }, (client) => {
      const upstream = createConnection(this.targetPort, this.targetHost);
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.on('close', () => this.#sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      this.#forward(client, upstream);
      this.#forward(upstream, client);
    });
    server.listen(this.port, '127.0.0.1');
    await once(server, 'listening');
    this.port = (server.address() as AddressInfo).port;
    this.#server = server;
  }

  /** Resets every connection and stops listening: the client sees the server go away. */
  async stop(): Promise<void> {
    this.#paused = false;
    this.#held.length = 0;
    const server = this.#server;
    this.#server = undefined;
    for (const socket of this.#sockets) socket.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Keeps connections open but forwards nothing, either way. */
  pause(): void {
    this.#paused = true;
  }

  /** Forwards again, what was held back first. */
  resume(): void {
    this.#paused = false;
    for (const send of this.#held.splice(0)) send();
  }

  #forward(from: Socket, to: Socket): void {
    const send = (action: () => void) => (this.#paused ? this.#held.push(action) : action());
    from.on('data', (chunk: Buffer) => send(() => to.write(chunk)));
    from.on('end', () => send(() => to.end()));
  }
}
