// A counting PostgreSQL proxy for the sizing figures: listens on loopback, forwards every byte both ways
// to the real server, and decodes both directions to log each statement a client runs and what came of it.
//
// - Simple protocol: a Query ('Q') is one entry (its text may hold several statements; `tags` has one
//   command tag per statement).
// - Extended protocol (prepared statements): Parse ('P') names a statement's text (the unnamed one, '',
//   until the next unnamed Parse), Bind ('B') makes a portal of a statement, and each Execute ('E') of a
//   portal is one entry with that statement's text, named or unnamed: a statement prepared once and run
//   three times is three entries. An Execute after an error is skipped by the server until the next Sync:
//   its entry says `skipped`.
// - From the server: each entry gets its command tag (`SELECT 1`, `UPDATE 0`, `BEGIN`, ...), `rows` (the
//   tag's count, summed over a simple query's statements; null for a tag without one) and `error` (the
//   SQLSTATE of an ErrorResponse). Answers come in the order of the requests on a connection.
//
// `take()` returns the entries logged since the last take, oldest first; an entry's answer may still be
// on its way (take after the client has its answer). No TLS (the benchmark's URL has none); authentication
// passes through untouched.
//
// Self-check (needs PostgreSQL at BENCH_DATABASE_URL): `node bench/lib/pg-proxy.mjs` runs simple, unnamed
// and named prepared statements, a failing one and a transaction through the proxy with `pg`, and exits
// 1 when the log is not what they sent.
import { startTcpProxy } from './tcp-proxy.mjs';

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;

export async function startPgProxy(targetUrl) {
  let log = [];
  const proxy = await startTcpProxy(targetUrl, 5432, (client, upstream) => {
    const session = connectionLog((entry) => log.push(entry));
    client.on('data', session.fromClient);
    upstream.on('data', session.fromServer);
  });
  return {
    url: proxy.url,
    /**
     * The statements run since the last call, oldest first: `{ text, protocol: 'simple' | 'extended', at,
     * tags, rows, error, skipped }` (`at`: performance.now() when the proxy saw it).
     */
    take() {
      const taken = log;
      log = [];
      return taken;
    },
    close: proxy.close,
  };
}

/**
 * The decoder of one connection: `fromClient(chunk)` and `fromServer(chunk)` take the bytes of each
 * direction as they come; `onEntry(entry)` is called for each statement when the client sends it, and the
 * entry is completed in place when the server answers.
 */
export function connectionLog(onEntry) {
  const statements = new Map(); // prepared statement name -> text ('' is the unnamed one)
  const portals = new Map(); // portal name -> text
  // What waits for an answer, in order: entries, and a marker per Sync (a Query is its own Sync).
  const pending = [];
  const SYNC = { sync: true };
  let started = false;
  let rawAnswers = 0; // single-byte answers owed to SSLRequest / GSSENCRequest
  const newEntry = (text, protocol) => {
    const entry = {
      text,
      protocol,
      at: performance.now(),
      tags: [],
      rows: null,
      error: null,
      skipped: false,
    };
    onEntry(entry);
    return entry;
  };
  const fromClient = framed(
    true,
    (type, body) => {
      if (type === null) {
        // A message without a type byte: the startup message, or a request for TLS / GSS encryption.
        const code = body.readInt32BE(0);
        if (code === SSL_REQUEST || code === GSSENC_REQUEST) rawAnswers++;
        else started = true;
        return;
      }
      if (type === 'Q') {
        pending.push(newEntry(cstring(body, 0).text, 'simple'), SYNC);
      } else if (type === 'P') {
        const name = cstring(body, 0);
        statements.set(name.text, cstring(body, name.next).text);
      } else if (type === 'B') {
        const portal = cstring(body, 0);
        const statement = cstring(body, portal.next);
        portals.set(portal.text, statements.get(statement.text) ?? null);
      } else if (type === 'E') {
        const text = portals.get(cstring(body, 0).text);
        if (text != null) pending.push(newEntry(text, 'extended'));
      } else if (type === 'C') {
        // Close: 'S' a statement, 'P' a portal.
        const name = cstring(body, 1).text;
        (body[0] === 0x53 ? statements : portals).delete(name);
      } else if (type === 'S') {
        pending.push(SYNC);
      }
    },
    () => started,
  );
  const firstEntry = () => (pending[0] && pending[0] !== SYNC ? pending[0] : null);
  const settle = (entry) => {
    if (entry.protocol === 'extended') pending.shift();
  };
  const fromServer = framed(
    false,
    (type, body) => {
      const entry = firstEntry();
      if (type === 'C') {
        // CommandComplete: its tag, e.g. "INSERT 0 1", "UPDATE 3", "SELECT 0", "BEGIN".
        if (!entry) return;
        const tag = cstring(body, 0).text;
        const count = /\s(\d+)$/.exec(tag);
        entry.tags.push(tag);
        if (count) entry.rows = (entry.rows ?? 0) + Number(count[1]);
        settle(entry);
      } else if (type === 'I' || type === 's') {
        // EmptyQueryResponse, PortalSuspended (an Execute with a row limit: the portal runs on later).
        if (entry) settle(entry);
      } else if (type === 'E') {
        // ErrorResponse: fields of a type byte and a string; 'C' is the SQLSTATE.
        if (!entry) return;
        for (let i = 0; i < body.length && body[i] !== 0; ) {
          const field = cstring(body, i + 1);
          if (body[i] === 0x43) entry.error = field.text;
          i = field.next;
        }
        settle(entry);
      } else if (type === 'Z') {
        // ReadyForQuery ends a Query or a Sync: an Execute still waiting was skipped after an error.
        while (pending.length > 0) {
          const item = pending.shift();
          if (item === SYNC) break;
          if (item.protocol === 'extended') item.skipped = true;
        }
      }
    },
    () => rawAnswers === 0,
    () => {
      rawAnswers--;
    },
  );
  return { fromClient, fromServer };
}

