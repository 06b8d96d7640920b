import { describe, expect, it } from 'vitest';
import { ENTRY_CAP, type SlidingLog, slidingLogHit, slotMs } from './sliding-log.js';

describe('sliding log', () => {
  it('uses slots of 1/60 of the window, at least 1 ms', () => {
    expect(slotMs(60_000)).toBe(1_000);
    expect(slotMs(1_000)).toBe(17);
    expect(slotMs(10)).toBe(1);
  });

  it('merges hits of one slot into one entry that expires with the latest of them', () => {
    const log: SlidingLog = [];
    slidingLogHit(log, { windowMs: 60_000, now: 1_000, cost: 1, limit: -1 });
    slidingLogHit(log, { windowMs: 60_000, now: 1_400, cost: 2, limit: -1 });
    expect(log).toEqual([1_400, 3]);
    expect(slidingLogHit(log, { windowMs: 60_000, now: 61_399, cost: 0, limit: -1 })).toEqual({
      count: 3,
      resetMs: 1,
    });
    expect(slidingLogHit(log, { windowMs: 60_000, now: 61_400, cost: 0, limit: -1 })).toEqual({
      count: 0,
      resetMs: 0,
    });
    expect(log).toEqual([]);
  });

  it('holds a bounded number of entries however fast and long the hits come', () => {
    const log: SlidingLog = [];
    let now = 0;
    let longest = 0;
    for (let i = 0; i < 20_000; i++) {
      now += 7; // a hit every 7 ms for 140 s
      slidingLogHit(log, { windowMs: 60_000, now, cost: 1, limit: -1 });
      longest = Math.max(longest, log.length / 2);
    }
    expect(longest).toBeLessThanOrEqual(62);
    // and it still counts every hit of the last minute (plus at most one slot's worth)
    const { count } = slidingLogHit(log, { windowMs: 60_000, now, cost: 0, limit: -1 });
    expect(count).toBeGreaterThanOrEqual(Math.floor(60_000 / 7));
    expect(count).toBeLessThanOrEqual(Math.ceil(61_000 / 7));
  });

  it('caps the entries when the window of a key changes (a configuration change rolling out), losing no hit', () => {
    const log: SlidingLog = [];
    // 60 entries one second apart under a one-minute window...
    for (let i = 0; i < 60; i++) slidingLogHit(log, { windowMs: 60_000, now: i * 1_000, cost: 1, limit: -1 });
    // ...then a ten-minute window: nothing expires and a new 10 s slot opens every 10 s.
    for (let i = 1; i <= 600; i++)
      slidingLogHit(log, { windowMs: 600_000, now: 59_000 + i * 1_000, cost: 1, limit: -1 });
    expect(log.length / 2).toBeLessThanOrEqual(ENTRY_CAP);
    const { count } = slidingLogHit(log, { windowMs: 600_000, now: 659_000, cost: 0, limit: -1 });
    // merged entries are counted longer, never shorter: at least the 600 hits of the last ten minutes
    expect(count).toBeGreaterThanOrEqual(600);
    expect(count).toBeLessThanOrEqual(660);
  });
});
