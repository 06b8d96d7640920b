import type { Clock } from './clock.js';
import type { TenantAuthStores } from './stores/tenant-auth-stores.js';
import type { CleanupResult } from './tenant-auth.js';

/** How long a dead outbox message stays for inspection: a week. */
const DEAD_MAIL_RETENTION_SECONDS = 7 * 86_400;

/** Repeats a batch delete until a batch comes back short. */
async function inBatches(batchSize: number, deleteBatch: () => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await deleteBatch();
    total += deleted;
    if (deleted < batchSize) return total;
  }
}

/**
 * @internal The scheduled cleanup: expired sessions and revoked ones past their retention, expired
 * one-time tokens, audit events past their retention, dead outbox messages past a week. Batch by batch,
 * so no statement holds locks for long.
 */
export async function cleanUp(
  stores: TenantAuthStores,
  clock: Clock,
  settings: { revokedRetentionSeconds: number; auditRetentionSeconds: number; batchSize: number },
): Promise<CleanupResult> {
  const now = clock.now();
  const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000);
  const { batchSize } = settings;
  const sessions = await inBatches(batchSize, () =>
    stores.sessions.deleteExpired({
      expiredBefore: now,
      revokedBefore: ago(settings.revokedRetentionSeconds),
      batchSize,
    }),
  );
  const oneTimeTokens = await inBatches(batchSize, () =>
    stores.oneTimeTokens.deleteExpired({ expiredBefore: now, batchSize }),
  );
  const auditEvents = await inBatches(batchSize, () =>
    stores.auditEvents.deleteOlderThan({ before: ago(settings.auditRetentionSeconds), batchSize }),
  );
  const outboxMessages = await inBatches(batchSize, () =>
    stores.outbox.deleteDead({ deadBefore: ago(DEAD_MAIL_RETENTION_SECONDS), batchSize }),
  );
  return { sessions, oneTimeTokens, auditEvents, outboxMessages };
}
