// A loopback TCP proxy in front of a service, for the benchmarks that count what the reference server sends
// it (pg-proxy.mjs, redis-proxy.mjs): every connection is piped both ways unchanged, and `watch(client,
// upstream)` gets both sockets to listen to their bytes.
import { connect, createServer } from 'node:net';

/**
 * Starts the proxy on a free loopback port; resolves to the target's URL with the proxy's host and port in
 * it, and `close()`.
 *
 * @example
 * const proxy = await startTcpProxy('postgres://postgres@127.0.0.1:5432/test', 5432, (client, upstream) => {
 *   client.on('data', (chunk) => seen.push(chunk));
 * });
 */
export async function startTcpProxy(targetUrl, defaultPort, watch) {
  const target = new URL(targetUrl);
  const host = target.hostname || '127.0.0.1';
  const port = Number(target.port || defaultPort);
  const server = createServer((client) => {
    const upstream = connect(port, host);
    client.pipe(upstream);
    upstream.pipe(client);
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', close);
    upstream.on('error', close);
    client.on('close', close);
    upstream.on('close', close);
    watch(client, upstream);
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const url = new URL(targetUrl);
  url.hostname = '127.0.0.1';
  url.port = String(server.address().port);
  return { url: url.toString(), close: () => new Promise((r) => server.close(r)) };
}
