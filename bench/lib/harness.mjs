// Shared helpers of the benchmark suite: where things are, the services (PostgreSQL, Redis), throwaway
// databases, child servers (the reference server and small baseline apps), load generation (autocannon for
// closed-loop throughput, an open-loop generator for latency at a steady rate), process CPU and RSS, and
// how a benchmark reports its rows to bench/run.mjs.
//
// Every figure a benchmark reports is a ratio against a baseline it measures itself, in the same run:
// this machine is shared and noisy, so absolute numbers from different runs are not comparable.
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createRequire } from 'node:module';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SERVER_DIR = join(ROOT, 'examples', 'server');

/** Resolves a package the way the reference server does (its koa, ioredis, tenant-auth-* → dist). */
export const requireFromServer = createRequire(join(SERVER_DIR, 'package.json'));
/** The suite's own devDependencies (autocannon, pg). */
export const requireFromRoot = createRequire(join(ROOT, 'package.json'));

/** Imports a package as the reference server resolves it (ESM entry). */
export async function importFromServer(name) {
  const path = requireFromServer.resolve(name);
  // tenant-auth-* publish ESM and CJS; take the ESM build like the server does.
  const esm = path.endsWith('.cjs') ? path.replace(/\.cjs$/, '.js') : path;
  return import(existsSync(esm) ? esm : path);
}

export const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Seconds of load per measured phase (each benchmark scales its phases from it). */
export const DURATION = Number(process.env.BENCH_DURATION ?? 5);
/**
 * Turns each side of a fast benchmark takes (read, auth overhead, refresh, rate-limit store), the phase's
 * seconds split among them: the finer the turns, the more alike the share of the shared machine's bursts
 * each side gets (the authenticated read's ratio spread 0.35 to 0.59 over four runs with two turns, 0.49
 * to 0.54 with six). Slow operations (logins, registrations) keep two: a turn must outlast their latency.
 */
export const FAST_ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
/** bcrypt cost of the password benchmarks (the production default of tenant-auth). */
export const BCRYPT_COST = Number(process.env.BENCH_BCRYPT_COST ?? 12);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export { sleep };

// ---------------------------------------------------------------------------------------------- results

/**
 * One row of the results table. `verdict` is computed from the ratio and the target unless given:
 * PASS / FAIL for a target, REPORT for a figure without one, SKIP when a service is missing.
 *
 * @typedef {object} Row
 * @property {string} id           stable key (in latest.json)
 * @property {string} benchmark    what is measured, in words
 * @property {string} measured     the measured value with its unit
 * @property {string} baseline     the baseline value with its unit (measured in the same run)
 * @property {number|null} ratio   measured / baseline (or as the benchmark defines it)
 * @property {string} target       the target, in words
 * @property {'PASS'|'FAIL'|'REPORT'|'SKIP'} verdict
 * @property {object} [details]    raw figures for latest.json
 */

const rows = [];

/** Adds a row; `check(ratio)` decides PASS/FAIL, no `check` means REPORT. */
export function addRow({ check, ...row }) {
  const verdict = row.verdict ?? (check === undefined ? 'REPORT' : check(row.ratio) ? 'PASS' : 'FAIL');
  const full = { ...row, verdict };
  rows.push(full);
  const ratio = full.ratio === null || full.ratio === undefined ? '-' : full.ratio.toFixed(3);
  console.log(
    `  ${full.verdict.padEnd(6)} ${full.benchmark}: ${full.measured} vs ${full.baseline} = ${ratio}`,
  );
  return full;
}

/** A row for a benchmark that could not run here (a missing service): skipped, not failed. */
export function skipRow(id, benchmark, reason, target = '') {
  return addRow({
    id,
    benchmark,
    measured: '-',
    baseline: '-',
    ratio: null,
    target,
    verdict: 'SKIP',
    details: { reason },
  });
}

const extras = {};
/** Adds a named section to the results beside the rows (latest.json), e.g. the sizing counts. */
export function setExtra(key, value) {
  extras[key] = value;
}

/** Hands the rows to bench/run.mjs (BENCH_RESULT_FILE), or prints them when run alone. */
export function finish(extra = {}) {
  const file = process.env.BENCH_RESULT_FILE;
  const payload = { rows, ...extras, ...extra };
  if (file) writeFileSync(file, JSON.stringify(payload));
  else console.log(JSON.stringify(payload, null, 2));
}

