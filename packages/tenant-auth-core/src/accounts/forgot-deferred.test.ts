import { describe, expect, it } from 'vitest';
import { createMemoryStores } from '../stores/memory/memory-stores.js';
import type { TenantAuthStores } from '../stores/tenant-auth-stores.js';
import { owner, setup } from '../test-helpers.js';

/** The memory stores, recording every store call (`users.findByEmail`, `transaction`, ...) made through them. */
function recordingStores() {
  const calls: string[] = [];
  const watch = <T extends object>(group: string, target: T): T =>
    new Proxy(target, {
      get(obj, key, receiver) {
        const value = Reflect.get(obj, key, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          calls.push(`${group}.${String(key)}`);
          return (value as (...a: unknown[]) => unknown).apply(obj, args);
        };
      },
    });
  const real = createMemoryStores();
  const groups = ['tenants', 'users', 'sessions', 'oneTimeTokens', 'outbox', 'auditEvents'] as const;
  const wrap = <S extends object>(stores: S): S => {
    const out = { ...stores } as Record<string, unknown>;
    for (const g of groups) out[g] = watch(g, (stores as Record<string, object>)[g] as object);
    return out as S;
  };
  const stores: TenantAuthStores = {
    ...wrap(real),
    transaction: (fn) => {
      calls.push('transaction');
      return real.transaction((tx) => fn(wrap(tx)));
    },
  };
  return { stores, calls };
}

/** Lets every timer and callback that is due run (what would follow the answer on the event loop). */
const afterTheAnswer = () => new Promise((resolve) => setTimeout(resolve, 50));

describe('"forgot password" leaves nothing behind its answer (issue 28, item 3)', () => {
  it('does no work for a known address in the request nor right after it, exactly as for an unknown one', async () => {
    const { stores, calls } = recordingStores();
    const t = setup({ stores });
    await owner(t.auth, 'ada@example.com');
    await t.settle();
    t.inbox.messages.length = 0;
    // The delivery worker runs, with a long interval: only a request that woke it would make it work now.
    const delivery = t.auth.startMailDelivery({ intervalSeconds: 3600 });
    await afterTheAnswer();
    const seen: Record<string, { calls: string[]; events: number }> = {};
    for (const email of ['ada@example.com', 'nobody@example.com']) {
      calls.length = 0;
      const events = t.events.length;
      await t.auth.forgotPassword({ email }, { ipAddress: '203.0.113.7' });
      await afterTheAnswer();
      seen[email] = { calls: [...calls], events: t.events.length - events };
    }
    // Neither touched a store nor told the hook anything: both only held the address.
    expect(seen).toEqual({
      'ada@example.com': { calls: [], events: 0 },
      'nobody@example.com': { calls: [], events: 0 },
    });
    expect(t.inbox.messages).toEqual([]);
    await delivery.stop();
    // The worker (here its stop, which writes what is held to the outbox) does the work, for both.
    expect(calls).toContain('users.findByEmail');
    await t.auth.deliverMail();
    expect(t.inbox.messages.map((m) => m.to)).toEqual(['ada@example.com']);
  });

  it('is processed by a pass of the delivery worker, by deliverMail, and by whenIdle', async () => {
    const t = setup();
    await owner(t.auth, 'ada@example.com');
    await t.settle();
    t.inbox.messages.length = 0;
    await t.auth.forgotPassword({ email: 'ada@example.com' });
    expect((await t.auth.deliverMail()).delivered).toBe(1);
    await t.auth.forgotPassword({ email: 'ada@example.com' });
    await t.auth.whenIdle();
    expect((await t.auth.outboxCounts()).pending).toBe(1);
  });

  it('sends the reset email on the timer even when other mail wakes the worker more often than that', async () => {
    const t = setup();
    await owner(t.auth, 'ada@example.com');
    await t.settle();
    t.inbox.messages.length = 0;
    const delivery = t.auth.startMailDelivery({ intervalSeconds: 1 });
    await t.auth.forgotPassword({ email: 'ada@example.com' });
    // A registration (and its verification email, which wakes the worker) every 300 ms for 6 s: a wake
    // that put the timer off would keep the held request waiting the whole time.
    const resets = () => t.inbox.to('ada@example.com').length;
    for (let i = 0; i < 20 && resets() === 0; i++) {
      await owner(t.auth, `user${i}@example.com`);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    expect(resets()).toBe(1);
    await delivery.stop();
  }, 15_000);

  it('keeps a bounded copy of the request context while it holds the request', async () => {
    const t = setup();
    await owner(t.auth, 'ada@example.com');
    await t.settle();
    await t.auth.forgotPassword(
      { email: 'ada@example.com' },
      { ipAddress: '203.0.113.7', userAgent: 'x'.repeat(16 * 1024), requestId: 'r'.repeat(1000) },
    );
    await t.auth.whenIdle();
    const event = t.events.find((e) => e.type === 'password_reset_requested');
    expect(event?.userAgent).toHaveLength(512);
    expect(event?.requestId?.length).toBeLessThanOrEqual(200);
    expect(event?.ipAddress).toBe('203.0.113.7');
  });

  it('makes the writes of a reset for an unknown address too, in a transaction it rolls back', async () => {
    const { stores, calls } = recordingStores();
    const t = setup({ stores });
    await owner(t.auth, 'ada@example.com');
    await t.settle();
    const before = { events: t.events.length, outbox: await t.auth.outboxCounts() };
    const pass: Record<string, string[]> = {};
    for (const email of ['nobody@example.com', 'ada@example.com']) {
      await t.auth.forgotPassword({ email }, { ipAddress: '203.0.113.7' });
      calls.length = 0;
      await t.auth.whenIdle();
      pass[email] = [...calls];
      if (email === 'nobody@example.com') {
        // Nothing of it is kept: no email, no event, no tenant.
        expect(t.events.length).toBe(before.events);
        expect(await t.auth.outboxCounts()).toEqual(before.outbox);
      }
    }
    // The same statements, and one more: the tenant the rehearsal writes for.
    expect(pass['nobody@example.com']?.filter((c) => c !== 'tenants.create')).toEqual(
      pass['ada@example.com'],
    );
    expect(pass['nobody@example.com']).toContain('outbox.enqueue');
    expect(t.events.at(-1)?.type).toBe('password_reset_requested');
  });
});
