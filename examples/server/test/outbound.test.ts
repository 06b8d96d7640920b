import { isIP } from 'node:net';
import { Agent, request as undiciRequest } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resolverOf } from '../src/dns-resolver.js';
import { IPV4_RANGES, IPV6_RANGES, judgeAddress } from '../src/outbound/address-ranges.js';
import { checkedConnector } from '../src/outbound/checked-connector.js';
import { createOutboundClient, type OutboundClient } from '../src/outbound/outbound-client.js';
import { OutboundError, type OutboundFailure } from '../src/outbound/outbound-error.js';
import { urlRefusal } from '../src/outbound/outbound-policy.js';
import { createAddressResolver } from '../src/outbound/resolve-addresses.js';
import { startTxtDnsServer, type TxtDnsServer } from './helpers/dns-txt.js';
import { type LoopbackHttpServer, startLoopbackHttp } from './helpers/loopback-http.js';

/*
 * The server's one outbound client over real sockets: a DNS server on loopback (UDP) answers the names,
 * HTTP servers on loopback count the connections they get, and no test mocks a resolver or a socket.
 */

/** A public address that listens on none of the test's ports (example.com's): connecting there fails. */
const PUBLIC = '93.184.215.14';

/** The failure an outbound request rejected with, or `'none'` when it succeeded. */
async function failureOf(
  promise: Promise<unknown>,
): Promise<{ failure: OutboundFailure | 'none'; message: string }> {
  try {
    await promise;
    return { failure: 'none', message: '' };
  } catch (err) {
    expect(err).toBeInstanceOf(OutboundError);
    expect(err).toBeInstanceOf(TypeError);
    return { failure: (err as OutboundError).failure, message: (err as OutboundError).message };
  }
}

let dns: TxtDnsServer;
let target: LoopbackHttpServer;
let target6: LoopbackHttpServer;
const clients: OutboundClient[] = [];

/** A client on the test's DNS server, closed after each test. */
function client(options: { allowLoopback?: boolean; timeoutMs?: number; maxResponseBytes?: number } = {}) {
  const made = createOutboundClient({ dnsServers: [dns.address], ...options });
  clients.push(made);
  return made;
}

beforeAll(async () => {
  dns = await startTxtDnsServer();
  const answer = (body: string) => (_req: unknown, res: import('node:http').ServerResponse) => res.end(body);
  target = await startLoopbackHttp('127.0.0.1', answer('from 127.0.0.1'));
  target6 = await startLoopbackHttp('::1', answer('from ::1'));
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  await target?.close();
  await target6?.close();
  await dns?.close();
});

describe('DNS rebinding', () => {
  /** A name whose first A answer is public and every later one 127.0.0.1 (TTL 0: nobody may keep it). */
  function rebindingName(): { name: string; aQuestions: () => number } {
    const name = `rebind-${Math.random().toString(36).slice(2, 8)}.test`;
    let asked = 0;
    dns.addresses.set(name, (type) => {
      if (type !== 'A') return [];
      asked += 1;
      return asked === 1 ? [PUBLIC] : ['127.0.0.1'];
    });
    return { name, aQuestions: () => asked };
  }

  it('control: a check, then a fetch that resolves the name again, is sent to loopback by this DNS server', async () => {
    // What the server did before its outbound client: judge the addresses, then let the connection look
    // the name up anew.
    const { name } = rebindingName();
    const resolver = resolverOf([dns.address]);
    const checked = await resolver.resolve4(name);
    expect(checked.map(judgeAddress)).toEqual([{ kind: 'public' }]);
    const rereading = new Agent({
      connect: {
        lookup: (hostname, _options, callback) => {
          resolver.resolve4(hostname).then(
            (addresses) =>
              callback(
                null,
                addresses.map((address) => ({ address, family: 4 })),
              ),
            (err: Error) => callback(err, '', 0),
          );
        },
      },
    });
    const before = target.connections;
    const answer = await undiciRequest(`http://${name}:${target.port}/secret`, { dispatcher: rereading });
    expect(await answer.body.text()).toBe('from 127.0.0.1');
    expect(target.connections).toBe(before + 1);
    await rereading.close();
  });

  it('connects to the address it checked: the later loopback answer reaches nothing', async () => {
    const { name, aQuestions } = rebindingName();
    const before = target.connections;
    // https: to a public address is allowed, and the listener takes any TCP connection, TLS or not.
    const result = await failureOf(
      client({ timeoutMs: 2000 }).request({ url: `https://${name}:${target.port}/secret` }),
    );
    expect(['network', 'timeout']).toContain(result.failure);
    expect(target.connections).toBe(before);
    // One resolution served both the check and the connection.
    expect(aQuestions()).toBe(1);
  });

  it('with loopback open, still goes to the checked public address, never to the later loopback one', async () => {
    const { name } = rebindingName();
    const before = target.connections;
    const result = await failureOf(
      client({ allowLoopback: true, timeoutMs: 2000 }).request({ url: `https://${name}:${target.port}/` }),
    );
    expect(['network', 'timeout']).toContain(result.failure);
    expect(target.connections).toBe(before);
  });
});