/** Runs a benchmark's main function; cleans up whatever it registered, even on failure. */
const cleanups = [];
export function onCleanup(fn) {
  cleanups.push(fn);
}
export async function main(fn) {
  let failed;
  try {
    await fn();
  } catch (err) {
    failed = err;
  }
  for (const fn of cleanups.reverse()) {
    try {
      await fn();
    } catch (err) {
      console.error(`  cleanup failed: ${err?.message ?? err}`);
    }
  }
  finish();
  if (failed) {
    console.error(failed);
    process.exitCode = 1;
  }
  // A child or socket left open must not keep the benchmark alive.
  setTimeout(() => process.exit(), 200).unref();
}

// --------------------------------------------------------------------------------------------- services

function tcpAnswers(url, defaultPort, timeoutMs = 1000) {
  return new Promise((resolvePromise) => {
    let host;
    let port;
    try {
      const u = new URL(url);
      host = u.hostname || '127.0.0.1';
      port = Number(u.port || defaultPort);
    } catch {
      resolvePromise(false);
      return;
    }
    const socket = new Socket();
    const done = (ok) => {
      socket.destroy();
      resolvePromise(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(port, host, () => done(true));
  });
}

/** Whether PostgreSQL at BENCH_DATABASE_URL answers a query; the reason when not. */
export async function postgresProblem() {
  if (!(await tcpAnswers(DATABASE_URL, 5432)))
    return `PostgreSQL is not reachable at ${redact(DATABASE_URL)}`;
  const { Client } = requireFromRoot('pg');
  const client = new Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return null;
  } catch (err) {
    return `PostgreSQL refused: ${err.message}`;
  } finally {
    await client.end().catch(() => {});
  }
}

/** Whether Redis at BENCH_REDIS_URL answers PING; the reason when not. */
export async function redisProblem() {
  if (!(await tcpAnswers(REDIS_URL, 6379))) return `Redis is not reachable at ${redact(REDIS_URL)}`;
  return null;
}

function redact(url) {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(invalid URL)';
  }
}

/**
 * A throwaway database on the BENCH_DATABASE_URL server, dropped by `drop()` (and at exit through
 * `onCleanup`). Never touches the database named in the URL itself.
 */
export async function createThrowawayDatabase(label) {
  const { Client } = requireFromRoot('pg');
  const name = `tenant_auth_bench_${label}_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(DATABASE_URL);
  url.pathname = `/${name}`;
  let dropped = false;
  const drop = async () => {
    if (dropped) return;
    dropped = true;
    const c = new Client({ connectionString: DATABASE_URL });
    await c.connect();
    try {
      await c.query(`drop database if exists ${name} with (force)`);
    } finally {
      await c.end();
    }
  };
  onCleanup(drop);
  return { name, url: url.toString(), drop };
}

// ------------------------------------------------------------------------------------------- processes

/** A free TCP port on loopback. */
export async function freePort() {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  server.close();
  await once(server, 'close');
  return port;
}

const CLK_TCK = 100;

/**
 * CPU seconds (user + system) a process has used so far; null when it is gone. With `reaped`, plus the CPU
 * of its children that have exited and been waited for.
 */
export function cpuSeconds(pid, { reaped = false } = {}) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const own = Number(fields[11]) + Number(fields[12]);
    return (reaped ? own + Number(fields[13]) + Number(fields[14]) : own) / CLK_TCK;
  } catch {
    return null;
  }
}

/** Resident set size of a process, in bytes. */
export function rssBytes(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
    return kb === undefined ? null : Number(kb) * 1024;
  } catch {
    return null;
  }
}

/**
 * CPU seconds of every PostgreSQL process on this machine (when it runs here): the database's share. It
 * counts the backends that have exited too (the postmaster's reaped children): a backend exits with its
 * connection, so a pool closed between two readings would otherwise take its CPU out of the difference.
 */
export function postgresCpuSeconds() {
  return cpuOfProcesses('postgres');
}

/** CPU seconds of the Redis server on this machine (when it runs here), its exited children included. */
export function redisCpuSeconds() {
  return cpuOfProcesses('redis-server');
}

/** CPU seconds of the processes whose name starts with `name`, their exited children included. */
function cpuOfProcesses(name) {
  let total = 0;
  let found = false;
  for (const pid of readdirSafe('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (!readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith(name)) continue;
      const s = cpuSeconds(pid, { reaped: true });
      if (s !== null) {
        total += s;
        found = true;
      }
    } catch {
      // gone
    }
  }
  return found ? total : null;
}

function readdirSafe(dir) {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Strong random secrets (hex: no placeholder word can appear in them), and the encryption key. */
export function newSecrets() {
  return {
    JWT_SECRET: randomBytes(32).toString('hex'),
    JWT_REFRESH_SECRET: randomBytes(32).toString('hex'),
    ENCRYPTION_KEY: randomBytes(32).toString('base64url'),
  };
}

const children = new Set();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/** Waits until `GET url` answers (any status) or throws after `timeoutMs`. */
export async function waitForHttp(url, timeoutMs = 60_000, child) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child && child.exitCode !== null) throw new Error(`the server exited with code ${child.exitCode}`);
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs} ms`);
      await sleep(100);
    }
  }
}

