// A counting PostgreSQL proxy for the sizing figures: listens on loopback, forwards every byte both ways
// to the real server, and decodes the frontend messages to log each statement a client runs: a simple
// Query ('Q') is one statement; in the extended protocol, each Execute ('E') runs the statement last
// bound ('B') from a Parse ('P'): with parameters sent apart from the text. `take()` returns the statements logged since the last take. No TLS (the
// benchmark's URL has none), authentication passes through untouched.
import { connect, createServer } from 'node:net';

export async function startPgProxy(targetUrl) {
  const target = new URL(targetUrl);
  const host = target.hostname || '127.0.0.1';
  const port = Number(target.port || 5432);
  let log = [];
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
    let buffer = Buffer.alloc(0);
    let started = false;
    const statements = new Map(); // prepared statement name -> text
    let portalText = null;
    client.on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        if (!started) {
          if (buffer.length < 4) return;
          const length = buffer.readInt32BE(0);
          if (buffer.length < length) return;
          const code = buffer.readInt32BE(4);
          buffer = buffer.subarray(length);
          // SSLRequest / GSSENCRequest are answered 'N' and followed by the real startup message.
          if (code !== 80877103 && code !== 80877104) started = true;
          continue;
        }
        if (buffer.length < 5) return;
        const type = String.fromCharCode(buffer[0]);
        const length = buffer.readInt32BE(1);
        if (buffer.length < 1 + length) return;
        const body = buffer.subarray(5, 1 + length);
        buffer = buffer.subarray(1 + length);
        if (type === 'Q') {
          log.push({ text: cstring(body, 0).text, protocol: 'simple' });
        } else if (type === 'P') {
          const name = cstring(body, 0);
          statements.set(name.text, cstring(body, name.next).text);
        } else if (type === 'B') {
          const portal = cstring(body, 0);
          const statement = cstring(body, portal.next);
          portalText = statements.get(statement.text) ?? null;
        } else if (type === 'E') {
          if (portalText !== null) log.push({ text: portalText, protocol: 'extended' });
        }
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const url = new URL(targetUrl);
  url.hostname = '127.0.0.1';
  url.port = String(server.address().port);
  return {
    url: url.toString(),
    /** The statements run since the last call, oldest first: `{ text, protocol: 'simple' | 'extended' }`. */
    take() {
      const taken = log;
      log = [];
      return taken;
    },
    close: () => new Promise((r) => server.close(r)),
  };
}

function cstring(buf, offset) {
  const end = buf.indexOf(0, offset);
  return { text: buf.toString('utf8', offset, end), next: end + 1 };
}
