import type { AuditEventStore } from '../ports/tenant-auth-stores.js';
import { checkBatchSize, copy, type Run } from './memory-run.js';

/** @internal */
export function memoryAuditEventStore(run: Run): AuditEventStore {
  return {
    append: (event) =>
      run((s) => {
        if (s.auditEvents.has(event.id)) throw new TypeError('duplicate audit event id');
        if (!s.tenants.has(event.tenantId)) throw new TypeError('the tenant of the event does not exist');
        s.auditEvents.set(event.id, copy(event));
      }),
    list: (tenantId, { limit, before, type, userId }) =>
      run((s) => {
        checkBatchSize(limit);
        return [...s.auditEvents.values()]
          .filter(
            (e) =>
              e.tenantId === tenantId &&
              (before === undefined || e.id < before) &&
              (type === undefined || e.type === type) &&
              (userId === undefined || e.actorId === userId || e.subjectId === userId),
          )
          .sort((a, b) => (a.id < b.id ? 1 : -1))
          .slice(0, limit)
          .map(copy);
      }),
    deleteOlderThan: ({ before, batchSize }) =>
      run((s) => {
        checkBatchSize(batchSize);
        const doomed = [...s.auditEvents.values()]
          .filter((e) => e.at < before)
          .sort((a, b) => a.at.getTime() - b.at.getTime())
          .slice(0, batchSize);
        for (const e of doomed) s.auditEvents.delete(e.id);
        return doomed.length;
      }),
  };
}
