// Sizing counts (not timings): how many SQL statements, writes and transactions each operation of the
// reference server sends to PostgreSQL, and how many Redis commands each rate-limited request sends, for
// operators sizing PostgreSQL and Redis for N instances (BENCHMARKS.md, "Sizing").
//
// SQL: the reference server runs on PostgreSQL through a counting proxy (bench/lib/pg-proxy.mjs) that logs
// every statement executed; each operation is sent alone on an otherwise idle server and its statements
// are taken once it has answered. Redis: tenant-auth composed on the public surface (createTenantAuth with
// a RedisRateLimitStore under a key prefix of its own, createTenantAuthKoa) behind a client that counts
// the commands sent; the keys are deleted afterwards.
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
  await sleep(300);
  proxy.take(); // start-up: migrations
  const counts = {};
  for (const [name, run] of operations(server.url)) {
    await run();
    await sleep(300);
    const taken = proxy.take();
    const statements = taken.map((s) => s.text);
    counts[name] = {
      statements: statements.filter((s) => !isTx(s) && !isTxEnd(s)).length,
      writes: statements.filter(isWrite).length,
      transactions: statements.filter(isTx).length,
      protocol: [...new Set(taken.map((s) => s.protocol))].join('+'),
      // Values inlined by the ORM are blanked: the shapes are what matter, and no hash or token is kept.
      sql: statements.map((s) =>
        s
          .replace(/'[^']*'/g, "'…'")
          .replace(/\s+/g, ' ')
          .slice(0, 400),
      ),
    };
  }
  await server.stop();
  await proxy.close();
  await db.drop();
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
  const ops = Object.keys(sql ?? redis ?? {});
  const sizing = {};
  for (const op of ops) {
    sizing[op] = { ...(sql?.[op] ?? {}), redisCommands: redis?.[op] ?? null };
    const s = sql?.[op];
    addRow({
      id: `sizing.${op.replace(/[^a-z]+/gi, '-').toLowerCase()}`,
      benchmark: `sizing: ${op}`,
      measured: s
        ? `${s.statements} SQL (${s.writes} writes, ${s.transactions} tx); ${redis ? `${redis[op]} Redis` : 'Redis skipped'}`
        : `${redis?.[op] ?? '-'} Redis`,
      baseline: '-',
      ratio: null,
      target: 'report',
    });
  }
  setExtra('sizing', sizing);
});
