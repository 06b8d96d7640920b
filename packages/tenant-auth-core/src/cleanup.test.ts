import { describe, expect, it } from 'vitest';
import { type CleanupPacing, cleanUp } from './cleanup.js';
import { createTenantAuth } from './create-tenant-auth.js';
import { createMemoryStores } from './stores/memory/memory-stores.js';
import type { TenantAuthStores } from './stores/tenant-auth-stores.js';
import { ManualClock } from './testing/manual-clock.js';

const SETTINGS = { revokedRetentionSeconds: 86_400, auditRetentionSeconds: 86_400, batchSize: 100 };

/** Memory stores whose session cleanup finds `expired` rows, each batch taking `batchMs` of `pacing` time. */
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
  return { stores: { ...stores, sessions } as TenantAuthStores, batches, setExpired };
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

  it('ends the pass after the batch in flight once stopped', async () => {
    const fake = fakePacing(10, 2);
    const { stores, batches } = storesWithExpiredSessions(1_000_000, fake.batchDone);
    const result = await cleanUp(stores, new ManualClock(), SETTINGS, fake.pacing);
    expect(batches).toEqual([100, 100]);
    expect(result.sessions).toBe(200);
  });

  it('stop() of a scheduled cleanup ends a long pass after its current batch', async () => {
    let stop: Promise<void> | undefined;
    const { stores, batches, setExpired } = storesWithExpiredSessions(1_000_000_000, () => {
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
    // The next pass is not stopped by the last one's stop.
    setExpired(250);
    expect((await auth.cleanup()).sessions).toBe(250);
  });
});
