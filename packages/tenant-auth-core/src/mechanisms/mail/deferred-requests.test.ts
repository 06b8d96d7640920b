import { describe, expect, it } from 'vitest';
import { quiet } from '../../testing/test-helpers.js';
import { createDeferredRequests } from './deferred-requests.js';

describe('held requests', () => {
  it('lets one client network hold a thousand at most, and others still hold theirs', () => {
    const held = createDeferredRequests<number>('test', async () => {}, quiet);
    const kept = Array.from({ length: 1_200 }, (_, i) => held.hold(i, 'ip:203.0.113.0/24'));
    expect(held.size).toBe(1_000);
    // Each says whether it was kept, so its caller can undo what it wrote for a dropped one.
    expect(kept.filter((k) => k)).toHaveLength(1_000);
    expect(kept[1_000]).toBe(false);
    expect(held.hasRoom('ip:203.0.113.0/24')).toBe(false);
    expect(held.hasRoom('ip:198.51.100.0/24')).toBe(true);
    expect(held.hold(1, 'ip:198.51.100.0/24')).toBe(true);
    expect(held.size).toBe(1_001);
  });

  it('gives a network its share back as its requests are processed', async () => {
    const held = createDeferredRequests<number>('test', async () => {}, quiet);
    for (let i = 0; i < 1_000; i++) held.hold(i, 'ip:203.0.113.0/24');
    await held.process();
    held.hold(1, 'ip:203.0.113.0/24');
    expect(held.size).toBe(1);
  });

  it('stops processing when its time budget is spent, and keeps the rest for the next pass', async () => {
    const done: number[] = [];
    const held = createDeferredRequests<number>(
      'test',
      async (n) => {
        await new Promise((resolve) => setTimeout(resolve, 30));
        done.push(n);
      },
      quiet,
      { budgetMs: 100 },
    );
    for (let i = 0; i < 20; i++) held.hold(i, `ip:192.0.2.${i}`);
    await held.process();
    expect(done.length).toBeGreaterThan(0);
    expect(done.length).toBeLessThan(20);
    expect(held.size).toBe(20 - done.length);
    // The rest, in order, on the next pass.
    for (let pass = 0; pass < 100 && held.size > 0; pass++) await held.process();
    expect(done).toEqual([...Array(20).keys()]);
  });
});
