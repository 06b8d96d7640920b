import { setTimeout as sleep } from 'node:timers/promises';
import type { CompleteTenantAuthStores } from '../../ports/tenant-auth-stores.js';
import type { Clock } from '../../vocabulary/clock.js';

/**
 * What one cleanup pass deleted.
 *
 * @example
 * const { sessions }: CleanupResult = await auth.cleanup();
 */
export interface CleanupResult {
  /** Expired sessions, and revoked ones past their retention. */
  sessions: number;
  /** Expired one-time tokens (invitations, links), MFA challenges (`mfaToken`s) and WebAuthn challenges. */
  oneTimeTokens: number;
  /** Audit events past their retention. */
  auditEvents: number;
  /** Outbox messages dead for more than a week. */
  outboxMessages: number;
  /**
   * API keys revoked or expired longer ago than the audit retention (always a number since 1.3; `0` with
   * a store that cannot delete them).
   */
  apiKeys?: number;
  /** Webhook deliveries (succeeded or failed) older than the audit retention (1.3; `0` without a webhook store). */
  webhookDeliveries?: number;
}

/** How long a dead outbox message stays for inspection: a week. */
const DEAD_MAIL_RETENTION_SECONDS = 7 * 86_400;

/**
 * @internal How a cleanup pass paces itself. Between two full batches it rests {@link REST_PER_BATCH}
 * times as long as the batch took, so a long pass (a million expired sessions after an outage) spends at
 * most a quarter of its time deleting and the requests meanwhile get the database's attention the rest of
 * the time; once `stopped`, the pass starts no further batch (on any table).
 */
export interface CleanupPacing {
  /** Monotonic milliseconds. */
  now(): number;
  rest(ms: number): Promise<void>;
  stopped(): boolean;
}

/**
 * @internal Rest after a full batch, in multiples of the time it took. In the cleanup benchmark, with no
 * rest the login p99 during a million-row cleanup was 1.26x and 1.72x the p99 without it; resting as long
 * as the batch, 1.67x; resting three times as long, 1.10x (runs whose quiet phase was itself disturbed
 * left out). The pass then takes four times its working time, which a job run every ten minutes affords.
 */
export const REST_PER_BATCH = 3;

/**
 * @internal Pacing on real time. Aborting `signal` stops the pass: a rest in progress ends at once, and no
 * further batch starts. A rest keeps the process alive like the pass's queries do (a script that awaits
 * `cleanup()` must not exit in the middle of it); stopping the schedule ends it.
 */
export function realPacing(signal?: AbortSignal): CleanupPacing {
  return {
    now: () => performance.now(),
    rest: (ms) => sleep(ms, undefined, signal ? { signal } : {}).catch(() => {}),
    stopped: () => signal?.aborted === true,
  };
}

/** Repeats a batch delete until a batch comes back short or the pass is stopped, resting between batches. */
async function inBatches(
  batchSize: number,
  pacing: CleanupPacing,
  deleteBatch: () => Promise<number>,
): Promise<number> {
  let total = 0;
  while (!pacing.stopped()) {
    const started = pacing.now();
    const deleted = await deleteBatch();
    total += deleted;
    if (deleted < batchSize || pacing.stopped()) break;
    await pacing.rest((pacing.now() - started) * REST_PER_BATCH);
  }
  return total;
}

/**
 * @internal The scheduled cleanup: expired sessions and revoked ones past their retention, expired
 * one-time tokens, audit events past their retention, dead outbox messages past a week, API keys revoked
 * or expired before the audit retention. Batch by batch,
 * so no statement holds locks for long, paced by `pacing` (see {@link CleanupPacing}).
 */
export async function cleanUp(
  stores: CompleteTenantAuthStores,
  clock: Clock,
  settings: { revokedRetentionSeconds: number; auditRetentionSeconds: number; batchSize: number },
  pacing: CleanupPacing = realPacing(),
): Promise<CleanupResult> {
  const now = clock.now();
  const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000);
  const { batchSize } = settings;
  const sessions = await inBatches(batchSize, pacing, () =>
    stores.sessions.deleteExpired({
      expiredBefore: now,
      revokedBefore: ago(settings.revokedRetentionSeconds),
      batchSize,
    }),
  );
  const oneTimeTokens =
    (await inBatches(batchSize, pacing, () =>
      stores.oneTimeTokens.deleteExpired({ expiredBefore: now, batchSize }),
    )) +
    (await inBatches(batchSize, pacing, () =>
      stores.factors.deleteExpiredChallenges({ expiredBefore: now, batchSize }),
    )) +
    (await inBatches(batchSize, pacing, () =>
      stores.passkeys.deleteExpiredChallenges({ expiredBefore: now, batchSize }),
    )) +
    (await inBatches(batchSize, pacing, async () =>
      stores.sso.deleteExpiredUsedOnce
        ? stores.sso.deleteExpiredUsedOnce({ expiredBefore: now, batchSize })
        : 0,
    ));
  const auditEvents = await inBatches(batchSize, pacing, () =>
    stores.auditEvents.deleteOlderThan({ before: ago(settings.auditRetentionSeconds), batchSize }),
  );
  const outboxMessages = await inBatches(batchSize, pacing, () =>
    stores.outbox.deleteDead({ deadBefore: ago(DEAD_MAIL_RETENTION_SECONDS), batchSize }),
  );
  // A key stays while audit events may name it; after that, a revoked or expired key is of no use.
  const apiKeyStore = stores.apiKeys;
  const apiKeys = apiKeyStore.deleteRetired
    ? await inBatches(
        batchSize,
        pacing,
        () =>
          apiKeyStore.deleteRetired?.({ before: ago(settings.auditRetentionSeconds), batchSize }) ??
          Promise.resolve(0),
      )
    : 0;
  const webhookDeliveries = await inBatches(batchSize, pacing, () =>
    stores.webhooks.deleteDeliveriesOlderThan({ before: ago(settings.auditRetentionSeconds), batchSize }),
  );
  return { sessions, oneTimeTokens, auditEvents, outboxMessages, apiKeys, webhookDeliveries };
}