/**
 * The environment the benchmarks start the reference server with: on loopback at `port`, strong random
 * secrets (`secrets`, or new ones), NODE_ENV=production, the rate limits lifted, `TRUST_PROXY=1`, and its
 * workspace packages from their dist/ builds (TSX_TSCONFIG_PATH). Without `databaseUrl`, no DATABASE_URL:
 * the server's embedded PGlite in its DATA_DIR. `env` is added last.
 */
export function referenceServerEnv({
  port,
  databaseUrl,
  logLevel = 'info',
  bcryptCost = BCRYPT_COST,
  secrets = newSecrets(),
  env = {},
}) {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }),
    ...secrets,
    CORS_ORIGINS: 'https://app.example.com',
    APP_URL: 'https://app.example.com',
    // Nobody answers on the discard port: registration's verification emails wait in the outbox.
    SMTP_URL: 'smtp://127.0.0.1:9',
    MAIL_FROM: 'Bench <bench@example.com>',
    TRUST_PROXY: '1',
    BCRYPT_COST: String(bcryptCost),
    RATE_LIMIT_AUTH_MAX: '1000000000',
    RATE_LIMIT_MAX: '1000000000',
    RATE_LIMIT_NETWORK_MAX: '1000000000',
    LOGIN_FAILURES_PER_ACCOUNT: '1000000000',
    MFA_FAILURES_PER_ACCOUNT: '1000000000',
    LOG_LEVEL: logLevel,
    // The server's own default (10) unless BENCH_THREAD_POOL_NICE says otherwise (0: the pool at the main
    // thread's priority, to compare).
    ...(process.env.BENCH_THREAD_POOL_NICE ? { THREAD_POOL_NICE: process.env.BENCH_THREAD_POOL_NICE } : {}),
    // The workspace packages from their built dist/ (what `pnpm build` ships), not from their sources as
    // examples/server/tsconfig.json maps them for `pnpm start`.
    TSX_TSCONFIG_PATH: join(ROOT, 'bench', 'servers', 'tsconfig.dist.json'),
    ...env,
  };
}

/**
 * Starts the reference server (`node --import tsx examples/server/src/main.ts`, its workspace packages
 * resolved to their dist/ builds) on a free loopback port,
 * on the given PostgreSQL database, with strong random secrets and the rate limits lifted (the benchmark
 * is about the server, not about being refused). Its stdout (the JSON log) goes to a temporary file, as
 * a container runtime would collect it; `logLevel` defaults to the server's own default, `info`.
 *
 * `TRUST_PROXY=1` lets a benchmark pose as many client networks (`X-Forwarded-For`, see `clientAddress`):
 * the per-network budget of the credential routes (100 a minute per /24) is not an environment variable.
 */