/** One address of each range, in the order of the lists (a new range needs its sample here). */
const SAMPLES: Record<string, string> = {
  '0.0.0.0/8': '0.0.0.0',
  '10.0.0.0/8': '10.1.2.3',
  '100.64.0.0/10': '100.64.0.1',
  '127.0.0.0/8': '127.0.0.1',
  '169.254.0.0/16': '169.254.169.254',
  '172.16.0.0/12': '172.20.0.1',
  '192.0.0.0/24': '192.0.0.170',
  '192.0.2.0/24': '192.0.2.10',
  '192.88.99.0/24': '192.88.99.1',
  '192.168.0.0/16': '192.168.1.1',
  '198.18.0.0/15': '198.18.0.1',
  '198.51.100.0/24': '198.51.100.1',
  '203.0.113.0/24': '203.0.113.1',
  '224.0.0.0/4': '224.0.0.251',
  '255.255.255.255/32': '255.255.255.255',
  '240.0.0.0/4': '240.0.0.1',
  '::/128': '::',
  '::1/128': '::1',
  '::ffff:0:0/96': '::ffff:10.0.0.1',
  '64:ff9b::/96': '64:ff9b::a9fe:a9fe',
  '64:ff9b:1::/48': '64:ff9b:1::808:808',
  '::ffff:0:0:0/96': '::ffff:0:808:808',
  '::/96': '::808:808',
  '100::/64': '100::1',
  '::/3': '1000::1',
  '2001::/32': '2001:0:4136:e378:8000:63bf:3fff:fdd2',
  '2001:2::/48': '2001:2::1',
  '2001::/23': '2001:20::1',
  '2001:db8::/32': '2001:db8::1',
  '2002::/16': '2002:808:808::1',
  '3fff::/20': '3fff::1',
  'fc00::/7': 'fd00::1',
  'fe80::/10': 'fe80::1',
  'fec0::/10': 'fec0::1',
  'ff00::/8': 'ff02::1',
  '4000::/2': '4000::1',
  '8000::/1': '8000::1',
};

