// Checks that the PostgreSQL and Redis that the tests are pointed at really answer, with no
// dependency: a PostgreSQL startup handshake up to ReadyForQuery, and a Redis PING.
import net from 'node:net';

const TIMEOUT_MS = 5000;

function talk(url, onConnect, onData) {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: url.hostname, port: Number(url.port) });
    let buf = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${TIMEOUT_MS} ms`));
    }, TIMEOUT_MS);
    const done = (err, value) => {
      clearTimeout(timer);
      socket.destroy();
      err ? reject(err) : resolve(value);
    };
    socket.on('connect', () => onConnect(socket));
    socket.on('error', (err) => done(err));
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      onData(buf, done);
    });
  });
}

function checkPostgres(raw) {
  const url = new URL(raw);
  const user = decodeURIComponent(url.username || 'postgres');
  const database = decodeURIComponent(url.pathname.slice(1) || user);
  return talk(
    url,
    (socket) => {
      const body = Buffer.from(`user\0${user}\0database\0${database}\0\0`);
      const head = Buffer.alloc(8);
      head.writeInt32BE(8 + body.length, 0);
      head.writeInt32BE(196608, 4); // protocol 3.0
      socket.write(Buffer.concat([head, body]));
    },
    (buf, done) => {
      let offset = 0;
      while (buf.length >= offset + 5) {
        const type = String.fromCharCode(buf[offset]);
        const len = buf.readInt32BE(offset + 1);
        if (buf.length < offset + 1 + len) return;
        if (type === 'E')
          return done(
            new Error(
              buf
                .subarray(offset + 5, offset + 1 + len)
                .toString()
                .replace(/\0/g, ' '),
            ),
          );
        if (type === 'R' && buf.readInt32BE(offset + 5) !== 0)
          return done(new Error('server asks for a password (expected trust auth)'));
        if (type === 'Z') return done(null, 'ready');
        offset += 1 + len;
      }
    },
  );
}

function checkRedis(raw) {
  const url = new URL(raw);
  return talk(
    url,
    (socket) => socket.write('PING\r\n'),
    (buf, done) => {
      const text = buf.toString();
      if (text.includes('\r\n')) text.startsWith('+PONG') ? done(null, 'PONG') : done(new Error(text.trim()));
    },
  );
}

let failed = false;
for (const [name, env, check] of [
  ['PostgreSQL', 'TEST_DATABASE_URL', checkPostgres],
  ['Redis', 'TEST_REDIS_URL', checkRedis],
]) {
  const url = process.env[env];
  if (!url) {
    console.error(`check-services: ${env} is not set`);
    failed = true;
    continue;
  }
  try {
    await check(url);
    console.error(`check-services: ${name} at ${env} answers`);
  } catch (err) {
    console.error(`check-services: ${name} at ${env}=${url} does not answer: ${err.message}`);
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
