import { describe, expect, it } from 'vitest';
import { createTenantAuth } from '../../facade/create-tenant-auth.js';
import { createMemoryStores } from '../../memory/memory-stores.js';
import type { CompleteTenantAuthStores } from '../../ports/tenant-auth-stores.js';
import { ManualClock } from '../../testing/manual-clock.js';
import { type CleanupPacing, cleanUp, realPacing } from './cleanup.js';

const SETTINGS = { revokedRetentionSeconds: 86_400, auditRetentionSeconds: 86_400, batchSize: 100 };

/** Memory stores whose session cleanup finds `expired` rows, calling `onBatch` at the start of each batch. */
function storesWithExpiredSessions(expired: number, onBatch: () => void = () => {}) {
  const stores = createMemoryStores();
  let left = expired;
  const batches: number[] = [];
  const sessions = new Proxy(stores.sessions, {
    get(target, property, receiver) {
      if (property !== 'deleteExpired') return Reflect.get(target, property, receiver);
      return async ({ batchSize }: { batchSize: number }) => {
        onBatch();
        const deleted = Math.min(batchSize, left);
        left -= deleted;
        batches.push(deleted);
        return deleted;
      };
    },
  });
  const setExpired = (rows: number) => {
    left = rows;
  };
  // Calls of the other tables' cleanups, to see that a stopped pass starts none.
  const otherCalls: string[] = [];
  const counted = <T extends object>(target: T, method: string, name: string): T =>
    new Proxy(target, {
      get(t, property, receiver) {
        const value = Reflect.get(t, property, receiver);
        if (property !== method || typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          otherCalls.push(name);
          return value.apply(t, args);
        };
      },
    });
  return {
    stores: {
      ...stores,
      sessions,
      oneTimeTokens: counted(stores.oneTimeTokens, 'deleteExpired', 'oneTimeTokens'),
      auditEvents: counted(stores.auditEvents, 'deleteOlderThan', 'auditEvents'),
      outbox: counted(stores.outbox, 'deleteDead', 'outbox'),
      apiKeys: counted(stores.apiKeys, 'deleteRetired', 'apiKeys'),
    } as CompleteTenantAuthStores,
    batches,
    setExpired,
    otherCalls,
  };
}

/** Pacing on a fake clock: every batch takes `batchMs`; rests are recorded, not waited. */
function fakePacing(batchMs: number, stopAfterBatches = Number.POSITIVE_INFINITY) {
  let now = 0;
  let batches = 0;
  const rests: number[] = [];
  const pacing: CleanupPacing = {
    now: () => now,
    rest: async (ms) => {
      rests.push(ms);
      now += ms;
    },
    stopped: () => batches >= stopAfterBatches,
  };
  const batchDone = () => {
    now += batchMs;
    batches += 1;
  };
  return { pacing, rests, batchDone };
}

describe('cleanup pacing', () => {
  it('rests between full batches three times as long as each batch took, not after the last, short one', async () => {
    const fake = fakePacing(40);
    const { stores, batches } = storesWithExpiredSessions(350, fake.batchDone);
    const result = await cleanUp(stores, new ManualClock(), SETTINGS, fake.pacing);
    expect(result.sessions).toBe(350);
    expect(batches).toEqual([100, 100, 100, 50]);
    // Three rests, one after each full batch: the pass takes at most a quarter of the database's time.
    expect(fake.rests).toEqual([120, 120, 120]);
  });

  it('starts no further batch, on any table, once stopped', async () => {
    const fake = fakePacing(10, 2);
    const { stores, batches, otherCalls } = storesWithExpiredSessions(1_000_000, fake.batchDone);
    const result = await cleanUp(stores, new ManualClock(), SETTINGS, fake.pacing);
    expect(batches).toEqual([100, 100]);
    expect(result).toEqual({
      sessions: 200,
      webhookDeliveries: 0,
      oneTimeTokens: 0,
      auditEvents: 0,
      outboxMessages: 0,
      apiKeys: 0,
    });
    expect(otherCalls).toEqual([]);
  });

  it('visits every table when not stopped', async () => {
    const fake = fakePacing(10);
    const { stores, otherCalls } = storesWithExpiredSessions(150, fake.batchDone);
    await cleanUp(stores, new ManualClock(), SETTINGS, fake.pacing);
    expect(otherCalls).toEqual(['oneTimeTokens', 'auditEvents', 'outbox', 'apiKeys']);
  });

  it('on real time: aborting ends a rest in progress at once and stops the pass', async () => {
    const abort = new AbortController();
    const pacing = realPacing(abort.signal);
    expect(pacing.stopped()).toBe(false);
    // A rest of an hour: without the abort, this test would time out.
    const rest = pacing.rest(3_600_000);
    abort.abort();
    await rest;
    expect(pacing.stopped()).toBe(true);
  });

  it('stop() of a scheduled cleanup ends the pass in flight after its current batch, also one cleanup() started', async () => {
    let stop: Promise<void> | undefined;
    const { stores, batches, setExpired, otherCalls } = storesWithExpiredSessions(1_000_000_000, () => {
      // The third batch of an endless pass: stop the schedule while it runs.
      if (batches.length === 2) stop = scheduled.stop();
    });
    const auth = createTenantAuth({
      stores,
      accessToken: { secret: 'cleanup-test-access-secret-0123456789' },
      refreshSecret: 'cleanup-test-refresh-secret-0123456789',
      cleanupBatchSize: 100,
      logger: { error: () => {}, warn: () => {}, info: () => {} },
    });
    const scheduled = auth.startCleanup({ intervalSeconds: 600 });
    const result = await auth.cleanup();
    await stop;
    expect(batches).toEqual([100, 100, 100]);
    expect(result.sessions).toBe(300);
    expect(otherCalls).toEqual([]);
    // The next pass is not stopped by the last one's stop.
    setExpired(250);
    expect((await auth.cleanup()).sessions).toBe(250);
  });
});
