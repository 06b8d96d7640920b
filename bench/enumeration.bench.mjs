// Enumeration timing: the median latency of a login with an unknown email against the median latency of a
// login with a known email and a wrong password, on the reference server (PostgreSQL, bcrypt at
// BENCH_BCRYPT_COST, default 12). Both answer 401 invalid_credentials; if the unknown email skipped the
// bcrypt compare it would answer in a fraction of the time and tell an attacker which emails exist. One
// request at a time, the two kinds alternating (so drift hits both alike), each from its own client address.
// Then the same for "forgot password" (API 1.1: `202 {}` in the same time whether or not the address has an
// account): the median latency for an unknown address against a known one. The known one is a fresh
// account each time, so its mailbox budget (5 emails an hour) never makes it skip the account's work.
// Last, the side channel after the answer (issue 28): the latency of the NEXT request (a `GET /tenants/me`
// sent the moment the `202` arrived), after a "forgot password" for an unknown address against one for a
// known address. Work a known address causes right after its answer (its token, email, audit event and a
// delivery pass) would sit in that next request's latency; since 1.2 the request only holds the address and
// the delivery worker's timer does the rest, so the two should not differ.
// And the side channel of the worker's pass itself (issue 28 review): on its timer pass an unknown address
// costs a mailbox check and a lookup, a known one a transaction (token, outbox row, audit row) and an SMTP
// attempt. After each "forgot password" an unauthenticated `GET /livez` is sent every 5 ms for one whole
// delivery interval (the server's default, 5 s, plus a second for the pass), and the latencies after a
// known address are compared with those after an unknown one: the p99 of every poll, and the median over
// the windows of each window's slowest poll (a pass delays one or two polls of about a thousand, which a
// p99 cannot see), and in how many pairs the window after the known address was the slower one. On
// embedded PGlite (`DATABASE_URL` unset, on disk in a directory of its own), where the database runs on
// the server's event loop: the worst case for this channel.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  addRow,
  BCRYPT_COST,
  clientAddress,
  createThrowawayDatabase,
  DURATION,
  fmt,
  http,
  main,
  median,
  postgresProblem,
  quantile,
  registerUser,
  skipRow,
  sleep,
  startReferenceServer,
} from './lib/harness.mjs';

const PAIRS = Math.max(10, Math.round(DURATION * 4));
const WARMUP = 2;
/** "Forgot password" answers in about 2 ms, where noise is a larger share: twice the pairs. */
const FORGOT_PAIRS = 2 * PAIRS;
/** Windows of the pass phase, each 6 s long: fewer than the others. */
const PASS_PAIRS = Math.max(6, Math.round(DURATION * 2));
/** One delivery interval of the reference server (startMailDelivery's default, 5 s) and a second for its pass. */
const PASS_WINDOW_MS = 6_000;
const POLL_EVERY_MS = 5;

/**
 * The pass phase (see the top): `/livez` latencies after a "forgot password" for an unknown address and
 * for a known one, on a server with embedded PGlite. Returns the samples per kind and window.
 */
