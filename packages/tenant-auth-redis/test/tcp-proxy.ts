import { once } from 'node:events';
import { type AddressInfo, createServer, connect as netConnect, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of the real Redis, so a test can take the connection away (refuse and reset, or
 * hang without closing) and give it back, while the client under test keeps its own reconnect logic.
 */
export class TcpProxy {
  port = 0;
  #server: Server | undefined;
  readonly #pairs = new Set<{ client: Socket; upstream: Socket }>();
  #paused = false;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  /** Listens (again) on the same port as before, or on a free one the first time. */
  async start(): Promise<void> {
    const server = createServer((client) => {
      const upstream = netConnect(this.targetPort, this.targetHost);
      const pair = { client, upstream };
      this.#pairs.add(pair);
      const end = () => {
        client.destroy();
        upstream.destroy();
        this.#pairs.delete(pair);
      };
      client.on('error', end).on('close', end);
      upstream.on('error', end).on('close', end);
      upstream.pipe(client);
      if (!this.#paused) client.pipe(upstream);
    });
    server.listen(this.port, '127.0.0.1');
    await once(server, 'listening');
    this.port = (server.address() as AddressInfo).port;
    this.#server = server;
  }

  /** Stops listening and resets every connection: the client sees the server go away. */
  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    for (const { client, upstream } of this.#pairs) {
      client.destroy();
      upstream.destroy();
    }
    this.#pairs.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Keeps connections open but forwards nothing: a Redis that hangs. */
  pause(): void {
    this.#paused = true;
    for (const { client, upstream } of this.#pairs) client.unpipe(upstream);
  }

  /** Forwards again, including what was held back. */
  resume(): void {
    this.#paused = false;
    for (const { client, upstream } of this.#pairs) client.pipe(upstream);
  }
}
