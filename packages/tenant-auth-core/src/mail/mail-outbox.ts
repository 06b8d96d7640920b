import type { Clock, RandomBytes } from '../clock.js';
import { uuidv7 } from '../ids.js';
import type { Logger } from '../logger.js';
import type { OutboxMessageRecord } from '../records.js';
import type { TenantAuthStores, TransactionStores } from '../stores/tenant-auth-stores.js';
import type { Mailer } from './mailer.js';
import type { MailSeal } from './sealing.js';
import type { MailContent, MailTemplateData, MailTemplateName, MailTemplates } from './templates.js';

/** @internal The resolved `mail` option. */
export interface MailSettings {
  mailer: Mailer;
  from: string;
  /** Without a trailing slash. */
  appUrl: string;
  templates: MailTemplates;
  maxAttempts: number;
}

/**
 * What happened to one delivery attempt: `delivered`, `retry` (failed; tried again later) or `dead`
 * (failed for the last time, or could not be opened).
 *
 * @example
 * const onMailDelivery = ({ template, outcome }: MailDeliveryOutcome) => mailDeliveries.inc({ template, outcome });
 */
export interface MailDeliveryOutcome {
  template: string;
  outcome: 'delivered' | 'retry' | 'dead';
}

/**
 * What one delivery pass did.
 *
 * @example
 * const { delivered, retried, dead }: MailDeliveryResult = await auth.deliverMail();
 */
export interface MailDeliveryResult {
  delivered: number;
  retried: number;
  dead: number;
}

/** Messages one pass claims at most. */
const CLAIM_LIMIT = 20;
/** How long a claim holds a message: longer than any send should take, so a slow send is not repeated. */
const LEASE_SECONDS = 120;
/** Back-off after the first failure, doubling per attempt up to an hour, with ±20 % jitter. */
const FIRST_RETRY_SECONDS = 30;
const MAX_RETRY_SECONDS = 3600;

/** @internal The delay before attempt `attempts + 1`, after `attempts` failed. */
export function retryDelaySeconds(attempts: number, jitter: number): number {
  const base = Math.min(MAX_RETRY_SECONDS, FIRST_RETRY_SECONDS * 2 ** Math.max(0, attempts - 1));
  return Math.round(base * (0.8 + 0.4 * jitter));
}

/** A delivery error, summarised for the outbox row and the log: never the message itself. */
function summarise(err: unknown): string {
  const e = err as { code?: unknown; responseCode?: unknown; message?: unknown };
  const parts = [e?.code, e?.responseCode, typeof e?.message === 'string' ? e.message : String(err)];
  return parts
    .filter((p) => p !== undefined && p !== null && p !== '')
    .join(' ')
    .slice(0, 500);
}

/** @internal The mail outbox: writing messages in a transaction, and delivering them afterwards. */
export interface MailOutbox {
  /** The link of an email: `appUrl + path + "?token=" + token`. */
  link(path: string, token: string): string;
  /** Renders, seals and writes a message through the stores of the caller's transaction. */
  enqueue<K extends MailTemplateName>(
    tx: TransactionStores,
    message: { template: K; to: string; tenantId: string | null; data: MailTemplateData[K] },
  ): Promise<void>;
  /** One pass: claims the due messages and sends them. */
  deliver(): Promise<MailDeliveryResult>;
  /** Asks a running delivery loop for a pass now (after a commit that enqueued). */
  wake(): void;
  /**
   * Work for the timer's passes only (never for a pass a request woke): held requests whose processing
   * must not follow the request that made them (a "forgot password").
   */
  onScheduledPass(task: () => Promise<void>): void;
  /**
   * Delivers on a timer, at `intervalSeconds` with jitter (half to the whole of it, so the passes are not
   * predictable from outside), and at once when woken; `stop` waits for the pass in flight.
   */
  start(intervalSeconds: number): { stop(): Promise<void> };
}

/** What the outbox works with. */
interface MailOutboxDeps {
  settings: MailSettings;
  seal: MailSeal;
  stores: TenantAuthStores;
  clock: Clock;
  random: RandomBytes;
  logger: Logger;
  onDelivery: ((outcome: MailDeliveryOutcome) => void) | undefined;
}

/**
 * `MailOutbox.deliver`: claims the due messages batch by batch and sends each, retrying or burying the
 * ones that fail, and reports every outcome to `onDelivery`.
 */
