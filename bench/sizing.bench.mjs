// Sizing counts (not timings): how many SQL statements, writes and transactions each operation of the
// reference server sends to PostgreSQL, and how many Redis commands each rate-limited request sends, for
// operators sizing PostgreSQL and Redis for N instances (BENCHMARKS.md, "Sizing").
//
// SQL: the reference server runs on PostgreSQL through a counting proxy (bench/lib/pg-proxy.mjs) that logs
// every statement executed, simple or prepared, and what it touched; each operation is sent alone on an
// otherwise idle server and its statements are taken once it has answered. The server's own workers poll
// meanwhile (webhook deliveries every second, the mail outbox every few seconds): their passes that found
// nothing are told apart by their shapes, learned while the server idles first, and left out.
//
// Redis, for the operations every version had: tenant-auth composed on the public surface
// (createTenantAuth with a RedisRateLimitStore under a key prefix of its own, createTenantAuthKoa) behind
// a client that counts the commands sent; the keys are deleted afterwards. For those of 1.2 and 1.3
// (bench/lib/sizing-features.mjs: second factor, API keys, SCIM, webhooks), the reference server itself,
// started as the SCIM benchmarks start it, with REDIS_URL through a counting proxy (bench/lib/redis-proxy.mjs).
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import {
  addRow,
  clientAddress,
  createThrowawayDatabase,
  expectStatus,
  http,
  importFromServer,
  main,
  onCleanup,
  postgresProblem,
  REDIS_URL,
  redisProblem,
  requireFromServer,
  setExtra,
  skipRow,
  sleep,
  startReferenceServer,
} from './lib/harness.mjs';
import { startPgProxy } from './lib/pg-proxy.mjs';
import { startRedisProxy } from './lib/redis-proxy.mjs';
import { startScimBench } from './lib/scim.mjs';
import { featureOperations, startReceiver } from './lib/sizing-features.mjs';

// The Redis database of the feature counts' server: its rate-limit keys (the server's own prefix, which a
// test's server on database 0 shares) stay apart from everyone else's while they live.
const REDIS_DB = 9;

// A statement that starts with a write, or a CTE with a data-modifying part (the refresh rotates and
// records its audit event in one `with ... update ... insert`); `for [no key] update` locks, not writes.
const isWrite = (sql) =>
  /^\s*(insert|update|delete)\b/i.test(sql) ||
  (/^\s*with\b/i.test(sql) &&
    /\binsert\s+into\b|\bdelete\s+from\b|(?<!\bfor\s+(no\s+key\s+)?)\bupdate\s+(?!skip\b|nowait\b)/i.test(
      sql,
    ));
const isTx = (sql) => /^\s*(begin|start transaction)/i.test(sql);
const isTxEnd = (sql) => /^\s*(commit|rollback)/i.test(sql);

/** The operations, each one request, in an order where each has what it needs. */
function operations(base) {
  const api = `${base}/api/v1`;
  const state = {};
  const xff = (i) => ({ 'x-forwarded-for': clientAddress(i) });
  const password = `Lattice-${randomBytes(9).toString('hex')}-97`;
  const email = `sizing-${randomBytes(3).toString('hex')}@bench.example.com`;
  return [
    [
      'register',
      async () => {
        const body = expectStatus(
          await http(`${api}/auth/register`, {
            method: 'POST',
            body: { email, password, tenantName: 'Sizing org' },
            headers: xff(1),
          }),
          201,
          'register',
        );
        state.access = body.accessToken;
      },
    ],
    [
      'login',
      async () => {
        const body = expectStatus(
          await http(`${api}/auth/login`, { method: 'POST', body: { email, password }, headers: xff(2) }),
          200,
          'login',
        );
        state.access = body.accessToken;
        state.refresh = body.refreshToken;
      },
    ],
    [
      'login, wrong password',
      async () => {
        expectStatus(
          await http(`${api}/auth/login`, {
            method: 'POST',
            body: { email, password: `${password}x` },
            headers: xff(3),
          }),
          401,
          'login',
        );
      },
    ],
    [
      'login, unknown email',
      async () => {
        expectStatus(
          await http(`${api}/auth/login`, {
            method: 'POST',
            body: { email: `x${email}`, password },
            headers: xff(4),
          }),
          401,
          'login',
        );
      },
    ],
    [
      'refresh',
      async () => {
        const body = expectStatus(
          await http(`${api}/auth/refresh`, {
            method: 'POST',
            body: { refreshToken: state.refresh },
            headers: xff(5),
          }),
          200,
          'refresh',
        );
        state.access = body.accessToken;
        state.refresh = body.refreshToken;
      },
    ],
    [
      'GET /health',
      async () => {
        expectStatus(
          await http(`${api}/health`, { headers: { authorization: `Bearer ${state.access}` } }),
          200,
          'health',
        );
      },
    ],
    [
      'GET /tenants/me',
      async () => {
        expectStatus(
          await http(`${api}/tenants/me`, { headers: { authorization: `Bearer ${state.access}` } }),
          200,
          'tenants/me',
        );
      },
    ],
    [
      'GET /sessions',
      async () => {
        expectStatus(
          await http(`${api}/sessions`, { headers: { authorization: `Bearer ${state.access}` } }),
          200,
          'sessions',
        );
      },
    ],
    [
      'logout',
      async () => {
        expectStatus(
          await http(`${api}/auth/logout`, {
            method: 'POST',
            headers: { ...xff(6), authorization: `Bearer ${state.refresh}` },
          }),
          204,
          'logout',
        );
      },
    ],
  ];
}

