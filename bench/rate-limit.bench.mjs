// What does a rate-limit check cost? Printed as ratios against a baseline measured in the same run.
//
// memory   MemoryRateLimitStore.hit on a hot key (a full log: one entry per slot of the window) and on
//          fresh keys, against a plain Map counter (get + set) doing the same number of calls.
// redis    RedisRateLimitStore.hit (one EVALSHA of the sliding-log script), sequential, against PING on
//          the same client: the ratio shows a hit costs one round trip plus a little script time.
//          Needs REDIS_URL or TEST_REDIS_URL; skipped otherwise.
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { MemoryRateLimitStore } from '../packages/tenant-auth-core/dist/index.js';
import { RedisRateLimitStore } from '../packages/tenant-auth-redis/dist/index.js';

const require = createRequire(new URL('../packages/tenant-auth-redis/package.json', import.meta.url));
const { Redis } = require('ioredis');

const WINDOW = 60_000;
const N = Number(process.env.BENCH_HITS ?? 200_000);

function quantile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function timeLoop(n, fn) {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await fn(i);
  return Number(process.hrtime.bigint() - t0) / n;
}

// memory
{
  const map = new Map();
  const baseline = await timeLoop(N, async (i) => {
    const key = `k${i % 1000}`;
    map.set(key, (map.get(key) ?? 0) + 1);
  });
  const store = new MemoryRateLimitStore({ maxKeys: N + 10 });
  let now = 0;
  // one hit per 1 s slot for a minute: the hot key's log is full before measuring
  for (let i = 0; i < 60; i++) {
    now += 1_000;
    await store.hit('hot', { windowMs: WINDOW, now });
  }
  const hot = await timeLoop(N, async () => {
    now += 1;
    return store.hit('hot', { windowMs: WINDOW, now });
  });
  const fresh = await timeLoop(N, async (i) => store.hit(`fresh-${i}`, { windowMs: WINDOW, now }));
  await store.close();
  console.log(`memory: Map counter ${baseline.toFixed(0)} ns/call (baseline)`);
  console.log(`memory: hit on a hot key    x${(hot / baseline).toFixed(1)} the baseline`);
  console.log(`memory: hit on fresh keys   x${(fresh / baseline).toFixed(1)} the baseline`);
}

// redis
const url = process.env.REDIS_URL ?? process.env.TEST_REDIS_URL;
if (!url) {
  console.log('redis: skipped (set REDIS_URL or TEST_REDIS_URL)');
} else {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  const prefix = `tenant-auth-bench:${randomUUID()}:`;
  const store = new RedisRateLimitStore({ redis, keyPrefix: prefix });
  const samples = Number(process.env.BENCH_REDIS_SAMPLES ?? 3_000);
  const latencies = async (fn) => {
    const times = [];
    for (let i = 0; i < samples; i++) {
      const t0 = process.hrtime.bigint();
      await fn(i);
      times.push(Number(process.hrtime.bigint() - t0) / 1e3);
    }
    return times.sort((a, b) => a - b);
  };
  let now = Date.now();
  await store.hit('warm', { windowMs: WINDOW, now }); // loads the script
  const ping = await latencies(() => redis.ping());
  const hot = await latencies(() => {
    now += 17;
    return store.hit('hot', { windowMs: WINDOW, now });
  });
  const fresh = await latencies((i) => store.hit(`fresh-${i}`, { windowMs: WINDOW, now }));
  for (const [name, times] of [
    ['hit on a hot key ', hot],
    ['hit on fresh keys', fresh],
  ]) {
    console.log(
      `redis: ${name} p50 x${(quantile(times, 0.5) / quantile(ping, 0.5)).toFixed(2)}, p99 x${(quantile(times, 0.99) / quantile(ping, 0.99)).toFixed(2)} a PING`,
    );
  }
  console.log(`redis: PING p50 ${quantile(ping, 0.5).toFixed(0)} µs (baseline)`);
  const keys = await redis.keys(`${prefix}*`);
  for (let i = 0; i < keys.length; i += 1000) await redis.del(...keys.slice(i, i + 1000));
  await redis.quit();
}