export async function startReferenceServer(options) {
  const {
    databaseUrl,
    env = {},
    nodeArgs = [],
    logLevel = 'info',
    bcryptCost = BCRYPT_COST,
    script = 'src/main.ts',
    ipc = false,
  } = options;
  const port = await freePort();
  const logFile = join(tmpdir(), `tenant-auth-bench-${randomUUID()}.log`);
  const out = openSync(logFile, 'w');
  const childEnv = referenceServerEnv({ port, databaseUrl, logLevel, bcryptCost, env });
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', script], {
    cwd: SERVER_DIR,
    env: childEnv,
    stdio: ['ignore', out, 'pipe', ...(ipc ? ['ipc'] : [])],
  });
  closeSync(out);
  children.add(child);
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
    if (stderr.length > 20_000) stderr = stderr.slice(-20_000);
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(`${url}/api/v1/openapi.json`, 60_000, child);
  } catch (err) {
    child.kill('SIGKILL');
    const log = existsSync(logFile) ? readFileSync(logFile, 'utf8').slice(-3000) : '';
    rmSync(logFile, { force: true });
    throw new Error(`${err.message}\n${stderr}\n${log}`);
  }
  let stopped;
  const server = {
    url,
    port,
    pid: child.pid,
    child,
    /** performance.now() of this process when the server process was spawned. */
    spawnedAt,
    env: childEnv,
    logFile,
    cpuSeconds: () => cpuSeconds(child.pid),
    rssBytes: () => rssBytes(child.pid),
    log: () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''),
    stderr: () => stderr,
    /** SIGTERM (graceful shutdown), SIGKILL after 15 s. */
    stop() {
      stopped ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) {
          const exited = once(child, 'exit');
          child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
          await exited;
          clearTimeout(timer);
        }
        children.delete(child);
        rmSync(logFile, { force: true });
      })();
      return stopped;
    },
  };
  onCleanup(() => server.stop());
  return server;
}

/**
 * Starts a small Node script of bench/servers/ that prints `{"port": N}` on its first stdout line once it
 * listens (a baseline app). Returns its url, pid and stop().
 */
export async function startScript(file, env = {}, nodeArgs = []) {
  const child = spawn(process.execPath, [...nodeArgs, file], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.add(child);
  let buffer = '';
  const first = await new Promise((resolvePromise, reject) => {
    const onData = (d) => {
      buffer += d;
      const nl = buffer.indexOf('\n');
      if (nl !== -1) {
        child.stdout.off('data', onData);
        resolvePromise(JSON.parse(buffer.slice(0, nl)));
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${file} exited with code ${code}`)));
  });
  child.stdout.resume();
  let stopped;
  const handle = {
    ...first,
    url: `http://127.0.0.1:${first.port}`,
    pid: child.pid,
    child,
    cpuSeconds: () => cpuSeconds(child.pid),
    stop() {
      stopped ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) {
          const exited = once(child, 'exit');
          child.kill('SIGTERM');
          await exited;
        }
        children.delete(child);
      })();
      return stopped;
    },
  };
  onCleanup(() => handle.stop());
  return handle;
}

/** Runs a script of bench/servers/ to completion and returns the JSON of its last stdout line. */
export async function runScript(file, env = {}) {
  const child = spawn(process.execPath, [file], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.add(child);
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  const [code] = await once(child, 'exit');
  children.delete(child);
  if (code !== 0) throw new Error(`${file} exited with code ${code}`);
  const lines = out.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]);
}

/** bcrypt operations per second in a fresh process (the password benchmarks' baseline). */
export function bcryptRate({ mode, cost = BCRYPT_COST, concurrency, seconds = DURATION }) {
  return runScript(join(ROOT, 'bench', 'servers', 'bcrypt-rate.mjs'), {
    BENCH_BCRYPT_MODE: mode,
    BENCH_BCRYPT_COST: String(cost),
    BENCH_BCRYPT_CONCURRENCY: String(concurrency),
    BENCH_BCRYPT_SECONDS: String(seconds),
  });
}

// ------------------------------------------------------------------------------------------ HTTP client

const agent = new Agent({ keepAlive: true, maxSockets: 256 });

