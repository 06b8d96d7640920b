// A counting Redis proxy for the sizing figures of the reference server: listens on loopback, forwards
// every byte both ways to the real Redis, and decodes the commands the clients send (RESP arrays, as
// ioredis writes them) to count them by name and to note the keys the rate-limit scripts touched
// (`EVALSHA sha numkeys key...`), so that the benchmark can delete exactly those afterwards.
import { connect, createServer } from 'node:net';

export async function startRedisProxy(targetUrl) {
  const target = new URL(targetUrl);
  const host = target.hostname || '127.0.0.1';
  const port = Number(target.port || 6379);
  let counts = {};
  const keys = new Set();
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
    client.on(
      'data',
      commandReader((args) => {
        const name = args[0]?.toLowerCase() ?? '';
        counts[name] = (counts[name] ?? 0) + 1;
        if (name === 'evalsha' || name === 'eval') {
          const n = Number(args[2]);
          for (const key of args.slice(3, 3 + n)) keys.add(key);
        }
      }),
    );
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const url = new URL(targetUrl);
  url.hostname = '127.0.0.1';
  url.port = String(server.address().port);
  return {
    url: url.toString(),
    /** Commands sent since the last call, by lower-case name: `{ evalsha: 2, ... }`. */
    take() {
      const taken = counts;
      counts = {};
      return taken;
    },
    /** Every key an EVALSHA or EVAL named so far. */
    keys: () => [...keys],
    close: () => new Promise((r) => server.close(r)),
  };
}

/** Splits a client's byte stream into commands: `onCommand(args)` with each argument as a string. */
function commandReader(onCommand) {
  let buffer = Buffer.alloc(0);
  return (chunk) => {
    buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
    for (;;) {
      const parsed = readCommand(buffer);
      if (!parsed) return;
      buffer = buffer.subarray(parsed.next);
      onCommand(parsed.args);
    }
  };
}

/** One command at the start of `buf` (`*N\r\n` then N bulk strings, or an inline line), or null if incomplete. */
function readCommand(buf) {
  const line = (from) => {
    const end = buf.indexOf('\r\n', from);
    return end === -1 ? null : { text: buf.toString('latin1', from, end), next: end + 2 };
  };
  const head = line(0);
  if (!head) return null;
  if (!head.text.startsWith('*')) return { args: head.text.trim().split(/\s+/), next: head.next };
  const n = Number(head.text.slice(1));
  const args = [];
  let at = head.next;
  for (let i = 0; i < n; i++) {
    const size = line(at);
    if (!size) return null;
    const length = Number(size.text.slice(1));
    if (buf.length < size.next + length + 2) return null;
    args.push(buf.toString('utf8', size.next, size.next + length));
    at = size.next + length + 2;
  }
  return { args, next: at };
}
