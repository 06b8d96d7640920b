// Rate-limit store: hits per second through tenant-auth-redis's RedisRateLimitStore (one EVALSHA of the
// sliding-log script per hit) against single-key round trips per second with the same ioredis client (INCR),
// at the same concurrency (32 in flight) over the same 1,000 keys, interleaved in six turns (every other one
// in reverse order). Keys carry a prefix of their own and are deleted afterwards. The row also gives the time
// Redis spends running the script per hit (its own `INFO commandstats`). Also reported (no target, no
// service needed): the in-process MemoryRateLimitStore against a plain Map counter doing the same number
// of calls.
import { randomUUID } from 'node:crypto';
import {
  addRow,
  DURATION,
  FAST_ROUNDS,
  fmt,
  importFromServer,
  inRounds,
  main,
  onCleanup,
  REDIS_URL,
  redisProblem,
  requireFromServer,
  skipRow,
} from './lib/harness.mjs';

const CONCURRENCY = 32;
const KEYS = 1000;
const WINDOW_MS = 60_000;
const ROUNDS = FAST_ROUNDS;
const TARGET = 0.5;

/** Calls `op(i)` with `concurrency` in flight for `seconds`; returns calls per second. */
async function rate(op, seconds, concurrency = CONCURRENCY) {
  let calls = 0;
  let i = 0;
  const started = performance.now();
  const end = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        await op(i++);
        calls++;
      }
    }),
  );
  return { calls, seconds: (performance.now() - started) / 1000 };
}

/**
 * Calls of `EVALSHA` so far and the µs Redis spent running them (`INFO commandstats`: server-wide, every
 * client's; command execution only, not reading and writing the connection). No reset, so a shared
 * Redis keeps its stats. Null when Redis does not tell (`INFO` renamed or denied).
 */
async function evalshaStats(redis) {
  const info = await redis.info('commandstats').catch(() => '');
  const m = /cmdstat_evalsha:calls=(\d+),usec=(\d+)/.exec(info);
  return m ? { calls: Number(m[1]), usec: Number(m[2]) } : null;
}

const sum = (results) =>
  results.reduce((a, r) => a + r.calls, 0) / results.reduce((a, r) => a + r.seconds, 0);

await main(async () => {
  const { MemoryRateLimitStore } = await importFromServer('tenant-auth-core');
  // memory: one synchronous-ish call at a time, as a request path makes it
  {
    const map = new Map();
    const store = new MemoryRateLimitStore();
    let now = Date.now();
    const mapOp = async (i) => {
      const key = `general:ip:${i % KEYS}`;
      map.set(key, (map.get(key) ?? 0) + 1);
    };
    const storeOp = async (i) => {
      now += 1;
      return store.hit(`general:ip:${i % KEYS}`, { windowMs: WINDOW_MS, now });
    };
    await rate(storeOp, 0.5, 1);
    const base = [];
    const measured = [];
    await inRounds(
      {
        base: async () => base.push(await rate(mapOp, 0.5, 1)),
        measured: async () => measured.push(await rate(storeOp, 0.5, 1)),
      },
      ROUNDS,
    );
    await store.close();
    addRow({
      id: 'rate-limit-store.memory',
      benchmark: `rate-limit store: MemoryRateLimitStore hits, ${KEYS} keys, one at a time`,
      measured: `${fmt.rps(sum(measured))}`,
      baseline: `Map counter ${fmt.rps(sum(base))}`,
      ratio: sum(measured) / sum(base),
      target: 'report',
    });
  }

  const problem = await redisProblem();
  if (problem) {
    skipRow('rate-limit-store.redis', 'rate-limit store: RedisRateLimitStore hits', problem, `>= ${TARGET}`);
    return;
  }
  const { Redis } = requireFromServer('ioredis');
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
    await redis.quit();
  });
  const store = new RedisRateLimitStore({ redis, keyPrefix: prefix });
  let now = Date.now();
  const hit = (i) => {
    now += 1;
    return store.hit(`general:ip:${i % KEYS}`, { windowMs: WINDOW_MS, now });
  };
  const incr = (i) => redis.incr(`${prefix}rt:${i % KEYS}`);
  await rate(hit, 0.5);
  await rate(incr, 0.5);
  const base = [];
  const measured = [];
  const before = await evalshaStats(redis);
  await inRounds(
    {
      base: async () => base.push(await rate(incr, DURATION / ROUNDS / 2)),
      measured: async () => measured.push(await rate(hit, DURATION / ROUNDS / 2)),
    },
    ROUNDS,
  );
  const after = await evalshaStats(redis);
  // Time Redis spends running the script per hit (not reading and writing the connection).
  const calls = before && after ? after.calls - before.calls : 0;
  const scriptUs = calls > 0 ? (after.usec - before.usec) / calls : null;
  addRow({
    id: 'rate-limit-store.redis',
    benchmark: `rate-limit store: RedisRateLimitStore hits, ${CONCURRENCY} in flight, ${KEYS} keys`,
    measured: `${fmt.rps(sum(measured))}${scriptUs === null ? '' : ` (${scriptUs.toFixed(1)} µs in Redis each)`}`,
    baseline: `ioredis INCR round trips ${fmt.rps(sum(base))}`,
    ratio: sum(measured) / sum(base),
    target: `>= ${TARGET}`,
    check: (x) => x >= TARGET,
    details: { measured, base, scriptUs },
  });
});
