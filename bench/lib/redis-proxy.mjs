// A counting Redis proxy for the sizing figures of the reference server: listens on loopback, forwards
// every byte both ways to the real Redis, and decodes the commands the clients send (RESP arrays, as
// ioredis writes them) to count them by name and to note the keys the rate-limit scripts touched
// (`EVALSHA sha numkeys key...`), so that the benchmark can delete exactly those afterwards.
import { startTcpProxy } from './tcp-proxy.mjs';

export async function startRedisProxy(targetUrl) {
  let counts = {};
  const keys = new Set();
  const proxy = await startTcpProxy(targetUrl, 6379, (client) => {
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
  return {
    url: proxy.url,
    /** Commands sent since the last call, by lower-case name: `{ evalsha: 2, ... }`. */
    take() {
      const taken = counts;
      counts = {};
      return taken;
    },
    /** Every key an EVALSHA or EVAL named so far. */
    keys: () => [...keys],
    close: proxy.close,
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