async function passPhase() {
  // Embedded PGlite on disk (DATABASE_URL unset: `memory:` is refused in production).
  const dataDir = mkdtempSync(join(tmpdir(), 'tenant-auth-bench-pglite-'));
  const server = await startReferenceServer({ databaseUrl: undefined, env: { DATA_DIR: dataDir } });
  try {
    const accounts = [];
    for (let i = 0; i < PASS_PAIRS + 1; i++) accounts.push(await registerUser(server.url, `pass${i}`));
    const forgotUrl = `${server.url}/api/v1/auth/password/forgot`;
    const livez = `${server.url}/livez`;
    const windows = { unknown: [], known: [] };
    let n = 1_000_000;
    for (let i = 0; i < PASS_PAIRS + 1; i++) {
      const order = i % 2 === 0 ? ['unknown', 'known'] : ['known', 'unknown'];
      for (const kind of order) {
        const email =
          kind === 'unknown'
            ? `nobody-${randomBytes(6).toString('hex')}@bench.example.com`
            : accounts[i].email;
        const res = await http(forgotUrl, {
          method: 'POST',
          body: { email },
          headers: { 'x-forwarded-for': clientAddress(n++) },
        });
        if (res.status !== 202) throw new Error(`forgot: expected 202, got ${res.status}`);
        const samples = [];
        const end = performance.now() + PASS_WINDOW_MS;
        while (performance.now() < end) {
          const probe = await http(livez);
          if (probe.status !== 200) throw new Error(`livez: expected 200, got ${probe.status}`);
          samples.push(probe.ms);
          await sleep(POLL_EVERY_MS);
        }
        // The first pair warms up.
        if (i > 0) windows[kind].push(samples);
      }
    }
    return windows;
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main(async () => {
  const problem = await postgresProblem();
  if (problem) {
    skipRow('enumeration.timing', 'enumeration timing', problem, '0.9 to 1.1');
    return;
  }
  const db = await createThrowawayDatabase('enum');
  const server = await startReferenceServer({ databaseUrl: db.url });
  const user = await registerUser(server.url, 'enum');
  const url = `${server.url}/api/v1/auth/login`;
  let n = 0;
  const attempt = async (email) => {
    const res = await http(url, {
      method: 'POST',
      body: { email, password: `Wrong-${randomBytes(6).toString('hex')}-1` },
      headers: { 'x-forwarded-for': clientAddress(n++) },
    });
    if (res.status !== 401)
      throw new Error(`login: expected 401, got ${res.status} ${JSON.stringify(res.body)}`);
    return res.ms;
  };
  const unknown = [];
  const known = [];
  for (let i = 0; i < PAIRS + WARMUP; i++) {
    // Alternate which goes first, so neither kind always follows the other.
    const order = i % 2 === 0 ? ['unknown', 'known'] : ['known', 'unknown'];
    for (const kind of order) {
      const ms =
        kind === 'unknown'
          ? await attempt(`nobody-${randomBytes(6).toString('hex')}@bench.example.com`)
          : await attempt(user.email);
      if (i >= WARMUP) (kind === 'unknown' ? unknown : known).push(ms);
    }
  }
  // Forgot password: a fresh known account per request (registered before the timed part).
  const forgotUrl = `${server.url}/api/v1/auth/password/forgot`;
  const accounts = [];
  for (let i = 0; i < FORGOT_PAIRS + WARMUP; i++) accounts.push(await registerUser(server.url, `forgot${i}`));
  const forgot = async (email) => {
    const res = await http(forgotUrl, {
      method: 'POST',
      body: { email },
      headers: { 'x-forwarded-for': clientAddress(n++) },
    });
    if (res.status !== 202)
      throw new Error(`forgot: expected 202, got ${res.status} ${JSON.stringify(res.body)}`);
    return res.ms;
  };
  const forgotUnknown = [];
  const forgotKnown = [];
  for (let i = 0; i < FORGOT_PAIRS + WARMUP; i++) {
    const order = i % 2 === 0 ? ['unknown', 'known'] : ['known', 'unknown'];
    for (const kind of order) {
      const ms =
        kind === 'unknown'
          ? await forgot(`nobody-${randomBytes(6).toString('hex')}@bench.example.com`)
          : await forgot(accounts[i].email);
      if (i >= WARMUP) (kind === 'unknown' ? forgotUnknown : forgotKnown).push(ms);
      // Let the background work of this request finish (a known address's token, email and audit record
      // are written after the answer), so it does not sit in the next request's timing. Paused only
      // between pairs, every other pair timed an unknown address right behind a known one's work.
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  // The request after the answer: fresh known accounts again (registered before the timed part).
  const probeAccounts = [];
  for (let i = 0; i < FORGOT_PAIRS + WARMUP; i++)
    probeAccounts.push(await registerUser(server.url, `next${i}`));
  const probeUrl = `${server.url}/api/v1/tenants/me`;
  const probe = async () => {
    const res = await http(probeUrl, {
      headers: { authorization: `Bearer ${user.accessToken}`, 'x-forwarded-for': clientAddress(n++) },
    });
    if (res.status !== 200)
      throw new Error(`probe: expected 200, got ${res.status} ${JSON.stringify(res.body)}`);
    return res.ms;
  };
  const nextUnknown = [];
  const nextKnown = [];
  for (let i = 0; i < FORGOT_PAIRS + WARMUP; i++) {
    const order = i % 2 === 0 ? ['unknown', 'known'] : ['known', 'unknown'];
    for (const kind of order) {
      await forgot(
        kind === 'unknown'
          ? `nobody-${randomBytes(6).toString('hex')}@bench.example.com`
          : probeAccounts[i].email,
      );
      // At once: whatever the forgot request left running is running now.
      const ms = await probe();
      if (i >= WARMUP) (kind === 'unknown' ? nextUnknown : nextKnown).push(ms);
      // Time for anything it left behind to end before the next pair (so it cannot hit the other kind).
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  await server.stop();
  await db.drop();
  const windows = await passPhase();
  const stats = (kind) => {
    const all = windows[kind].flat();
    const maxima = windows[kind].map((w) => Math.max(...w));
    return {
      p99: quantile(all, 0.99),
      max: Math.max(...all),
      windowMax: median(maxima),
      polls: all.length,
      maxima,
    };
  };
  const pu = stats('unknown');
  const pk = stats('known');
  // Paired: each pair's two windows are adjacent in time, so a burst of other load tends to hit both; with
  // no difference, the window after the known address is the slower one in about half the pairs.
  const knownSlower = pk.maxima.filter((k, i) => k > pu.maxima[i]).length;
  addRow({
    id: 'enumeration.pass',
    benchmark: `enumeration side channel: the delivery pass, median of each window's slowest GET /livez (every 5 ms for 6 s after a "forgot password"), unknown address, PGlite, ${PASS_PAIRS} windows each`,
    measured: `after an unknown address ${fmt.ms(pu.windowMax)} (p99 ${fmt.ms(pu.p99)}, max ${fmt.ms(pu.max)})`,
    baseline: `after a known address ${fmt.ms(pk.windowMax)} (p99 ${fmt.ms(pk.p99)}, max ${fmt.ms(pk.max)}; the slower window in ${knownSlower} of ${PASS_PAIRS} pairs)`,
    ratio: pu.windowMax / pk.windowMax,
    target: '0.9 to 1.1',
    check: (x) => x >= 0.9 && x <= 1.1,
    details: {
      p99Ratio: pu.p99 / pk.p99,
      knownSlowerPairs: knownSlower,
      maxRatio: pu.max / pk.max,
      unknown: pu,
      known: pk,
    },
  });
  const nu = median(nextUnknown);
  const nk = median(nextKnown);
  addRow({
    id: 'enumeration.next',
    benchmark: `enumeration side channel: median latency of the request right after a "forgot password", unknown address, ${FORGOT_PAIRS} each`,
    measured: `after an unknown address ${fmt.ms(nu)}`,
    baseline: `after a known address ${fmt.ms(nk)}`,
    ratio: nu / nk,
    target: '0.9 to 1.1',
    check: (x) => x >= 0.9 && x <= 1.1,
    details: {
      unknown: { median: nu, p90: quantile(nextUnknown, 0.9), samples: nextUnknown },
      known: { median: nk, p90: quantile(nextKnown, 0.9), samples: nextKnown },
    },
  });
  const fu = median(forgotUnknown);
  const fk = median(forgotKnown);
  addRow({
    id: 'enumeration.forgot',
    benchmark: `enumeration timing: median "forgot password" latency, unknown address, ${FORGOT_PAIRS} each`,
    measured: `unknown address ${fmt.ms(fu)}`,
    baseline: `known address ${fmt.ms(fk)}`,
    ratio: fu / fk,
    target: '0.9 to 1.1',
    check: (x) => x >= 0.9 && x <= 1.1,
    details: {
      unknown: { median: fu, p90: quantile(forgotUnknown, 0.9), samples: forgotUnknown },
      known: { median: fk, p90: quantile(forgotKnown, 0.9), samples: forgotKnown },
    },
  });
  const mu = median(unknown);
  const mk = median(known);
  addRow({
    id: 'enumeration.timing',
    benchmark: `enumeration timing: median login latency, unknown email, bcrypt cost ${BCRYPT_COST}, ${PAIRS} each`,
    measured: `unknown email ${fmt.ms(mu)}`,
    baseline: `known email, wrong password ${fmt.ms(mk)}`,
    ratio: mu / mk,
    target: '0.9 to 1.1',
    check: (x) => x >= 0.9 && x <= 1.1,
    details: {
      unknown: { median: mu, p90: quantile(unknown, 0.9), samples: unknown },
      known: { median: mk, p90: quantile(known, 0.9), samples: known },
    },
  });
});
