import type { MailDeliveryResult } from '../../mechanisms/mail/mail-outbox.js';
import type { PasswordHasherStats } from '../../mechanisms/passwords/hasher.js';
import type { Services } from '../../mechanisms/services.js';
import type { OutboxCounts } from '../../ports/tenant-auth-stores.js';
import { configurationError } from '../../vocabulary/errors.js';
import { type CleanupResult, cleanUp, realPacing } from './cleanup.js';
import { type ResealResult, resealStoredValues } from './reseal.js';

/**
 * Work started by {@link TenantAuthMaintenance.startCleanup} or {@link TenantAuthMaintenance.startMailDelivery}: `stop` ends it
 * and resolves once the pass in flight has finished.
 *
 * @example
 * const delivery: ScheduledWork = auth.startMailDelivery();
 * process.once('SIGTERM', () => void delivery.stop());
 */
export interface ScheduledWork {
  stop(): Promise<void>;
}

/**
 * Load figures for gauges (metrics are read at scrape time).
 *
 * @example
 * const { hashing } = auth.stats();
 * hashingQueue.set(hashing.queued);
 */
export interface TenantAuthStats {
  /** The bounded password-hashing pool: running and waiting operations. */
  hashing: PasswordHasherStats;
}

/**
 * The part of `TenantAuth` that runs beside the requests: mail delivery, background work, load figures
 * and cleanup.
 *
 * @example
 * const maintenance: TenantAuthMaintenance = auth;
 * const delivery = maintenance.startMailDelivery();
 */
export interface TenantAuthMaintenance {
  /**
   * One delivery pass of the mail outbox, after processing the held "forgot password" requests (for a job
   * of your own; {@link TenantAuthMaintenance.startMailDelivery} runs it for you).
   */
  deliverMail(): Promise<MailDeliveryResult>;
  /**
   * Delivers the outbox on an unref'd timer (default every 5 seconds, each wait drawn between half and
   * the whole of it) and at once after each commit that wrote an email. Held "forgot password" requests
   * are processed on the timer's passes only, never on one a request caused. Several instances may run it
   * on one database: each message goes to one of them. `stop()` also writes the held requests to the
   * outbox. Throws `invalid_configuration` without `mail`.
   */
  startMailDelivery(options?: { intervalSeconds?: number }): ScheduledWork;
  /** The outbox backlog, for metrics and alerts. */
  outboxCounts(): Promise<OutboxCounts>;
  /**
   * Resolves once the work requests started without waiting for it is done, the held "forgot password"
   * requests included (their emails are then in the outbox), for up to 10 s of them: what is left stays
   * held for the delivery worker's next pass, so a shutdown never waits for a whole backlog.
   */
  whenIdle(): Promise<void>;
  /** Load figures for gauges. */
  stats(): TenantAuthStats;
  /**
   * Deletes expired sessions and revoked ones past retention, expired one-time tokens, audit events past
   * retention and long-dead outbox messages, in batches, resting after each full batch three times as long
   * as it took (a long pass spends at most a quarter of its time deleting). One pass at a time: a second
   * call while one runs gets the same result.
   *
   * @example
   * const { sessions } = await auth.cleanup();
   */
  cleanup(): Promise<CleanupResult>;
  /**
   * Runs {@link TenantAuthMaintenance.cleanup} on an unref'd timer (default every 10 minutes). `stop()` also ends
   * the pass in flight, whoever started it: it finishes the batch it is deleting, starts no other and cuts
   * a rest short, so shutdown waits for one batch at most.
   *
   * @example
   * const cleanup = auth.startCleanup({ intervalSeconds: 600 });
   * process.once('SIGTERM', () => void cleanup.stop());
   */
  startCleanup(options?: { intervalSeconds?: number }): ScheduledWork;
  /**
   * After a data-key rotation (a new `dataKeys.current`, the old key in `dataKeys.previous`): seals every
   * stored sealed value that names an older key (TOTP secrets, SSO connection secrets, outbox payloads)
   * with the current key, `batchSize` rows per transaction (default 500). Safe while the application
   * serves (each write is a compare-and-set on the value read) and to run again (values sealed with the
   * current key are left as they are). A value that opens with no configured key is counted and left
   * as it is; once a run reports none, the previous keys can be removed. Throws `invalid_configuration`
   * when the stores lack the optional verbs it needs.
   *
   * @example
   * const { totpSecrets, unopenableKeyIds } = await auth.resealStoredValues({ batchSize: 500 });
   */
  resealStoredValues(options?: { batchSize?: number }): Promise<ResealResult>;
}

/** @internal Mail delivery, background work, statistics and cleanup. */
export function createMaintenance(
  services: Services,
  options: {
    revokedSessionRetentionSeconds: number;
    auditRetentionSeconds: number;
    cleanupBatchSize: number;
  },
): TenantAuthMaintenance {
  const { stores, clock, logger, mail, background, hasher } = services;
  // The pass in flight, and what ends it: a scheduled cleanup's stop() aborts it (no further batch starts).
  let running: { result: Promise<CleanupResult>; abort: AbortController } | undefined;
  const cleanup = () => {
    if (!running) {
      const abort = new AbortController();
      const result = cleanUp(
        stores,
        clock,
        {
          revokedRetentionSeconds: options.revokedSessionRetentionSeconds,
          auditRetentionSeconds: options.auditRetentionSeconds,
          batchSize: options.cleanupBatchSize,
        },
        realPacing(abort.signal),
      ).finally(() => {
        running = undefined;
      });
      running = { result, abort };
    }
    return running.result;
  };
  return {
    async deliverMail() {
      if (!mail) return { delivered: 0, retried: 0, dead: 0 };
      await mail.runScheduledWork();
      return mail.deliver();
    },
    startMailDelivery({ intervalSeconds = 5 } = {}) {
      if (!mail)
        throw configurationError(
          'startMailDelivery',
          'mail',
          'is not configured (the mail option of createTenantAuth)',
        );
      if (!Number.isSafeInteger(intervalSeconds) || intervalSeconds < 1) {
        throw configurationError('startMailDelivery', 'intervalSeconds', 'must be a positive integer');
      }
      return mail.start(intervalSeconds);
    },
    outboxCounts: () => stores.outbox.counts(),
    async whenIdle() {
      await background.whenIdle();
      await mail?.runScheduledWork();
    },
    stats: () => ({ hashing: hasher.stats() }),
    cleanup,
    resealStoredValues: (resealOptions) => resealStoredValues(services, resealOptions),
    startCleanup({ intervalSeconds = 600 } = {}) {
      if (!Number.isSafeInteger(intervalSeconds) || intervalSeconds < 1) {
        throw configurationError('startCleanup', 'intervalSeconds', 'must be a positive integer');
      }
      const timer = setInterval(() => {
        cleanup().catch((err: unknown) => logger.warn({ err }, 'tenant-auth: scheduled cleanup failed'));
      }, intervalSeconds * 1000);
      timer.unref();
      return {
        async stop() {
          clearInterval(timer);
          running?.abort.abort();
          await running?.result.catch(() => {});
        },
      };
    },
  };
}
