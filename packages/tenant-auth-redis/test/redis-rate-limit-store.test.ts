import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { Redis, type RedisOptions } from 'ioredis';
import {
  type Clock,
  createMemoryStores,
  createTenantAuth,
  isTenantAuthError,
  MemoryRateLimitStore,
  type RateLimitStore,
} from 'tenant-auth-core';
import { ManualClock, runRateLimitStoreConformance } from 'tenant-auth-core/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TcpProxy } from '../../../test-support/tcp-proxy.js';
import { RedisRateLimitStore } from '../src/index.js';

const url = process.env.TEST_REDIS_URL;
const MINUTE = 60_000;

describe.skipIf(!url)('RedisRateLimitStore on the real Redis at TEST_REDIS_URL', () => {
  // One prefix per run, so parallel runs against one Redis never share a key.
  const runPrefix = `tenant-auth-test:${randomUUID()}:`;
  const clients: Redis[] = [];
  let redis: Redis;

  const newClient = (options: RedisOptions = {}, target: string = url ?? '') => {
    const client = new Redis(target, { maxRetriesPerRequest: 1, ...options });
    client.on('error', () => {}); // connection errors are what these tests provoke
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    redis = newClient();
    await redis.ping();
  });

  afterAll(async () => {
    const keys = await redis.keys(`${runPrefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await Promise.all(
      clients.map((c) => (c.status === 'end' ? undefined : c.quit().catch(() => c.disconnect()))),
    );
  });

  runRateLimitStoreConformance({
    name: 'redis',
    createStore: () => new RedisRateLimitStore({ redis, keyPrefix: `${runPrefix}conformance:` }),
    test: { describe, it, expect, beforeEach, afterEach },
  });

  const quiet = { error: () => {}, warn: () => {}, info: () => {} };

  /** A TenantAuth whose budgets live in `store`: 10 strict and 300 general requests per minute. */
  function authOn(store: RateLimitStore, clock?: Clock) {
    return createTenantAuth({
      stores: createMemoryStores(),
      accessToken: { secret: 'redis-test-access-secret-0123456789' },
      refreshSecret: 'redis-test-refresh-secret-0123456789',
      rateLimit: { store, strict: 10, general: 300 },
      logger: quiet,
      ...(clock ? { clock } : {}),
    });
  }

  describe('on Redis', () => {
    let clock: ManualClock;
    let prefix: string;
    let store: RedisRateLimitStore;
    const now = () => clock.now().getTime();

    beforeAll(() => {
      clock = new ManualClock();
    });
    afterEach(() => {
      clock.advance(10 * MINUTE);
    });
    /**
     * The stored log (see sliding-log-script.ts): the header's total and copies of the oldest and newest
     * entries, the entries in order (the older ones from the bytes first..stop, then the newest) and the
     * length of the string.
     */
    const storedLog = async (key: string) => {
      const raw = await redis.getBuffer(key);
      if (!raw) return { total: 0, entries: [] as [number, number][], length: 0 };
      const [total, oldestTs, oldestCount, newestTs, newestCount, first, stop] = Array.from(
        { length: 7 },
        (_, i) => raw.readDoubleBE(i * 8),
      ) as [number, number, number, number, number, number, number];
      const entries: [number, number][] = [];
      for (let offset = first; offset < stop; offset += 16) {
        entries.push([raw.readDoubleBE(offset), raw.readDoubleBE(offset + 8)]);
      }
      entries.push([newestTs, newestCount]);
      // The header's copy of the oldest entry is always the first one.
      expect(entries[0]).toEqual([oldestTs, oldestCount]);
      return { total, entries, length: raw.length };
    };
    const fresh = () => {
      prefix = `${runPrefix}${randomUUID()}:`;
      store = new RedisRateLimitStore({ redis, keyPrefix: prefix });
    };

    it('is atomic: 200 concurrent hits on one key count exactly 200', async () => {
      fresh();
      const results = await Promise.all(
        Array.from({ length: 200 }, () => store.hit('k', { windowMs: MINUTE, now: now() })),
      );
      expect(new Set(results.map((r) => r.count)).size).toBe(200);
      expect(Math.max(...results.map((r) => r.count))).toBe(200);
      expect((await store.hit('k', { windowMs: MINUTE, now: now(), cost: 0 })).count).toBe(200);
    });

    it('keeps the TTL through writes that record nothing, and deletes a key given back to nothing', async () => {
      fresh();
      const key = `${prefix}s2:k`;
      const t0 = now();
      await store.hit('k', { windowMs: MINUTE, now: t0, cost: 2 });
      await store.hit('k', { windowMs: MINUTE, now: t0 + 30_000, cost: 3 });
      // The first entry has left the window: a read forgets it (a write that keeps the TTL).
      expect(await store.hit('k', { windowMs: MINUTE, now: t0 + 61_000, cost: 0 })).toEqual({
        count: 3,
        resetMs: 29_000,
      });
      expect((await storedLog(key)).entries).toEqual([[t0 + 30_000, 3]]);
      // Redis's clock never moved in this test: the TTL the second hit set stands, neither cut nor reset.
      expect(await redis.pttl(key)).toBeGreaterThan(MINUTE + MINUTE / 4 - 5_000);
      // A refused hit and a partial give-back keep it too.
      await redis.pexpire(key, 50_000); // as if time had passed: writes that record nothing keep it
      expect(await store.hit('k', { windowMs: MINUTE, now: t0 + 61_000, limit: 3 })).toMatchObject({
        count: 4,
      });
      expect(await redis.pttl(key)).toBeLessThanOrEqual(50_000);
      expect(await redis.pttl(key)).toBeGreaterThan(45_000);
      expect(await store.hit('k', { windowMs: MINUTE, now: t0 + 61_000, cost: -2 })).toMatchObject({
        count: 1,
      });
      expect(await redis.pttl(key)).toBeLessThanOrEqual(50_000);
      expect(await redis.pttl(key)).toBeGreaterThan(45_000);
      expect((await storedLog(key)).total).toBe(1);
      // Given back to nothing: the key is gone.
      expect(await store.hit('k', { windowMs: MINUTE, now: t0 + 61_000, cost: -5 })).toEqual({
        count: 0,
        resetMs: 0,
      });
      expect(await redis.exists(key)).toBe(0);
    });

    it('sets a TTL past when the newest hit leaves the window, and extends it only when it falls short', async () => {
      fresh();
      const key = `${prefix}s2:k`;
      const t0 = now();
      const slack = MINUTE / 4;
      await store.hit('k', { windowMs: MINUTE, now: t0 });
      expect(await redis.pttl(key)).toBeGreaterThan(MINUTE + slack - 5_000);
      expect(await redis.pttl(key)).toBeLessThanOrEqual(MINUTE + slack);
      // Redis's clock has moved 10 s on too: 65 s left still outlast the new hit's window (60 s), so the
      // TTL is kept.
      await redis.pexpire(key, MINUTE + slack - 10_000);
      await store.hit('k', { windowMs: MINUTE, now: t0 + 10_000 });
      expect(await redis.pttl(key)).toBeLessThanOrEqual(MINUTE + slack - 10_000);
      expect(await redis.pttl(key)).toBeGreaterThan(MINUTE);
      // 20 s after the first hit, 55 s left would end before the new hit leaves the window: extended.
      await redis.pexpire(key, MINUTE + slack - 20_000);
      await store.hit('k', { windowMs: MINUTE, now: t0 + 20_000 });
      expect(await redis.pttl(key)).toBeGreaterThan(MINUTE + slack - 5_000);
      await store.hit('short', { windowMs: 2_000, now: now() });
      expect(await redis.pttl(`${prefix}s2:short`)).toBeGreaterThan(2_000);
      expect(await redis.pttl(`${prefix}s2:short`)).toBeLessThanOrEqual(2_500);
    });

    it('extends the TTL for a hit from a clock behind the one that set it, so the hit is not forgotten early', async () => {
      fresh();
      const key = `${prefix}s2:k`;
      const t0 = now();
      await store.hit('k', { windowMs: MINUTE, now: t0 });
      // 35 s later on Redis's clock, an instance whose clock is 30 s behind records a hit in a new slot: its
      // hit must stay counted for 60 s, and the 40 s left would drop it early.
      await redis.pexpire(key, MINUTE + MINUTE / 4 - 35_000);
      await store.hit('k', { windowMs: MINUTE, now: t0 + 5_000 });
      expect(await redis.pttl(key)).toBeGreaterThan(MINUTE);
      expect((await storedLog(key)).entries).toEqual([
        [t0, 1],
        [t0 + 5_000, 1],
      ]);
    });

    it('writes nothing for a read', async () => {
      fresh();
      expect(await store.hit('k', { windowMs: MINUTE, now: now(), cost: 0 })).toEqual({
        count: 0,
        resetMs: 0,
      });
      expect(await redis.exists(`${prefix}s2:k`)).toBe(0);
    });

    it('holds a bounded number of entries per key whatever the rate', async () => {
      fresh();
      let longest = 0;
      let overhead = 0;
      for (let i = 0; i < 600; i++) {
        clock.advance(373); // a hit every 373 ms for ~3.7 min: many slots, many windows
        await store.hit('k', { windowMs: 10_000, now: now() });
        const { entries, length } = await storedLog(`${prefix}s2:k`);
        longest = Math.max(longest, entries.length);
        // Bytes beyond the header and the live older entries: those of forgotten entries.
        overhead = Math.max(overhead, length - 56 - 16 * (entries.length - 1));
      }
      expect(longest).toBeGreaterThan(20);
      expect(longest).toBeLessThanOrEqual(62);
      // They are dropped once there are 512 of them: at most 31 forgotten entries are ever left.
      expect(overhead).toBeGreaterThan(400);
      expect(overhead).toBeLessThanOrEqual(512 - 16);
    });

    it('keeps a running total in its header, and drops expired entries from the oldest end, several reads at once', async () => {
      fresh();
      for (let i = 0; i < 30; i++) {
        clock.advance(1_500); // a new slot (1 s for a minute's window) every hit
        await store.hit('k', { windowMs: MINUTE, now: now(), cost: 2 });
      }
      const key = `${prefix}s2:k`;
      const written = await storedLog(key);
      expect(written.total).toBe(60);
      expect(written.entries).toHaveLength(30);
      expect(written.entries.at(-1)).toEqual([now(), 2]);
      const entry21 = written.entries[20];
      // The first 20 entries leave the window (entry i was hit at i * 1.5 s): they are dropped, the total
      // follows, and the reset is when entry 21 leaves.
      clock.advance(MINUTE - 30 * 1_500 + 20 * 1_500 + 1);
      expect(await store.hit('k', { windowMs: MINUTE, now: now(), cost: 0 })).toEqual({
        count: 20,
        resetMs: 1_499,
      });
      const after = await storedLog(key);
      expect(after.total).toBe(20);
      expect(after.entries).toHaveLength(10);
      expect(after.entries[0]).toEqual(entry21);
    });

    it('forgets every entry of a key in one hit, then counts from nothing', async () => {
      fresh();
      const key = `${prefix}s2:k`;
      const t0 = now();
      for (const [at, cost] of [
        [t0, 2],
        [t0 + 1_500, 3],
        [t0 + 3_000, 4],
      ] as const) {
        await store.hit('k', { windowMs: MINUTE, now: at, cost });
      }
      expect((await storedLog(key)).entries).toHaveLength(3);
      const later = t0 + 3_000 + MINUTE;
      expect(await store.hit('k', { windowMs: MINUTE, now: later })).toEqual({ count: 1, resetMs: MINUTE });
      expect(await storedLog(key)).toMatchObject({ total: 1, entries: [[later, 1]], length: 56 });
    });

    it('answers exactly as MemoryRateLimitStore over 2,000 mixed hits, windows changing on the way', async () => {
      fresh();
      const memory = new MemoryRateLimitStore();
      // A fixed pseudo-random sequence (xorshift), so a failure replays.
      let seed = 0x2545f491;
      const next = (below: number) => {
        seed ^= seed << 13;
        seed ^= seed >>> 17;
        seed ^= seed << 5;
        return (seed >>> 0) % below;
      };
      let at = Date.UTC(2026, 0, 1);
      let longest = 0;
      for (let i = 0; i < 2_000; i++) {
        // The window grows from a minute to ten halfway through: more entries than the cap are then in
        // the window, and the oldest are merged.
        const windowMs = i < 1_000 ? MINUTE : 10 * MINUTE;
        // Mostly forward, now and then a step back: instances whose clocks differ a little.
        at += next(25) === 0 ? -next(1_500) : next(3) === 0 ? next(4_000) : next(400);
        const pick = next(20);
        const options =
          pick === 0
            ? { windowMs, now: at, cost: -1 - next(3) }
            : pick === 1
              ? { windowMs, now: at, cost: 0 }
              : pick === 2
                ? { windowMs, now: at, limit: 40 + next(40) }
                : { windowMs, now: at, cost: 1 + next(2) };
        const key = `k${next(3)}`;
        expect(await store.hit(key, options), `hit ${i} ${JSON.stringify(options)}`).toEqual(
          await memory.hit(key, options),
        );
        const { entries } = await storedLog(`${prefix}s2:${key}`);
        longest = Math.max(longest, entries.length);
      }
      // The cap was reached (so the merging of the oldest entries ran) and never passed.
      expect(longest).toBe(63);
      await memory.close();
    });

    it('never meets a key of 1.0 (a list under the bare key), so both versions run side by side', async () => {
      fresh();
      const t0 = now();
      // What an instance of tenant-auth-redis 1.0 keeps for the same budget during a rolling upgrade.
      await redis.rpush(`${prefix}k`, `${t0 - 30_000}:4`, `${t0 - 10_000}:3`);
      await redis.pexpire(`${prefix}k`, 50_000);
      expect(await store.hit('k', { windowMs: MINUTE, now: t0 })).toEqual({ count: 1, resetMs: MINUTE });
      expect(await redis.type(`${prefix}k`)).toBe('list');
      expect(await redis.lrange(`${prefix}k`, 0, -1)).toEqual([`${t0 - 30_000}:4`, `${t0 - 10_000}:3`]);
      expect(await redis.type(`${prefix}s2:k`)).toBe('string');
    });

    it('keeps key prefixes apart', async () => {
      fresh();
      const other = new RedisRateLimitStore({ redis, keyPrefix: `${prefix}other:` });
      await store.hit('k', { windowMs: MINUTE, now: now(), cost: 3 });
      expect((await other.hit('k', { windowMs: MINUTE, now: now() })).count).toBe(1);
      expect((await store.hit('k', { windowMs: MINUTE, now: now(), cost: 0 })).count).toBe(3);
      expect((await redis.keys(`${prefix}*`)).sort()).toEqual([`${prefix}other:s2:k`, `${prefix}s2:k`]);
    });

    it('defaults its prefix to tenant-auth:rl:', async () => {
      const key = `${runPrefix}${randomUUID()}`;
      await new RedisRateLimitStore({ redis }).hit(key, { windowMs: 1_000, now: now() });
      expect(await redis.pttl(`tenant-auth:rl:s2:${key}`)).toBeGreaterThan(0);
      await redis.del(`tenant-auth:rl:s2:${key}`);
    });

    it('loads its script again after Redis forgot it (SCRIPT FLUSH, a restart)', async () => {
      fresh();
      await store.hit('k', { windowMs: MINUTE, now: now() });
      await redis.script('FLUSH');
      expect((await store.hit('k', { windowMs: MINUTE, now: now() })).count).toBe(2);
    });

    it('two instances on two clients enforce one global budget', async () => {
      fresh();
      const instances = [newClient(), newClient()].map((client) =>
        authOn(new RedisRateLimitStore({ redis: client, keyPrefix: prefix }), clock),
      );
      const client = { ipAddress: '203.0.113.7' };
      const results = await Promise.allSettled(
        Array.from({ length: 40 }, (_, i) => instances[i % 2]!.rateLimit('strict', client)),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
      for (const auth of instances) {
        await expect(auth.rateLimit('strict', client)).rejects.toMatchObject({ code: 'rate_limited' });
      }
      clock.advance(MINUTE);
      expect(await instances[1]!.rateLimit('strict', client)).toMatchObject({ allowed: true });
    });
  });

  describe('when Redis goes away', () => {
    const target = new URL(url ?? 'redis://127.0.0.1:6379');
    let proxy: TcpProxy;
    let client: Redis;
    let store: RedisRateLimitStore;
    const clock = new ManualClock();
    const hit = (cost = 1) => store.hit('k', { windowMs: MINUTE, now: clock.now().getTime(), cost });
    const viaProxy = () => {
      const u = new URL(target);
      u.hostname = '127.0.0.1';
      u.port = String(proxy.port);
      return u.toString();
    };

    beforeAll(async () => {
      proxy = new TcpProxy(target.hostname, Number(target.port || 6379));
      await proxy.start();
    });
    afterAll(() => proxy.stop());

    it('rejects with unavailable at once while disconnected, and recovers by itself', async () => {
      // The client setting that waits longest: offline queue on, commands never given up, reconnecting
      // forever (quickly, for the test).
      client = newClient({ retryStrategy: () => 20, maxRetriesPerRequest: null }, viaProxy());
      store = new RedisRateLimitStore({ redis: client, keyPrefix: `${runPrefix}${randomUUID()}:` });
      expect((await hit()).count).toBe(1);

      const reconnecting = once(client, 'reconnecting');
      await proxy.stop();
      await reconnecting;
      for (let i = 0; i < 3; i++) {
        const err = await hit().catch((e: unknown) => e);
        expect(isTenantAuthError(err, 'unavailable')).toBe(true);
        expect((err as Error).message).not.toMatch(/redis|ECONN|127\.0\.0\.1/i);
      }

      const ready = once(client, 'ready');
      await proxy.start();
      await ready;
      // The refused hits were not parked in ioredis's offline queue and replayed: only 2 were counted.
      expect((await hit()).count).toBe(2);
    });

    it('rejects with unavailable within commandTimeoutMs when Redis hangs, and recovers', async () => {
      client = newClient({}, viaProxy());
      // Connected first: the timeout is for a Redis that hangs, not for the client's own start-up.
      await once(client, 'ready');
      store = new RedisRateLimitStore({
        redis: client,
        keyPrefix: `${runPrefix}${randomUUID()}:`,
        commandTimeoutMs: 200,
      });
      expect((await hit()).count).toBe(1);
      proxy.pause();
      const err = await hit(0).catch((e: unknown) => e);
      expect(isTenantAuthError(err, 'unavailable')).toBe(true);
      proxy.resume();
      expect((await hit()).count).toBe(2);
    });

    it('fails closed or open through the limiter, as configured', async () => {
      client = newClient({ retryStrategy: () => 20 }, viaProxy());
      await once(client, 'ready');
      store = new RedisRateLimitStore({ redis: client, keyPrefix: `${runPrefix}${randomUUID()}:` });
      const auth = authOn(store);
      const from = { ipAddress: '1.2.3.4' };
      const reconnecting = once(client, 'reconnecting');
      await proxy.stop();
      await reconnecting;
      await expect(auth.rateLimit('strict', from)).rejects.toMatchObject({
        code: 'unavailable',
        status: 503,
      });
      expect(await auth.rateLimit('general', from)).toMatchObject({ allowed: true });
      const ready = once(client, 'ready');
      await proxy.start();
      await ready;
      expect(await auth.rateLimit('strict', from)).toMatchObject({ allowed: true, remaining: 9 });
    });

    it('rejects with unavailable once the client has been quit', async () => {
      client = newClient({}, viaProxy());
      store = new RedisRateLimitStore({ redis: client });
      await client.quit();
      await expect(hit()).rejects.toMatchObject({ code: 'unavailable' });
    });
  });
});