describe('refused ranges', () => {
  it('has a sample of every range', () => {
    expect(Object.keys(SAMPLES)).toEqual([...IPV4_RANGES, ...IPV6_RANGES].map((r) => r.range));
  });

  it.each(Object.entries(SAMPLES))(
    'refuses %s (%s) by name and as a literal, before connecting',
    async (range, address) => {
      const name = `r${Math.random().toString(36).slice(2, 8)}.test`;
      dns.addresses.set(name, [address]);
      const outbound = client();
      const literal = isIP(address) === 6 ? `[${address}]` : address;
      for (const url of [`https://${name}:${target.port}/`, `https://${literal}:${target.port}/`]) {
        const result = await failureOf(outbound.request({ url }));
        expect(result.failure, url).toBe('refused');
        // The reason names the range (a mapped or NAT64 address, the IPv4 range inside as well).
        expect(result.message, url).toMatch(/^refused https:\/\//);
        expect(result.message, url).toContain(`in ${range},`);
      }
      expect(judgeAddress(address).kind).not.toBe('public');
    },
  );

  it('names the range in the reason', async () => {
    dns.addresses.set('metadata.test', ['169.254.169.254']);
    const result = await failureOf(
      client().request({ url: 'https://metadata.test/latest/meta-data?token=abc' }),
    );
    expect(result.message).toBe(
      'refused https://metadata.test: metadata.test resolves to 169.254.169.254, in 169.254.0.0/16, link-local, where cloud metadata services answer (RFC 3927)',
    );
    // Never the path or the query: they can hold a secret.
    expect(result.message).not.toContain('token=abc');
  });

  it('refuses a name when one of its addresses is refused, even beside a public one', async () => {
    dns.addresses.set('mixed.test', [PUBLIC, '10.0.0.7']);
    const result = await failureOf(client().request({ url: `https://mixed.test:${target.port}/` }));
    expect(result).toMatchObject({
      failure: 'refused',
      message: expect.stringContaining('10.0.0.7, in 10.0.0.0/8'),
    });
  });

  it('refuses the spellings of loopback and "this host" that URLs normalise', async () => {
    const before = target.connections;
    for (const host of [
      '0x7f.1',
      '2130706433',
      '0177.0.0.1',
      '127.1',
      '0.0.0.0',
      '[::ffff:127.0.0.1]',
      '[::]',
    ]) {
      const result = await failureOf(client().request({ url: `https://${host}:${target.port}/` }));
      expect(result.failure, host).toBe('refused');
    }
    expect(target.connections).toBe(before);
  });

  it('tells what it can before resolving: scheme, credentials, an IP address as host (a form answers invalid_url)', () => {
    const closed = { allowLoopback: false };
    for (const url of [
      'https://169.254.169.254/latest/meta-data',
      'https://[fd00::1]/',
      'https://10.0.0.1/',
      'https://user:pw@hooks.example.com/',
      'http://hooks.example.com/',
      'ftp://hooks.example.com/',
    ])
      expect(urlRefusal(new URL(url), closed), url).toBeInstanceOf(OutboundError);
    for (const url of ['https://hooks.example.com/in#part', `https://${PUBLIC}/`, 'https://[2606:4700::1]/'])
      expect(urlRefusal(new URL(url), closed), url).toBeUndefined();
    expect(urlRefusal(new URL('http://127.0.0.1:8080/'), { allowLoopback: true })).toBeUndefined();
  });

  it('checks at the connection too, for a dispatcher used without request()', async () => {
    const agent = new Agent({
      connect: checkedConnector(createAddressResolver([dns.address]), { allowLoopback: false }, 2000),
    });
    const before = target.connections;
    for (const url of [`http://127.0.0.1:${target.port}/`, `https://[::ffff:127.0.0.1]:${target.port}/`]) {
      const err = await undiciRequest(url, { dispatcher: agent }).catch((e: unknown) => e);
      expect(err, url).toBeInstanceOf(OutboundError);
      expect((err as OutboundError).failure).toBe('refused');
    }
    expect(target.connections).toBe(before);
    await agent.close();
  });

  it('refuses a name without an address as unresolved', async () => {
    const result = await failureOf(client().request({ url: 'https://nowhere.test/' }));
    expect(result).toMatchObject({ failure: 'unresolved', message: expect.stringContaining('nowhere.test') });
  });
});

describe('loopback and http://', () => {
  it('refuses loopback and http:// by default, saying which setting allows them', async () => {
    const before = target.connections;
    dns.addresses.set('loop.test', ['127.0.0.1', '::1']);
    for (const url of [
      `http://127.0.0.1:${target.port}/`,
      `https://127.0.0.1:${target.port}/`,
      `https://[::1]:${target6.port}/`,
      `https://localhost:${target.port}/`,
      `https://loop.test:${target.port}/`,
      `http://${PUBLIC}/`,
    ]) {
      const result = await failureOf(client().request({ url }));
      expect(result.failure, url).toBe('refused');
      expect(result.message, url).toContain('OUTBOUND_ALLOW_LOOPBACK=true');
    }
    expect(target.connections).toBe(before);
  });

  it('opens http:// to loopback with allowLoopback: 127.0.0.1, [::1], mapped, and names all of whose addresses are loopback', async () => {
    dns.addresses.set('loop.test', ['127.0.0.1', '::1']);
    const outbound = client({ allowLoopback: true });
    const text = async (url: string) => new TextDecoder().decode((await outbound.request({ url })).body);
    expect(await text(`http://127.0.0.1:${target.port}/`)).toBe('from 127.0.0.1');
    expect(await text(`http://[::1]:${target6.port}/`)).toBe('from ::1');
    expect(await text(`http://[::ffff:127.0.0.1]:${target.port}/`)).toBe('from 127.0.0.1');
    expect(await text(`http://localhost:${target.port}/`)).toBe('from 127.0.0.1');
    expect(await text(`http://loop.test:${target.port}/`)).toBe('from 127.0.0.1');
  });

  it('keeps http:// to loopback only, and every other range refused, with allowLoopback', async () => {
    dns.addresses.set('half-loop.test', ['127.0.0.1', PUBLIC]);
    dns.addresses.set('public.test', [PUBLIC]);
    const outbound = client({ allowLoopback: true });
    const before = target.connections;
    for (const [url, reason] of [
      [`http://half-loop.test:${target.port}/`, 'http:// goes to loopback only'],
      [`http://public.test:${target.port}/`, 'http:// goes to loopback only'],
      [`http://${PUBLIC}:${target.port}/`, 'http:// goes to loopback only'],
      [`https://10.0.0.1:${target.port}/`, 'private (RFC 1918)'],
      [`http://[64:ff9b::7f00:1]:${target.port}/`, 'NAT64'],
      [`http://[2002:7f00:1::1]:${target.port}/`, '6to4'],
      [`http://0.0.0.0:${target.port}/`, '"this network"'],
    ] as const) {
      const result = await failureOf(outbound.request({ url }));
      expect(result.failure, url).toBe('refused');
      expect(result.message, url).toContain(reason);
    }
    expect(target.connections).toBe(before);
  });

  it('refuses credentials in the URL and schemes other than http and https', async () => {
    const outbound = client({ allowLoopback: true });
    for (const url of [
      `http://user:pass@127.0.0.1:${target.port}/`,
      `ftp://127.0.0.1:${target.port}/`,
      'file:///etc/passwd',
    ]) {
      const result = await failureOf(outbound.request({ url }));
      expect(result.failure, url).toBe('refused');
      expect(result.message).not.toContain('pass@');
    }
  });
});

describe('redirects, the deadline and the size cap', () => {
  let server: LoopbackHttpServer;
  beforeAll(async () => {
    server = await startLoopbackHttp('127.0.0.1', (req, res) => {
      const size = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('size') ?? '0');
      if (req.url === '/redirect') res.writeHead(302, { location: '/target' }).end();
      else if (req.url?.startsWith('/away'))
        res.writeHead(307, { location: `http://127.0.0.1:${target.port}/` }).end();
      else if (req.url === '/silent') {
        // Never answers.
      } else if (req.url === '/trickle') {
        // A byte every 50 ms, for ever: never idle, so only a deadline on the whole request stops it.
        res.writeHead(200, { 'content-type': 'text/plain' });
        const drip = setInterval(() => res.write('a'), 50);
        res.on('close', () => clearInterval(drip));
      } else if (req.url?.startsWith('/sized')) res.end(Buffer.alloc(size, 'x'));
      else if (req.url?.startsWith('/chunked')) {
        res.writeHead(200, { 'transfer-encoding': 'chunked' });
        for (let sent = 0; sent < size; sent += 100) res.write(Buffer.alloc(Math.min(100, size - sent), 'y'));
        res.end();
      } else if (req.url === '/form' && req.method === 'POST') {
        let body = '';
        req.on('data', (chunk) => {
          body += chunk;
        });
        req.on('end', () =>
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ type: req.headers['content-type'], body })),
        );
      } else if (req.url === '/empty') res.writeHead(204).end();
      else res.writeHead(200).end('target');
    });
  });
  afterAll(async () => {
    await server?.close();
  });
  const at = (path: string) => `http://127.0.0.1:${server.port}${path}`;

  it('never follows a redirect: the 3xx is the answer', async () => {
    const outbound = client({ allowLoopback: true });
    const before = target.connections;
    const answer = await outbound.request({ url: at('/redirect') });
    expect(answer.status).toBe(302);
    expect(answer.headers.get('location')).toBe('/target');
    expect(server.requests).not.toContain('GET /target');
    const away = await outbound.fetch(at('/away'), { redirect: 'follow' });
    expect(away.status).toBe(307);
    expect(target.connections).toBe(before);
  });

  it('gives up at the deadline, whether the answer or its body is late', async () => {
    const outbound = client({ allowLoopback: true, timeoutMs: 300 });
    expect((await failureOf(outbound.request({ url: at('/silent') }))).failure).toBe('timeout');
    const late = await failureOf(outbound.request({ url: at('/trickle') }));
    expect(late).toEqual({
      failure: 'timeout',
      message: `${new URL(at('/')).origin} gave no complete answer within 0.3 s`,
    });
  });

  it("leaves the caller's own cancellation the caller's", async () => {
    const outbound = client({ allowLoopback: true });
    const reason = new Error('the caller gave up');
    const controller = new AbortController();
    const pending = outbound.request({ url: at('/silent'), signal: controller.signal });
    setTimeout(() => controller.abort(reason), 50);
    await expect(pending).rejects.toBe(reason);
  });

  it('reads a body up to the cap and refuses a larger one, with or without Content-Length', async () => {
    const outbound = client({ allowLoopback: true, maxResponseBytes: 1000 });
    expect((await outbound.request({ url: at('/sized?size=1000') })).body.length).toBe(1000);
    expect((await outbound.request({ url: at('/chunked?size=1000') })).body.length).toBe(1000);
    for (const path of ['/sized?size=1001', '/chunked?size=5000']) {
      const result = await failureOf(outbound.request({ url: at(path) }));
      expect(result, path).toEqual({
        failure: 'too_large',
        message: expect.stringContaining('more than 1000 bytes'),
      });
    }
  });

  it('is a fetch: form bodies, headers, statuses without a body', async () => {
    const outbound = client({ allowLoopback: true });
    const answer = await outbound.fetch(at('/form'), {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'authorization_code', code: 'c' }),
    });
    expect(answer).toBeInstanceOf(Response);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(await answer.json()).toEqual({
      type: 'application/x-www-form-urlencoded;charset=UTF-8',
      body: 'grant_type=authorization_code&code=c',
    });
    const empty = await outbound.fetch(at('/empty'));
    expect(empty.status).toBe(204);
    expect(await empty.text()).toBe('');
  });

  it('reports a refused connection as a network failure naming the origin', async () => {
    const closed = await startLoopbackHttp('127.0.0.1');
    await closed.close();
    const result = await failureOf(
      client({ allowLoopback: true }).request({ url: `http://127.0.0.1:${closed.port}/x` }),
    );
    expect(result).toEqual({
      failure: 'network',
      message: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED/),
    });
  });
});
