import { describe, expect, it } from 'vitest';
import { HELD_RECOVERY_SECONDS, MAX_HELD_ROWS_PER_PASS } from '../../mechanisms/mail/mail-outbox.js';
import { createMemoryStores } from '../../memory/memory-stores.js';
import type { TenantAuthStores } from '../../ports/tenant-auth-stores.js';
import { owner, setup } from '../../testing/test-helpers.js';

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

describe('"forgot password" leaves nothing behind its answer (docs/http-api.md, "Account recovery and email verification")', () => {
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
    // Both made the same one write (the request's durable copy) and told the hook nothing: both only held
    // the address.
    expect(seen).toEqual({
      'ada@example.com': { calls: ['outbox.enqueue'], events: 0 },
      'nobody@example.com': { calls: ['outbox.enqueue'], events: 0 },
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

  it('keeps the request in the database: an instance that dies holding it loses nothing, another one runs it once due', async () => {
    const stores = createMemoryStores();
    const dying = setup({ stores });
    await owner(dying.auth, 'ada@example.com');
    await dying.settle();
    await dying.auth.forgotPassword({ email: 'ada@example.com' }, { ipAddress: '203.0.113.7' });
    await dying.auth.forgotPassword({ email: 'nobody@example.com' }, { ipAddress: '203.0.113.7' });
    // The instance is gone before any pass of its own: what it held in memory is lost with it.
    const next = setup({ stores });
    // Not due yet: the instance holding it would have processed it long before.
    expect((await next.auth.deliverMail()).delivered).toBe(0);
    next.clock.advance(HELD_RECOVERY_SECONDS * 1000);
    expect((await next.auth.deliverMail()).delivered).toBe(1);
    expect(next.inbox.to('ada@example.com')).toHaveLength(1);
    expect(next.inbox.messages.map((m) => m.to)).toEqual(['ada@example.com']);
    const requested = next.events.filter((e) => e.type === 'password_reset_requested');
    expect(requested).toEqual([expect.objectContaining({ ipAddress: '203.0.113.7' })]);
    // Both copies are gone: nothing runs twice.
    expect(await next.auth.outboxCounts()).toMatchObject({ pending: 0, dead: 0 });
  });

  it('runs a request once when another instance ran its durable copy first (the holder was paused past its due time)', async () => {
    const stores = createMemoryStores();
    const holder = setup({ stores });
    await owner(holder.auth, 'ada@example.com');
    await holder.settle();
    holder.inbox.messages.length = 0;
    await holder.auth.forgotPassword({ email: 'ada@example.com' }, { ipAddress: '203.0.113.7' });
    // Another instance finds the durable copy due and runs it while the holder still has it in memory.
    const other = setup({ stores });
    other.clock.advance(HELD_RECOVERY_SECONDS * 1000);
    expect((await other.auth.deliverMail()).delivered).toBe(1);
    expect(other.inbox.to('ada@example.com')).toHaveLength(1);
    // The holder's own run then finds its copy gone: no second token, email or audit event.
    await holder.auth.whenIdle();
    await holder.auth.deliverMail();
    expect(holder.inbox.to('ada@example.com')).toHaveLength(0);
    const requested = [...holder.events, ...other.events].filter(
      (e) => e.type === 'password_reset_requested',
    );
    expect(requested).toHaveLength(1);
    expect(await holder.auth.outboxCounts()).toMatchObject({ pending: 0, dead: 0 });
  });

  it('drops a request whole when one network holds too many: no durable copy of it runs later, no mail is sent', async () => {
    const t = setup();
    await owner(t.auth, 'ada@example.com');
    await t.settle();
    t.inbox.messages.length = 0;
    const from = { ipAddress: '203.0.113.7' };
    for (let i = 0; i < 1_000; i++) await t.auth.forgotPassword({ email: `nobody-${i}@example.com` }, from);
    // The network's share is full: ada's request is dropped, and with it its durable copy.
    await t.auth.forgotPassword({ email: 'ada@example.com' }, from);
    expect((await t.auth.outboxCounts()).pending).toBe(1_000);
    await t.settle();
    for (let pass = 0; pass < 3; pass++) {
      t.clock.advance(HELD_RECOVERY_SECONDS * 1000);
      await t.auth.deliverMail();
    }
    expect(t.inbox.to('ada@example.com')).toHaveLength(0);
    expect(t.events.filter((e) => e.type === 'password_reset_requested')).toHaveLength(0);
    expect(await t.auth.outboxCounts()).toMatchObject({ pending: 0, dead: 0 });
  });

  it(`runs at most ${MAX_HELD_ROWS_PER_PASS} durable copies a delivery pass; the rest on later passes`, async () => {
    const stores = createMemoryStores();
    const dying = setup({ stores });
    const count = MAX_HELD_ROWS_PER_PASS + 50;
    for (let i = 0; i < count; i++)
      await dying.auth.forgotPassword(
        { email: `nobody-${i}@example.com` },
        { ipAddress: `198.51.100.${i % 200}` },
      );
    const next = setup({ stores });
    next.clock.advance(HELD_RECOVERY_SECONDS * 1000);
    await next.auth.deliverMail();
    expect((await next.auth.outboxCounts()).pending).toBe(count - MAX_HELD_ROWS_PER_PASS);
    // The rest stay leased for the lease's time, then a later pass runs them.
    next.clock.advance(121_000);
    await next.auth.deliverMail();
    expect((await next.auth.outboxCounts()).pending).toBe(0);
  });

  it('deletes the durable copy when the holding instance processes the request', async () => {
    const t = setup();
    await owner(t.auth, 'ada@example.com');
    await t.settle();
    t.inbox.messages.length = 0;
    await t.auth.forgotPassword({ email: 'nobody@example.com' });
    await t.auth.forgotPassword({ email: 'ada@example.com' });
    expect((await t.auth.outboxCounts()).pending).toBe(2);
    await t.auth.whenIdle();
    // The reset email of ada's request only: both requests' copies are deleted.
    expect((await t.auth.outboxCounts()).pending).toBe(1);
    await t.auth.deliverMail();
    t.clock.advance(HELD_RECOVERY_SECONDS * 1000);
    expect((await t.auth.deliverMail()).delivered).toBe(0);
    expect(t.inbox.to('ada@example.com')).toHaveLength(1);
  });
});
