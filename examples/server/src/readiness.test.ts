import { afterEach, describe, expect, it, vi } from 'vitest';
import { createReadiness } from './readiness.js';

/** A ping whose answers the test gives one by one. */
function controlledPing() {
  const calls: Array<{ resolve: () => void; reject: (err: Error) => void }> = [];
  const ping = () =>
    new Promise<void>((resolve, reject) => {
      calls.push({ resolve, reject });
    });
  return { ping, calls };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('createReadiness', () => {
  it('shares one ping between concurrent probes and reuses its result for reuseMs', async () => {
    let now = 0;
    const { ping, calls } = controlledPing();
    const readiness = createReadiness({ ping, reuseMs: 500, timeoutMs: 1000, now: () => now });
    const probes = Array.from({ length: 100 }, () => readiness.check());
    expect(calls).toHaveLength(1);
    calls[0]?.resolve();
    expect(await Promise.all(probes)).toEqual(Array(100).fill(true));
    now = 499;
    expect(await readiness.check()).toBe(true);
    expect(calls).toHaveLength(1);
    now = 500;
    const next = readiness.check();
    expect(calls).toHaveLength(2);
    calls[1]?.reject(new Error('connection refused'));
    expect(await next).toBe(false);
    // A failure is reused too, and the next ping after it can bring readiness back.
    now = 700;
    expect(await readiness.check()).toBe(false);
    now = 1000;
    const back = readiness.check();
    calls[2]?.resolve();
    expect(await back).toBe(true);
  });

  it('answers not ready when the ping does not answer within timeoutMs, and sends no second ping meanwhile', async () => {
    vi.useFakeTimers();
    let now = 0;
    const { ping, calls } = controlledPing();
    const readiness = createReadiness({ ping, reuseMs: 500, timeoutMs: 1000, now: () => now });
    const first = readiness.check();
    calls[0]?.resolve();
    expect(await first).toBe(true);

    now = 500;
    const stalled = readiness.check();
    await vi.advanceTimersByTimeAsync(999);
    let answered: boolean | undefined;
    void stalled.then((r) => {
      answered = r;
    });
    await Promise.resolve();
    expect(answered).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(await stalled).toBe(false);
    expect(calls).toHaveLength(2);

    // The stalled ping is still out: later probes answer at once, without piling up pings.
    now = 2000;
    expect(await readiness.check()).toBe(false);
    now = 3000;
    expect(await readiness.check()).toBe(false);
    expect(calls).toHaveLength(2);

    // Once it settles (the database answers again), the next check pings afresh.
    calls[1]?.resolve();
    await vi.advanceTimersByTimeAsync(0);
    now = 4000;
    const recovered = readiness.check();
    expect(calls).toHaveLength(3);
    calls[2]?.resolve();
    expect(await recovered).toBe(true);
  });

  it('answers not ready from the moment shutdown begins, also to a probe waiting for a ping', async () => {
    let now = 0;
    const { ping, calls } = controlledPing();
    const readiness = createReadiness({ ping, now: () => now });
    const first = readiness.check();
    calls[0]?.resolve();
    expect(await first).toBe(true);
    now = 10_000;
    const waiting = readiness.check();
    expect(readiness.shuttingDown).toBe(false);
    readiness.shutDown();
    expect(readiness.shuttingDown).toBe(true);
    calls[1]?.resolve();
    expect(await waiting).toBe(false);
    expect(await readiness.check()).toBe(false);
    expect(calls).toHaveLength(2);
  });

  it('counts a ping that throws synchronously as down', async () => {
    const readiness = createReadiness({
      ping: () => {
        throw new Error('not connected');
      },
    });
    expect(await readiness.check()).toBe(false);
  });
});
