import { at, outboxMessage } from '../fixtures.js';
import { type ConformanceContext, Rollback } from './context.js';

/**
 * @internal Conformance cases of `outbox`. The outbox serves every tenant (delivery is not a tenant's
 * business), so its cases have no other-tenant variant; what they check is that a message is neither
 * lost nor handed to two claimants.
 */
export function outboxCases({ test, stores }: ConformanceContext): void {
  const { describe, it, expect } = test;
  const outbox = () => stores().outbox;
  const lease = 60;

  describe('outbox', () => {
    it('claims due messages oldest first, up to the limit, counting an attempt and locking them', async () => {
      const a = outboxMessage({ nextAttemptAt: at(2) });
      const b = outboxMessage({ nextAttemptAt: at(1) });
      const c = outboxMessage({ nextAttemptAt: at(3) });
      const later = outboxMessage({ nextAttemptAt: at(10_000) });
      for (const m of [a, b, c, later]) await outbox().enqueue(m);
      const claimed = await outbox().claim({ now: at(5), limit: 2, leaseSeconds: lease });
      expect(claimed).toEqual([
        { ...b, attempts: 1, lockedUntil: at(5 + lease * 1000) },
        { ...a, attempts: 1, lockedUntil: at(5 + lease * 1000) },
      ]);
      const rest = await outbox().claim({ now: at(5), limit: 10, leaseSeconds: lease });
      expect(rest.map((m) => m.id)).toEqual([c.id]);
      expect(await outbox().claim({ now: at(6), limit: 10, leaseSeconds: lease })).toEqual([]);
    });

    it('hands a claimed message out again only once its lease has run out (a crashed claimant)', async () => {
      const m = outboxMessage();
      await outbox().enqueue(m);
      expect(await outbox().claim({ now: at(0), limit: 5, leaseSeconds: lease })).toHaveLength(1);
      expect(await outbox().claim({ now: at(lease * 1000 - 1), limit: 5, leaseSeconds: lease })).toEqual([]);
      const again = await outbox().claim({ now: at(lease * 1000 + 1), limit: 5, leaseSeconds: lease });
      expect(again).toEqual([{ ...m, attempts: 2, lockedUntil: at(2 * lease * 1000 + 1) }]);
    });

    it('never hands one message to two concurrent claims', async () => {
      const messages = Array.from({ length: 30 }, (_, i) => outboxMessage({ nextAttemptAt: at(i) }));
      for (const m of messages) await outbox().enqueue(m);
      const claims = await Promise.all(
        Array.from({ length: 6 }, () => outbox().claim({ now: at(100), limit: 10, leaseSeconds: lease })),
      );
      const ids = claims.flat().map((m) => m.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.length).toBeLessThanOrEqual(30);
      // Whatever a claim skipped because another held it is still there for the next one.
      const rest = await outbox().claim({ now: at(100), limit: 30, leaseSeconds: lease });
      expect(ids.length + rest.length).toBe(30);
    });

    it('deletes a delivered message, and retries a failed one no earlier than asked', async () => {
      const done = outboxMessage();
      const failing = outboxMessage();
      await outbox().enqueue(done);
      await outbox().enqueue(failing);
      await outbox().claim({ now: at(0), limit: 5, leaseSeconds: lease });
      expect(await outbox().complete(done.id)).toBe(true);
      expect(await outbox().complete(done.id)).toBe(false);
      expect(await outbox().retry(failing.id, { nextAttemptAt: at(30_000), error: 'ECONNREFUSED' })).toBe(
        true,
      );
      expect(await outbox().claim({ now: at(29_999), limit: 5, leaseSeconds: lease })).toEqual([]);
      expect(await outbox().claim({ now: at(30_000), limit: 5, leaseSeconds: lease })).toEqual([
        {
          ...failing,
          attempts: 2,
          lastError: 'ECONNREFUSED',
          nextAttemptAt: at(30_000),
          lockedUntil: at(30_000 + lease * 1000),
        },
      ]);
      expect(await outbox().complete('not-a-uuid')).toBe(false);
    });

    it('buries a message that keeps failing: never claimed again, counted, cleaned up', async () => {
      const dead = outboxMessage({ createdAt: at(0) });
      const pending = outboxMessage({ createdAt: at(7) });
      await outbox().enqueue(dead);
      await outbox().enqueue(pending);
      expect(await outbox().counts()).toEqual({ pending: 2, dead: 0, oldestPendingAt: at(0) });
      expect(await outbox().bury(dead.id, { at: at(50), error: '550 mailbox unavailable' })).toBe(true);
      expect(await outbox().counts()).toEqual({ pending: 1, dead: 1, oldestPendingAt: at(7) });
      const claimed = await outbox().claim({ now: at(100), limit: 5, leaseSeconds: lease });
      expect(claimed.map((m) => m.id)).toEqual([pending.id]);
      expect(await outbox().deleteDead({ deadBefore: at(50), batchSize: 10 })).toBe(0);
      expect(await outbox().deleteDead({ deadBefore: at(51), batchSize: 10 })).toBe(1);
      expect(await outbox().counts()).toEqual({ pending: 1, dead: 0, oldestPendingAt: at(7) });
      expect(await outbox().bury(dead.id, { at: at(60), error: 'x' })).toBe(false);
    });

    it('keeps a buried message dead: a late retry does not bring it back', async () => {
      const m = outboxMessage();
      await outbox().enqueue(m);
      await outbox().claim({ now: at(0), limit: 5, leaseSeconds: lease });
      expect(await outbox().bury(m.id, { at: at(1), error: 'too many attempts' })).toBe(true);
      expect(await outbox().retry(m.id, { nextAttemptAt: at(2), error: 'x' })).toBe(false);
      expect(await outbox().claim({ now: at(10 * lease * 1000), limit: 5, leaseSeconds: lease })).toEqual([]);
      expect(await outbox().counts()).toMatchObject({ dead: 1, pending: 0 });
    });

    it('writes nothing when the transaction that enqueued rolls back', async () => {
      await expect(
        stores().transaction(async (tx) => {
          await tx.outbox.enqueue(outboxMessage());
          throw new Rollback('the token write failed');
        }),
      ).rejects.toBeInstanceOf(Rollback);
      expect(await outbox().counts()).toEqual({ pending: 0, dead: 0, oldestPendingAt: null });
    });
  });
}