function createDelivery(deps: MailOutboxDeps): MailOutbox['deliver'] {
  const { settings, seal, stores, clock, random, logger } = deps;
  const report = (template: string, outcome: MailDeliveryOutcome['outcome']) => {
    try {
      deps.onDelivery?.({ template, outcome });
    } catch {
      // Metrics must not break delivery.
    }
  };

  async function deliverOne(message: OutboxMessageRecord): Promise<MailDeliveryOutcome['outcome']> {
    let content: ReturnType<MailSeal['open']>;
    try {
      content = seal.open(message.payload, message);
    } catch (err) {
      // Sealed under another secret (rotated since) or altered: no attempt can ever open it.
      await stores.outbox.bury(message.id, { at: clock.now(), error: 'the payload cannot be opened' });
      logger.error(
        { err, messageId: message.id, template: message.template },
        'tenant-auth: an outbox message cannot be opened (was the refresh secret rotated, or the row altered?); it is dead',
      );
      return 'dead';
    }
    try {
      await settings.mailer.send({ from: settings.from, to: message.to, ...content });
    } catch (err) {
      const error = summarise(err);
      if (message.attempts >= settings.maxAttempts) {
        await stores.outbox.bury(message.id, { at: clock.now(), error });
        logger.error(
          { messageId: message.id, template: message.template, attempts: message.attempts, error },
          'tenant-auth: an email could not be delivered and will not be tried again',
        );
        return 'dead';
      }
      const delay = retryDelaySeconds(message.attempts, (random(1)[0] ?? 128) / 255);
      await stores.outbox.retry(message.id, {
        nextAttemptAt: new Date(clock.now().getTime() + delay * 1000),
        error,
      });
      logger.warn(
        {
          messageId: message.id,
          template: message.template,
          attempts: message.attempts,
          retryInSeconds: delay,
          error,
        },
        'tenant-auth: email delivery failed; it will be retried',
      );
      return 'retry';
    }
    await stores.outbox.complete(message.id);
    return 'delivered';
  }

  async function deliver(): Promise<MailDeliveryResult> {
    const result = { delivered: 0, retried: 0, dead: 0 };
    for (;;) {
      const batch = await stores.outbox.claim({
        now: clock.now(),
        limit: CLAIM_LIMIT,
        leaseSeconds: LEASE_SECONDS,
      });
      for (const message of batch) {
        const outcome = await deliverOne(message);
        report(message.template, outcome);
        if (outcome === 'delivered') result.delivered++;
        else if (outcome === 'retry') result.retried++;
        else result.dead++;
      }
      if (batch.length < CLAIM_LIMIT) return result;
    }
  }

  return deliver;
}

/** @internal */
export function createMailOutbox(deps: MailOutboxDeps): MailOutbox {
  const { settings, seal, clock, random, logger } = deps;
  const deliver = createDelivery(deps);
  let wakeUp: (() => void) | undefined;
  let scheduledTask: () => Promise<void> = async () => {};

  return {
    link: (path, token) => `${settings.appUrl}${path}?token=${token}`,
    async enqueue(tx, { template, to, tenantId, data }) {
      const render = settings.templates[template] as unknown as (d: typeof data) => MailContent;
      const now = clock.now();
      const id = uuidv7(clock, random);
      await tx.outbox.enqueue({
        id,
        tenantId,
        template,
        to,
        payload: seal.seal(render(data), { id, to, template }),
        createdAt: now,
        attempts: 0,
        nextAttemptAt: now,
        lockedUntil: null,
        lastError: null,
        deadAt: null,
      });
    },
    deliver,
    wake: () => wakeUp?.(),
    onScheduledPass(task) {
      scheduledTask = task;
    },
    start(intervalSeconds) {
      const wake = () => loop.run(false);
      const loop = deliveryLoop({
        intervalSeconds,
        deliver,
        scheduledTask: () => scheduledTask(),
        random,
        logger,
        onStop: () => {
          if (wakeUp === wake) wakeUp = undefined;
        },
      });
      wakeUp = wake;
      loop.run(true);
      return { stop: loop.stop };
    },
  };
}

/**
 * The loop of `MailOutbox.start`: a pass at once, then one per timer tick (at half to the whole interval,
 * drawn anew each time, so a pass's time says nothing about when a request came), and one at once when
 * woken. Timer passes run `scheduledTask` first (the held requests); woken passes only deliver.
 */
function deliveryLoop(deps: {
  intervalSeconds: number;
  deliver: () => Promise<MailDeliveryResult>;
  scheduledTask: () => Promise<void>;
  random: RandomBytes;
  logger: Logger;
  onStop: () => void;
}) {
  const { intervalSeconds, deliver, scheduledTask, random, logger } = deps;
  let stopped = false;
  let pending = false;
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  const nextDelayMs = () => intervalSeconds * 1000 * (0.5 + 0.5 * ((random(1)[0] ?? 255) / 255));
  const run = (scheduled: boolean) => {
    if (stopped) return;
    if (running) {
      pending = true;
      return;
    }
    clearTimeout(timer);
    const held = scheduled
      ? scheduledTask().catch((err: unknown) =>
          logger.warn({ err }, 'tenant-auth: held requests could not be processed; retrying'),
        )
      : Promise.resolve();
    running = held
      .then(deliver)
      .then(() => undefined)
      .catch((err: unknown) => logger.warn({ err }, 'tenant-auth: a mail delivery pass failed; retrying'))
      .finally(() => {
        running = undefined;
        if (stopped) return;
        if (pending) {
          pending = false;
          run(false);
          return;
        }
        timer = setTimeout(() => run(true), nextDelayMs());
        timer.unref();
      });
  };
  return {
    run,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      deps.onStop();
      await running;
      // What requests left held goes to the outbox, for this instance on restart or another one.
      await scheduledTask().catch((err: unknown) =>
        logger.warn({ err }, 'tenant-auth: held requests could not be processed at stop'),
      );
    },
  };
}
