import { describe, expect, it } from 'vitest';
import { healthCheck } from './health.js';

describe('healthCheck', () => {
  it('shares one ping among concurrent checks and reuses its answer for cacheSeconds', async () => {
    let pings = 0;
    let release: (() => void) | undefined;
    const check = healthCheck({
      cacheSeconds: 0.05,
      ping: () => {
        pings++;
        return new Promise<void>((resolve) => {
          release = resolve;
        });
      },
    });
    const answers = Array.from({ length: 20 }, () => check.check());
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(pings).toBe(1);
    release?.();
    expect(await Promise.all(answers)).toEqual(Array(20).fill(true));
    expect(await check.check()).toBe(true);
    expect(pings).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 60));
    const next = check.check();
    await new Promise((resolve) => setTimeout(resolve, 5));
    release?.();
    expect(await next).toBe(true);
    expect(pings).toBe(2);
  });

  it('answers degraded when the ping fails or does not answer in time, and keeps that answer as briefly', async () => {
    let fail = true;
    const check = healthCheck({
      cacheSeconds: 0.05,
      timeoutSeconds: 0.05,
      ping: async () => {
        if (fail) throw new Error('ECONNREFUSED');
      },
    });
    expect(await check.check()).toBe(false);
    fail = false;
    expect(await check.check()).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(await check.check()).toBe(true);
    const stalled = healthCheck({ cacheSeconds: 0, timeoutSeconds: 0.05, ping: () => new Promise(() => {}) });
    expect(await stalled.check()).toBe(false);
  });

  it('refuses a cache longer than 10 seconds', () => {
    expect(() => healthCheck({ ping: async () => {}, cacheSeconds: 11 })).toThrow(/health.cacheSeconds/);
  });
});