/**
 * A message splitter: calls `onMessage(type, body)` per whole message. `typed()` says whether messages have
 * a type byte yet (the client's first ones do not); `onRawByte`, when given, takes a lone answer byte
 * (the server's 'S' or 'N' to an encryption request) while `typed()` is false.
 */
function framed(fromClient, onMessage, typed, onRawByte) {
  let buffer = Buffer.alloc(0);
  return (chunk) => {
    buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
    for (;;) {
      if (!typed()) {
        if (!fromClient) {
          if (buffer.length < 1) return;
          buffer = buffer.subarray(1);
          onRawByte();
          continue;
        }
        if (buffer.length < 8) return;
        const length = buffer.readInt32BE(0);
        if (buffer.length < length) return;
        const body = buffer.subarray(4, length);
        buffer = buffer.subarray(length);
        onMessage(null, body);
        continue;
      }
      if (buffer.length < 5) return;
      const length = buffer.readInt32BE(1);
      if (buffer.length < 1 + length) return;
      const type = String.fromCharCode(buffer[0]);
      const body = buffer.subarray(5, 1 + length);
      buffer = buffer.subarray(1 + length);
      onMessage(type, body);
    }
  };
}

function cstring(buf, offset) {
  const end = buf.indexOf(0, offset);
  return { text: buf.toString('utf8', offset, end), next: end + 1 };
}

// ------------------------------------------------------------------------------------------- self-check

async function selfCheck() {
  const { DATABASE_URL, requireFromRoot } = await import('./harness.mjs');
  const { Client } = requireFromRoot('pg');
  const proxy = await startPgProxy(DATABASE_URL);
  const client = new Client({ connectionString: proxy.url });
  await client.connect();
  proxy.take(); // the connection's own set-up, if any
  await client.query('select 1'); // simple
  await client.query('select $1::int as n', [2]); // unnamed, extended
  await client.query({ name: 'pg-proxy-check', text: 'select $1::int + 1 as n', values: [3] }); // named: Parse
  await client.query({ name: 'pg-proxy-check', text: 'select $1::int + 1 as n', values: [4] }); // Bind only
  await client.query('select 1 / $1::int', [0]).catch(() => {}); // fails: division by zero
  await client.query('begin; select 1; commit'); // simple, three statements
  await client.query('select generate_series(1, $1::int)', [5]);
  await client.end();
  await new Promise((r) => setTimeout(r, 50));
  const got = proxy.take().map(({ text, protocol, tags, rows, error, skipped }) => ({
    text,
    protocol,
    tags: tags.join(','),
    rows,
    error,
    skipped,
  }));
  await proxy.close();
  const want = [
    { text: 'select 1', protocol: 'simple', tags: 'SELECT 1', rows: 1, error: null, skipped: false },
    {
      text: 'select $1::int as n',
      protocol: 'extended',
      tags: 'SELECT 1',
      rows: 1,
      error: null,
      skipped: false,
    },
    {
      text: 'select $1::int + 1 as n',
      protocol: 'extended',
      tags: 'SELECT 1',
      rows: 1,
      error: null,
      skipped: false,
    },
    {
      text: 'select $1::int + 1 as n',
      protocol: 'extended',
      tags: 'SELECT 1',
      rows: 1,
      error: null,
      skipped: false,
    },
    {
      text: 'select 1 / $1::int',
      protocol: 'extended',
      tags: '',
      rows: null,
      error: '22012',
      skipped: false,
    },
    {
      text: 'begin; select 1; commit',
      protocol: 'simple',
      tags: 'BEGIN,SELECT 1,COMMIT',
      rows: 1,
      error: null,
      skipped: false,
    },
    {
      text: 'select generate_series(1, $1::int)',
      protocol: 'extended',
      tags: 'SELECT 5',
      rows: 5,
      error: null,
      skipped: false,
    },
  ];
  const same = JSON.stringify(got) === JSON.stringify(want);
  console.log(same ? 'pg-proxy self-check: ok' : 'pg-proxy self-check: FAILED');
  if (!same) {
    console.log(`got:  ${JSON.stringify(got, null, 2)}\nwant: ${JSON.stringify(want, null, 2)}`);
    process.exitCode = 1;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await selfCheck();
