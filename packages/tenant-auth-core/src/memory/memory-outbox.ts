import type { OutboxStore } from '../ports/tenant-auth-stores.js';
import { checkBatchSize, copy, pageOf, type Run } from './memory-run.js';

/** @internal */
export function memoryOutboxStore(run: Run): OutboxStore {
  return {
    enqueue: (message) =>
      run((s) => {
        if (s.outbox.has(message.id)) throw new TypeError('duplicate outbox message id');
        s.outbox.set(message.id, copy(message));
      }),
    claim: ({ now, limit, leaseSeconds }) =>
      run((s) => {
        checkBatchSize(limit);
        const lockedUntil = new Date(now.getTime() + leaseSeconds * 1000);
        const due = [...s.outbox.values()]
          .filter(
            (m) =>
              m.deadAt === null && m.nextAttemptAt <= now && (m.lockedUntil === null || m.lockedUntil <= now),
          )
          .sort((a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime() || (a.id < b.id ? -1 : 1))
          .slice(0, limit);
        return due.map((m) => {
          const claimed = { ...m, attempts: m.attempts + 1, lockedUntil };
          s.outbox.set(m.id, claimed);
          return copy(claimed);
        });
      }),
    complete: (id) => run((s) => s.outbox.delete(id)),
    listSealedPayloads: (page) =>
      run((s) =>
        pageOf(
          [...s.outbox.values()].filter((m) => m.deadAt === null && m.payload !== ''),
          (m) => m.id,
          page,
        ).map(({ id, template, to, payload }) => ({ id, template, to, payload })),
      ),
    resealPayload: (id, expected, payload) =>
      run((s) => {
        const message = s.outbox.get(id);
        if (!message || message.deadAt !== null || message.payload !== expected) return false;
        s.outbox.set(id, { ...message, payload });
        return true;
      }),
    retry: (id, { nextAttemptAt, error }) =>
      run((s) => {
        const m = s.outbox.get(id);
        if (!m || m.deadAt !== null) return false;
        s.outbox.set(id, {
          ...m,
          nextAttemptAt: new Date(nextAttemptAt),
          lastError: error,
          lockedUntil: null,
        });
        return true;
      }),
    bury: (id, { at, error }) =>
      run((s) => {
        const m = s.outbox.get(id);
        if (!m || m.deadAt !== null) return false;
        s.outbox.set(id, { ...m, deadAt: new Date(at), lastError: error, lockedUntil: null, payload: '' });
        return true;
      }),
    counts: () =>
      run((s) => {
        let pending = 0;
        let dead = 0;
        let oldestPendingAt: Date | null = null;
        for (const m of s.outbox.values()) {
          if (m.deadAt !== null) {
            dead++;
            continue;
          }
          pending++;
          if (oldestPendingAt === null || m.createdAt < oldestPendingAt) oldestPendingAt = m.createdAt;
        }
        return { pending, dead, oldestPendingAt: oldestPendingAt && new Date(oldestPendingAt) };
      }),
    deleteDead: ({ deadBefore, batchSize }) =>
      run((s) => {
        checkBatchSize(batchSize);
        const doomed = [...s.outbox.values()]
          .filter((m) => m.deadAt !== null && m.deadAt < deadBefore)
          .slice(0, batchSize);
        for (const m of doomed) s.outbox.delete(m.id);
        return doomed.length;
      }),
  };
}