/** An answer's body as the clients below return it: parsed JSON, the text when it is not JSON, or undefined. */
function answerBody(text) {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** One HTTP request over a keep-alive agent: `{ status, body (parsed JSON or text), ms }`. */
export function http(url, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolvePromise, reject) => {
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const started = performance.now();
    const req = request(
      url,
      {
        method,
        agent,
        headers: {
          ...(payload === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
          ...headers,
        },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const body = answerBody(Buffer.concat(chunks).toString('utf8'));
          resolvePromise({ status: res.statusCode, body, ms: performance.now() - started });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/**
 * One keep-alive HTTP/1.1 connection that sends one request at a time, each written as one string and its
 * answer parsed by hand (status line, `Content-Length`, body), as autocannon's client does. For closed
 * loops against answers that take well under a millisecond of server CPU: `http()` above costs 144 to
 * 261 µs of CPU a request on this machine (`node:http`'s client, its agent and its parser), this one 68 to
 * 107 µs (three runs), and on two shared cores the difference is CPU the measured server does not get.
 * Answers must carry `Content-Length` (the reference server's do); anything else fails loudly. After an
 * error, or an answer with `Connection: close`, the next `send()` opens a new connection; nothing from the
 * old one reaches it. `send()` resolves to the same `{ status, body, ms }` as `http()`; `close()` ends the
 * connection.
 */
export function rawConnection(origin) {
  const { hostname, port, host } = new URL(origin);
  let socket = null;
  let pending = null;
  let chunks = [];
  let size = 0;
  const settle = (outcome) => {
    const p = pending;
    pending = null;
    if (p === null) return;
    if (outcome instanceof Error) p.reject(outcome);
    else p.resolve({ ...outcome, ms: performance.now() - p.started });
  };
  /** Drops the connection `s` (when it is still the current one) and fails the request in flight. */
  const drop = (s, err) => {
    if (socket !== s) return;
    socket = null;
    chunks = [];
    size = 0;
    s.destroy();
    if (err !== null) settle(err);
  };
  const onData = (s, chunk) => {
    if (socket !== s) return;
    if (pending === null) {
      drop(s, null);
      return;
    }
    chunks.push(chunk);
    size += chunk.length;
    const data = chunks.length === 1 ? chunk : Buffer.concat(chunks, size);
    const end = data.indexOf('\r\n\r\n');
    if (end < 0) {
      chunks = [data];
      return;
    }
    const head = data.toString('latin1', 0, end);
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    if (length === null) {
      drop(s, new Error(`rawConnection: an answer without Content-Length: ${head.split('\r\n')[0]}`));
      return;
    }
    const bodyEnd = end + 4 + Number(length[1]);
    if (size < bodyEnd) {
      chunks = [data];
      return;
    }
    if (size > bodyEnd) {
      drop(s, new Error('rawConnection: bytes after the answer, with one request in flight'));
      return;
    }
    chunks = [];
    size = 0;
    const body = answerBody(data.toString('utf8', end + 4, bodyEnd));
    // The server will close this one: the next request opens another.
    if (/\r\nconnection: *close/i.test(head)) drop(s, null);
    settle({ status: Number(head.slice(9, 12)), body });
  };
  const open = () => {
    const s = new Socket();
    socket = s;
    chunks = [];
    size = 0;
    s.setNoDelay(true);
    s.on('data', (chunk) => onData(s, chunk));
    s.on('error', (err) => drop(s, err));
    s.on('close', () => drop(s, new Error('rawConnection: the server closed the connection')));
    s.connect(Number(port), hostname);
  };
  return {
    send({ method = 'GET', path, headers = {}, body }) {
      if (pending) throw new Error('rawConnection: one request at a time');
      if (socket === null) open();
      const payload = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
      const all = {
        host,
        ...(body === undefined
          ? {}
          : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
        ...headers,
      };
      let head = `${method} ${path} HTTP/1.1\r\n`;
      for (const [name, value] of Object.entries(all)) head += `${name}: ${value}\r\n`;
      return new Promise((resolvePromise, reject) => {
        pending = { resolve: resolvePromise, reject, started: performance.now() };
        socket.write(`${head}\r\n${payload}`);
      });
    },
    close() {
      const s = socket;
      if (s === null) return;
      socket = null;
      s.on('error', () => {});
      s.end();
    },
  };
}

/** Throws unless the response has the expected status. */
export function expectStatus(res, status, what) {
  if (res.status !== status) {
    throw new Error(
      `${what}: expected ${status}, got ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`,
    );
  }
  return res.body;
}

/**
 * The client address of request number `i` as the server sees it behind its one trusted proxy: one of
 * `networks` different /24s in 127.0.0.0/8 (loopback: no traffic leaves this machine; only the header
 * names them), so the fixed per-network budget of the credential routes does not cap a benchmark.
 */
export function clientAddress(i, networks = 4096) {
  const n = i % networks;
  return `127.${1 + (n >> 8)}.${n & 255}.${1 + ((i / networks) & 127)}`;
}

let registered = 0;
/** A fresh account through `POST /api/v1/auth/register`: `{ email, password, accessToken, refreshToken, ... }`. */
export async function registerUser(baseUrl, label = 'user') {
  const n = ++registered;
  const tag = `${label}-${n}-${randomBytes(3).toString('hex')}`;
  const email = `${tag}@bench.example.com`;
  const password = `Lattice-${randomBytes(9).toString('hex')}-97`;
  const res = await http(`${baseUrl}/api/v1/auth/register`, {
    method: 'POST',
    headers: { 'x-forwarded-for': clientAddress(1000 + n) },
    body: { email, password, tenantName: `Bench ${tag}` },
  });
  const body = expectStatus(res, 201, 'register');
  return { email, password, ...body };
}

// ---------------------------------------------------------------------------------------- load: closed

/**
 * Closed-loop load with autocannon (each connection sends its next request when the previous answered):
 * the throughput figure. Runs `warmupSeconds` first, unmeasured. Returns requests per second counted on
 * 2xx answers only, latency percentiles (ms), and the error counts.
 */
export async function cannon(options) {
  const autocannon = requireFromRoot('autocannon');
  const { warmupSeconds = 1, duration = DURATION, ...rest } = options;
  const run = (opts) =>
    new Promise((resolvePromise, reject) => {
      const instance = autocannon(opts, (err, result) => (err ? reject(err) : resolvePromise(result)));
      instance.on('error', () => {});
    });
  const base = { connections: 50, pipelining: 1, timeout: 10, ...rest };
  if (warmupSeconds > 0) await run({ ...base, duration: warmupSeconds });
  const r = await run({ ...base, duration });
  const seconds = r.duration;
  const ok = r['2xx'];
  return {
    rps: ok / seconds,
    ok,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    seconds,
    latency: { p50: r.latency.p50, p99: r.latency.p99, max: r.latency.max, mean: r.latency.average },
    statusCodes: r.statusCodeStats,
  };
}

/**
 * Runs each phase `rounds` times, taking turns, every other round in reverse order (A B, B A, A B, ...): a
 * drift of the shared machine that is steady over the run (another tenant's load fading, caches warming)
 * then falls on every phase alike instead of favouring the one that runs last. A warm-up confined to the
 * first seconds is not cancelled: that is what an unmeasured warm-up is for. `phases` maps a name to
 * `async (round) => ...`.
 */
export async function inRounds(phases, rounds) {
  const names = Object.keys(phases);
  for (let round = 0; round < rounds; round++) {
    for (const name of round % 2 === 0 ? names : [...names].reverse()) await phases[name](round);
  }
}

/**
 * Closed-loop phases interleaved over `rounds` with {@link inRounds} (A B C, C B A, …), so a burst of
 * noise or a drift of the shared machine hits every phase alike. Each phase is `{ options, pid? }`:
 * autocannon options, and the process whose CPU to count. Each phase runs `duration / rounds` seconds per
 * round (warm-up only before its first round). Returns per phase: rps over all its rounds (2xx only), the
 * rounds' rps, mean p50/p99, errors, and the CPU seconds of `pid` spent in its rounds.
 */
export async function interleaved(phases, { rounds = FAST_ROUNDS, duration = DURATION } = {}) {
  const out = {};
  for (const name of Object.keys(phases)) {
    out[name] = {
      ok: 0,
      seconds: 0,
      non2xx: 0,
      errors: 0,
      rounds: [],
      cpu: 0,
      p50: [],
      p99: [],
      statusCodes: {},
    };
  }
  const run = (name) => async (round) => {
    const phase = phases[name];
    // The warm-up before the first turn, unmeasured: its answers are not counted, nor is its CPU.
    if (round === 0) await cannon({ ...phase.options, duration: 1, warmupSeconds: 0 });
    const cpu0 = phase.pid ? cpuSeconds(phase.pid) : null;
    const r = await cannon({ ...phase.options, duration: duration / rounds, warmupSeconds: 0 });
    const cpu1 = phase.pid ? cpuSeconds(phase.pid) : null;
    const o = out[name];
    o.ok += r.ok;
    o.seconds += r.seconds;
    o.non2xx += r.non2xx;
    o.errors += r.errors;
    o.rounds.push(Math.round(r.rps));
    o.p50.push(r.latency.p50);
    o.p99.push(r.latency.p99);
    if (cpu0 !== null && cpu1 !== null) o.cpu += cpu1 - cpu0;
    for (const [code, { count }] of Object.entries(r.statusCodes ?? {}))
      o.statusCodes[code] = (o.statusCodes[code] ?? 0) + count;
  };
  await inRounds(Object.fromEntries(Object.keys(phases).map((name) => [name, run(name)])), rounds);
  for (const o of Object.values(out)) {
    o.rps = o.ok / o.seconds;
    o.latency = { p50: mean(o.p50), p99: mean(o.p99) };
    o.perCpuSecond = o.cpu > 0 ? o.ok / o.cpu : null;
    delete o.p50;
    delete o.p99;
  }
  return out;
}

/** Throws when a phase had errors or non-2xx answers (a benchmark of failures measures nothing). */
export function assertClean(name, phase) {
  if (phase.non2xx > 0 || phase.errors > 0 || phase.ok === 0) {
    throw new Error(
      `${name}: ${phase.ok} 2xx, ${phase.non2xx} non-2xx answers and ${phase.errors} errors (${JSON.stringify(phase.statusCodes)})`,
    );
  }
}

export const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;

/** Runs `fn` and measures the CPU a process used meanwhile: `{ result, cpu (s), wall (s) }`. */
export async function withCpu(pid, fn) {
  const cpu0 = cpuSeconds(pid);
  const t0 = performance.now();
  const result = await fn();
  const wall = (performance.now() - t0) / 1000;
  const cpu1 = cpuSeconds(pid);
  return { result, cpu: cpu0 === null || cpu1 === null ? null : cpu1 - cpu0, wall };
}

// ---------------------------------------------------------------------------------- load: closed, slow

/**
 * Closed-loop load for slow operations (a login is ~0.1-0.5 s of bcrypt): `concurrency` workers, each
 * sending its next request when the previous one answered. Completions are counted in a steady-state
 * window only: it opens after `warmup` completions (every worker has answered at least once, on average)
 * and lasts `seconds`, so the cold start (nothing completes for one full latency) and the requests still
 * in flight at the end bias nothing. Workers stop sending when the window closes and the call returns
 * once every request answered, so the server is idle again. `request(i, worker)` returns
 * `{ url, method, headers, body }`; `onAnswer(res, worker)` sees every answer (e.g. to keep a token).
 * With `pid`, the CPU seconds that process used inside the window are returned too. With `raw`, each
 * worker sends over its own {@link rawConnection} instead of `http()`: for fast answers, where the load
 * generator's own CPU would otherwise weigh on the figure.
 */
export async function closedLoop({
  concurrency,
  seconds = DURATION,
  warmup = concurrency,
  request,
  onAnswer,
  pid,
  isOk,
  raw = false,
}) {
  const ok2xx = isOk ?? ((s) => s >= 200 && s < 300);
  let completions = 0;
  let sent = 0;
  let windowStart = null;
  let windowEnd = Number.POSITIVE_INFINITY;
  let cpuStart = null;
  let cpuEnd = null;
  let counted = 0;
  let countedFailures = 0;
  let lastT = null;
  const statuses = {};
  const latencies = [];
  const deadline = performance.now() + 10 * 60_000;
  const connections = [];
  const urls = new Map();
  const send = (w, url, init) => {
    if (!raw) return http(url, init);
    let parsed = urls.get(url);
    if (parsed === undefined) {
      const { origin, pathname, search } = new URL(url);
      parsed = { origin, path: pathname + search };
      urls.set(url, parsed);
    }
    connections[w] ??= rawConnection(parsed.origin);
    return connections[w].send({ ...init, path: parsed.path });
  };
  const worker = async (w) => {
    for (;;) {
      const now = performance.now();
      if (now >= windowEnd || now >= deadline) return;
      const { url, ...init } = request(sent++, w);
      let res;
      try {
        res = await send(w, url, init);
      } catch (err) {
        res = { status: 0, body: String(err), ms: 0 };
      }
      const t = performance.now();
      onAnswer?.(res, w);
      completions++;
      if (windowStart !== null && t <= windowEnd) {
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        lastT = t;
        if (ok2xx(res.status)) {
          counted++;
          latencies.push(res.ms);
        } else countedFailures++;
      }
      if (windowStart === null && completions >= warmup) {
        windowStart = t;
        windowEnd = t + seconds * 1000;
        cpuStart = pid ? cpuSeconds(pid) : null;
        setTimeout(() => {
          cpuEnd = pid ? cpuSeconds(pid) : null;
        }, seconds * 1000).unref?.();
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, w) => worker(w)));
  for (const connection of connections) connection?.close();
  const cpu = cpuStart !== null && cpuEnd !== null ? cpuEnd - cpuStart : null;
  // Completions over the time from the window's opening completion to the last one inside it: no
  // quantisation at the window's far edge, which matters at a few operations per second.
  const span = lastT === null ? seconds : (lastT - windowStart) / 1000;
  return {
    rps: counted / span,
    ok: counted,
    failures: countedFailures,
    statuses,
    seconds,
    latency: { p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99) },
    cpu,
    perCpuSecond: cpu ? counted / cpu : null,
  };
}

/**
 * Sums rounds of closedLoop / bcryptRate results: `{ ops, seconds, rps, cpu, perCpuSecond, failures }`.
 */
export function sumRounds(results) {
  let ops = 0;
  let seconds = 0;
  let cpu = 0;
  let failures = 0;
  for (const r of results) {
    const n = r.ok ?? r.ops;
    ops += n;
    seconds += r.rps !== undefined ? n / r.rps : r.seconds;
    cpu += r.cpu ?? r.cpuSeconds ?? 0;
    failures += r.failures ?? 0;
  }
  return { ops, seconds, rps: ops / seconds, cpu, perCpuSecond: cpu > 0 ? ops / cpu : Number.NaN, failures };
}

// ------------------------------------------------------------------------------------------ load: open

/**
 * Open-loop load: `rate` requests per second sent on schedule whether or not earlier ones answered, for
 * `seconds`. Latency is taken from the scheduled send time, so a stall shows in full (no coordinated
 * omission). `makeRequest(i)` returns `{ url, method, headers, body }`. Returns the latencies of the
 * answers (ms), how many were sent, answered 2xx, and the statuses. `until()`, when given, ends it early.
 */
export async function openLoop({ rate, seconds, makeRequest, until, isOk = (s) => s >= 200 && s < 300 }) {
  const total = Math.round(rate * seconds);
  const interval = 1000 / rate;
  const latencies = [];
  const statuses = {};
  let ok = 0;
  let failed = 0;
  const pending = [];
  const start = performance.now();
  let sent = 0;
  for (let i = 0; i < total; i++) {
    const due = start + i * interval;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    if (until?.()) break;
    sent++;
    const { url, ...init } = makeRequest(i);
    pending.push(
      http(url, init).then(
        (res) => {
          const ms = performance.now() - due;
          statuses[res.status] = (statuses[res.status] ?? 0) + 1;
          if (isOk(res.status)) {
            ok++;
            latencies.push(ms);
          } else failed++;
        },
        () => {
          failed++;
        },
      ),
    );
  }
  await Promise.all(pending);
  const elapsed = (performance.now() - start) / 1000;
  return { sent, ok, failed, statuses, latencies, elapsed, servedPerSecond: ok / elapsed };
}

// ------------------------------------------------------------------------------------------ statistics

export function quantile(values, q) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

export const median = (values) => quantile(values, 0.5);

export const fmt = {
  rps: (x) => `${Math.round(x).toLocaleString('en-US')}/s`,
  ms: (x) => `${x < 10 ? x.toFixed(2) : x.toFixed(1)} ms`,
  mb: (x) => `${(x / 1024 / 1024).toFixed(1)} MB`,
  n: (x) => Math.round(x).toLocaleString('en-US'),
};