/** A statement's shape: its quoted values blanked, its spaces folded (no hash or token is kept). */
const shape = (sql) =>
  sql
    .replace(/'[^']*'/g, "'…'")
    .replace(/\s+/g, ' ')
    .trim();

/**
 * The shapes of the statements an idle server sends on its own, that found nothing: the webhook worker's
 * claim every second, the mail outbox's every 2.5 to 5 s. Learned over IDLE_MS after start-up; an operation's
 * statement of one of these shapes that touched no row is such a pass, not the operation's (one that
 * touched rows is: the outbox's claim of the message a registration queued, the webhook worker's claim of
 * a delivery).
 */
const IDLE_MS = 6000;
async function idlePasses(proxy) {
  proxy.take();
  await sleep(IDLE_MS);
  return new Set(
    proxy
      .take()
      .filter((s) => s.rows === 0 && s.error === null)
      .map((s) => shape(s.text)),
  );
}

/**
 * Sends each operation alone on an otherwise idle server and counts what it sent once it has answered
 * (300 ms later, for the work it starts after its answer: a registration's mail delivery). `redis`, when
 * given, is a counting Redis proxy in front of the server's rate-limit store.
 */
async function countOperations(ops, { proxy, redis, idle }) {
  const counts = {};
  const mark = () => {
    proxy.take();
    redis?.take();
  };
  for (const [name, run] of ops) {
    mark();
    const { cut = Number.POSITIVE_INFINITY } = (await run({ mark, proxy })) ?? {};
    await sleep(300);
    const all = proxy.take().filter((s) => s.at <= cut);
    const taken = all.filter((s) => !(s.rows === 0 && idle.has(shape(s.text))));
    const statements = taken.map((s) => s.text);
    const failed = taken.filter((s) => s.error !== null || s.skipped);
    if (failed.length > 0)
      throw new Error(`sizing: ${name}: a statement failed: ${failed[0].error} ${shape(failed[0].text)}`);
    const commands = redis?.take();
    counts[name] = {
      statements: statements.filter((s) => !isTx(s) && !isTxEnd(s)).length,
      writes: statements.filter(isWrite).length,
      transactions: statements.filter(isTx).length,
      protocol: [...new Set(taken.map((s) => s.protocol))].join('+'),
      idlePassesLeftOut: all.length - taken.length,
      ...(commands
        ? {
            // An EVAL only follows an EVALSHA answered NOSCRIPT: the same hit again, not a command of its own.
            redisCommands: Object.entries(commands)
              .filter(([command]) => command !== 'eval')
              .reduce((sum, [, n]) => sum + n, 0),
            redisByCommand: commands,
          }
        : {}),
      sql: taken.map((s) => `${shape(s.text).slice(0, 400)} -- ${s.tags.join(', ')}`),
    };
  }
  return counts;
}

/** The operations every version had, on the reference server as the other benchmarks start it. */
async function countSql() {
  const problem = await postgresProblem();
  if (problem) {
    skipRow('sizing.sql', 'sizing: SQL statements per operation', problem);
    return null;
  }
  const db = await createThrowawayDatabase('sizing');
  const proxy = await startPgProxy(db.url);
  onCleanup(() => proxy.close());
  const server = await startReferenceServer({ databaseUrl: proxy.url, bcryptCost: 10, logLevel: 'warn' });
  const idle = await idlePasses(proxy); // start-up's statements (the migrations) go with it
  const counts = await countOperations(operations(server.url), { proxy, idle });
  await server.stop();
  await proxy.close();
  await db.drop();
  return counts;
}

/**
 * The operations of 1.2 and 1.3 (bench/lib/sizing-features.mjs), on the reference server as the SCIM
 * benchmarks start it, its rate limits on Redis through a counting proxy (a database number of its own, its
 * keys deleted afterwards): SQL and Redis from the server itself.
 */
