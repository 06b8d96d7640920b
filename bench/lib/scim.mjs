// What the SCIM benchmarks share: a DNS server on loopback that publishes the tenant's TXT record (the
// reference server resolves through it with DNS_SERVERS, as examples/server/test/helpers/dns-txt.ts does
// for the tests), an SMTP server on loopback that keeps the messages (a password-reset link), a tenant
// whose domain is verified and its SCIM token, and a loop that sends a fixed number of requests.

import { randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import {
  clientAddress,
  cpuSeconds,
  createThrowawayDatabase,
  expectStatus,
  http,
  requireFromServer,
  startReferenceServer,
} from './harness.mjs';

export const SCIM_TYPE = 'application/scim+json';
export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/**
 * What both SCIM benchmarks run against: the DNS and SMTP servers on loopback, a throwaway database named
 * after `label`, and the reference server on it (NODE_ENV=test for the loopback SMTP server; no SCIM
 * budget in the way). `stop()` ends all four. Options for the sizing counts: `env` adds to the server's
 * environment, `bcryptCost` is passed on, and `database(url)` returns the URL the server is to use for the
 * throwaway database's (a counting proxy in front of it).
 */
export async function startScimBench(label, { env = {}, bcryptCost, database = (url) => url } = {}) {
  const dns = await startTxtDns();
  const inbox = await startInbox();
  const db = await createThrowawayDatabase(label);
  const server = await startReferenceServer({
    databaseUrl: await database(db.url),
    ...(bcryptCost === undefined ? {} : { bcryptCost }),
    env: {
      NODE_ENV: 'test',
      DNS_SERVERS: dns.address,
      SMTP_URL: inbox.url,
      SCIM_RATE_LIMIT_MAX: '1000000000',
      PUBLIC_URL: 'https://auth.example.com',
      ...env,
    },
  });
  return {
    dns,
    inbox,
    db,
    server,
    async stop() {
      await server.stop();
      await db.drop();
      await dns.close();
      await inbox.close();
    },
  };
}

/** A UDP DNS server on 127.0.0.1 answering TXT questions from `records` (name → [[string]]), NXDOMAIN else. */
export async function startTxtDns() {
  const dnsPacket = requireFromServer('dns-packet');
  const records = new Map();
  const socket = createSocket('udp4');
  socket.on('message', (message, peer) => {
    let query;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return;
    }
    const question = query.questions?.[0];
    const name = question?.name.toLowerCase() ?? '';
    const txt = records.get(name);
    const answers =
      txt && question?.type === 'TXT'
        ? txt.map((data) => ({ type: 'TXT', name, ttl: 60, class: 'IN', data }))
        : [];
    socket.send(
      dnsPacket.encode({
        id: query.id,
        type: 'response',
        flags: dnsPacket.AUTHORITATIVE_ANSWER | (txt ? 0 : 3),
        questions: query.questions,
        answers,
      }),
      peer.port,
      peer.address,
    );
  });
  await new Promise((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    records,
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}

/** An SMTP server on 127.0.0.1 keeping each message's raw text (soft line breaks and =3D undone). */
export async function startInbox() {
  const { SMTPServer } = requireFromServer('smtp-server');
  const messages = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks = [];
      stream.on('data', (c) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        messages.push({
          to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
          text: raw.replace(/=\r?\n/g, '').replace(/=3D/gi, '='),
        });
        callback();
      });
    },
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `smtp://127.0.0.1:${server.server.address().port}`,
    messages,
    /** The `token` query parameter of the first link to `path` in a message to `to`, waiting up to 20 s. */
    async tokenFor(to, path) {
      const deadline = Date.now() + 20_000;
      for (;;) {
        for (const m of messages) {
          if (!m.to.includes(to.toLowerCase())) continue;
          const match = new RegExp(`${path}\\?token=([A-Za-z0-9_.~%-]+)`).exec(m.text);
          if (match) return decodeURIComponent(match[1]);
        }
        if (Date.now() > deadline) throw new Error(`no ${path} link reached ${to} in 20 s`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** `Authorization: Bearer` plus the SCIM media type, for a request to /scim/v2. */
export const scimHeaders = (token) => ({
  authorization: `Bearer ${token}`,
  'content-type': SCIM_TYPE,
  accept: SCIM_TYPE,
});

/** A SCIM User of `userName` (its work address too), active. */
export const scimUser = (userName) => ({
  schemas: [USER_SCHEMA],
  userName,
  name: { givenName: 'Bench', familyName: 'User' },
  emails: [{ value: userName, type: 'work', primary: true }],
  active: true,
});

/**
 * A fresh owner at `owner@<domain>`, its address verified through the link `inbox` received (the members
 * API wants a verified admin), whose tenant verified `domain` (its TXT record published in `dns`), and the
 * tenant's SCIM token (POST /tenants/me/scim/token: owner, recent; the registration is).
 */
export async function directoryTenant(baseUrl, dns, inbox) {
  const domain = `bench-${randomBytes(4).toString('hex')}.example.com`;
  const email = `owner@${domain}`;
  const password = `Lattice-${randomBytes(9).toString('hex')}-97`;
  const api = (path, init = {}, token) =>
    http(`${baseUrl}/api/v1${path}`, {
      ...init,
      headers: {
        'x-forwarded-for': clientAddress(3000),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
    });
  const reg = expectStatus(
    await api('/auth/register', { method: 'POST', body: { email, password, tenantName: `Bench ${domain}` } }),
    201,
    'register',
  );
  const ownerToken = reg.accessToken;
  const verification = await inbox.tokenFor(email, '/verify-email');
  expectStatus(
    await api('/auth/email/verify', { method: 'POST', body: { token: verification } }),
    204,
    'verify email',
  );
  const added = expectStatus(
    await api('/tenants/me/domains', { method: 'POST', body: { domain } }, ownerToken),
    201,
    'add domain',
  );
  dns.records.set(added.domain.verification.name.toLowerCase(), [[added.domain.verification.value]]);
  expectStatus(
    await api(`/tenants/me/domains/${domain}/verify`, { method: 'POST' }, ownerToken),
    200,
    'verify domain',
  );
  const created = expectStatus(
    await api('/tenants/me/scim/token', { method: 'POST' }, ownerToken),
    201,
    'SCIM token',
  );
  return { domain, email, password, ownerId: reg.user.id, ownerToken, scimToken: created.token };
}

/**
 * Sends `count` requests, `concurrency` at a time (each worker sends its next when its previous answered):
 * `{ ops, failures, statuses, seconds, rps, cpu }`, timed from the first send to the last answer, `cpu`
 * the CPU seconds `pid` used meanwhile. `request(i)` returns `{ url, method, headers, body }`; `onAnswer(res)`
 * sees every answer.
 */
export async function countedLoop({ concurrency, count, request, pid, onAnswer }) {
  let next = 0;
  let ok = 0;
  let failures = 0;
  const statuses = {};
  const firstFailures = [];
  const cpu0 = pid ? cpuSeconds(pid) : null;
  const t0 = performance.now();
  const worker = async () => {
    while (next < count) {
      const { url, ...init } = request(next++);
      let res;
      try {
        res = await http(url, init);
      } catch (err) {
        res = { status: 0, body: String(err) };
      }
      onAnswer?.(res);
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      if (res.status >= 200 && res.status < 300) ok++;
      else {
        failures++;
        if (firstFailures.length < 3)
          firstFailures.push(`${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  const seconds = (performance.now() - t0) / 1000;
  const cpu = pid ? cpuSeconds(pid) - cpu0 : null;
  return { ops: ok, failures, firstFailures, statuses, seconds, rps: ok / seconds, cpu };
}