async function countFeatures() {
  const problem = (await postgresProblem()) ?? (await redisProblem());
  if (problem) {
    skipRow('sizing.features', 'sizing: second factor, API keys, SCIM, webhooks', problem);
    return null;
  }
  const redisUrl = new URL(REDIS_URL);
  redisUrl.pathname = `/${REDIS_DB}`;
  const redis = await startRedisProxy(redisUrl.toString());
  onCleanup(async () => {
    const { Redis } = requireFromServer('ioredis');
    const client = new Redis(redisUrl.toString(), { maxRetriesPerRequest: 1 });
    const keys = redis.keys();
    if (keys.length > 0) await client.del(...keys);
    client.disconnect();
    await redis.close();
  });
  const receiver = await startReceiver();
  onCleanup(() => receiver.close());
  let proxy;
  const bench = await startScimBench('sizing_features', {
    bcryptCost: 10,
    env: { OUTBOUND_ALLOW_LOOPBACK: 'true', REDIS_URL: redis.url, LOG_LEVEL: 'warn' },
    database: async (url) => {
      proxy = await startPgProxy(url);
      onCleanup(() => proxy.close());
      return proxy.url;
    },
  });
  const ops = await featureOperations({ url: bench.server.url, ...bench, receiver });
  const idle = await idlePasses(proxy);
  const counts = await countOperations(ops, { proxy, redis, idle });
  await bench.stop();
  return counts;
}

async function countRedis() {
  const problem = await redisProblem();
  if (problem) {
    skipRow('sizing.redis', 'sizing: Redis commands per request', problem);
    return null;
  }
  const Koa = requireFromServer('koa');
  const { Redis } = requireFromServer('ioredis');
  const { createMemoryStores, createTenantAuth } = await importFromServer('tenant-auth-core');
  const { createTenantAuthKoa } = await importFromServer('tenant-auth-koa');
  const { RedisRateLimitStore } = await importFromServer('tenant-auth-redis');
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  const prefix = `tenant-auth-bench:${randomUUID()}:`;
  onCleanup(async () => {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
    redis.disconnect();
  });
  let commands = 0;
  const counting = {
    get status() {
      return redis.status;
    },
    evalsha: (...args) => {
      commands++;
      return redis.evalsha(...args);
    },
    // Only after an EVALSHA answered NOSCRIPT (a Redis that has not run this script since it started, a
    // failover or a SCRIPT FLUSH): the same hit again, not a command of the operation.
    eval: (...args) => redis.eval(...args),
  };
  const silent = { error() {}, warn() {}, info() {} };
  const auth = createTenantAuth({
    stores: createMemoryStores(),
    accessToken: { secret: randomBytes(32).toString('hex') },
    refreshSecret: randomBytes(32).toString('hex'),
    passwordHashing: { cost: 4 },
    rateLimit: { store: new RedisRateLimitStore({ redis: counting, keyPrefix: prefix }) },
    logger: silent,
  });
  const tenantAuth = createTenantAuthKoa({ auth, logger: silent, health: { ping: async () => {} } });
  const app = new Koa({ proxy: true, maxIpsCount: 1 });
  app.silent = true;
  app.use(tenantAuth.middleware());
  const server = createServer(app.callback()).listen(0, '127.0.0.1');
  await once(server, 'listening');
  onCleanup(() => new Promise((r) => server.close(r)));
  const counts = {};
  for (const [name, run] of operations(`http://127.0.0.1:${server.address().port}`)) {
    commands = 0;
    await run();
    counts[name] = commands;
  }
  return counts;
}

await main(async () => {
  const sql = await countSql();
  const redis = await countRedis();
  const features = await countFeatures();
  const sizing = {};
  for (const op of Object.keys(sql ?? redis ?? {}))
    sizing[op] = { ...(sql?.[op] ?? {}), redisCommands: redis?.[op] ?? null };
  Object.assign(sizing, features ?? {});
  for (const [op, s] of Object.entries(sizing)) {
    addRow({
      id: `sizing.${op.replace(/[^a-z]+/gi, '-').toLowerCase()}`,
      benchmark: `sizing: ${op}`,
      measured:
        s.statements === undefined
          ? `${s.redisCommands ?? '-'} Redis`
          : `${s.statements} SQL (${s.writes} writes, ${s.transactions} tx); ${s.redisCommands === null ? 'Redis skipped' : `${s.redisCommands} Redis`}`,
      baseline: '-',
      ratio: null,
      target: 'report',
    });
  }
  setExtra('sizing', sizing);
});
