import type { MailDeliveryOutcome } from '../../ports/instrumentation.js';
import type { Logger } from '../../ports/logger.js';
import type { Mailer } from '../../ports/mailer.js';
import type { CompleteTenantAuthStores, CompleteTransactionStores } from '../../ports/tenant-auth-stores.js';
import type { Clock, RandomBytes } from '../../vocabulary/clock.js';
import { uuidv7 } from '../../vocabulary/ids.js';
import type { OutboxMessageRecord } from '../../vocabulary/records.js';
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
/** The template of an outbox row that is a held request, not an email: `held:<kind>`. */
const HELD_PREFIX = 'held:';
/**
 * How long the durable copy of a held request waits before any delivery pass may claim it: far longer
 * than the instance holding it takes (its next timer passes, seconds), so it is claimed only when that
 * instance died first.
 */
export const HELD_RECOVERY_SECONDS = 600;
/**
 * @internal Durable copies of held requests one delivery pass runs at most (each is a lookup and a
 * transaction): a backlog a dead instance left (up to its caps, thousands) is worked off over several
 * passes instead of making one pass, and a shutdown waiting for it, unbounded. Those claimed beyond it stay
 * leased, claimed again by a pass once the lease ends.
 */
export const MAX_HELD_ROWS_PER_PASS = 100;

/** @internal A held request as its handler gets it: the outbox row's id, its recipient and its data. */
export interface HeldRequest {
  id: string;
  to: string;
  data: Record<string, unknown>;
}

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
    tx: CompleteTransactionStores,
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
  /** Runs that work now, outside the timer (`deliverMail`, `whenIdle`). */
  runScheduledWork(): Promise<void>;
  /**
   * Writes the durable copy of a held request of `kind` for `to`: an outbox row (sealed, never sent as an
   * email), not due for {@link HELD_RECOVERY_SECONDS}. The instance holding the request deletes the row
   * when it processes it (`outbox.complete(id)`); had it died first, the delivery pass of whichever
   * instance claims the row once due runs it with the handler `onHeldRequest` gave. Resolves to its id.
   */
  holdRequest(kind: string, to: string, data: Record<string, unknown>): Promise<string>;
  /** The handler of the held requests of `kind` found in the outbox (see `holdRequest`). */
  onHeldRequest(kind: string, handler: (request: HeldRequest) => Promise<void>): void;
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
  stores: CompleteTenantAuthStores;
  clock: Clock;
  random: RandomBytes;
  logger: Logger;
  onDelivery: ((outcome: MailDeliveryOutcome) => void) | undefined;
}

/**
 * `MailOutbox.deliver`: claims the due messages batch by batch and sends each, retrying or burying the
 * ones that fail, and reports every outcome to `onDelivery`.
 */
function createDelivery(
  deps: MailOutboxDeps,
  heldHandlers: ReadonlyMap<string, (request: HeldRequest) => Promise<void>>,
): MailOutbox['deliver'] {
  const { settings, seal, stores, clock, random, logger } = deps;
  const report = (template: string, outcome: MailDeliveryOutcome['outcome']) => {
    try {
      deps.onDelivery?.({ template, outcome });
    } catch {
      // Metrics must not break delivery.
    }
  };

  /** Runs a held request a dead instance left (see `holdRequest`), then deletes its row. */
  async function runHeld(message: OutboxMessageRecord): Promise<void> {
    const kind = message.template.slice(HELD_PREFIX.length);
    const handler = heldHandlers.get(kind);
    let data: Record<string, unknown>;
    try {
      if (!handler) throw new Error(`no handler for held requests of kind ${kind}`);
      data = seal.openData(message.payload, message) as Record<string, unknown>;
    } catch (err) {
      await stores.outbox.bury(message.id, { at: clock.now(), error: 'the held request cannot be run' });
      logger.error(
        { err, messageId: message.id, kind },
        'tenant-auth: a held request cannot be run; it is dead',
      );
      return;
    }
    try {
      await handler({ id: message.id, to: message.to, data });
      await stores.outbox.complete(message.id);
    } catch (err) {
      const error = summarise(err);
      if (message.attempts >= settings.maxAttempts) {
        await stores.outbox.bury(message.id, { at: clock.now(), error });
        return;
      }
      const delay = retryDelaySeconds(message.attempts, (random(1)[0] ?? 128) / 255);
      await stores.outbox.retry(message.id, {
        nextAttemptAt: new Date(clock.now().getTime() + delay * 1000),
        error,
      });
      logger.warn(
        { messageId: message.id, kind, error },
        'tenant-auth: a held request failed; it will be retried',
      );
    }
  }

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
    let heldRun = 0;
    for (;;) {
      const batch = await stores.outbox.claim({
        now: clock.now(),
        limit: CLAIM_LIMIT,
        leaseSeconds: LEASE_SECONDS,
      });
      let ranHeld = false;
      let leftHeld = 0;
      for (const message of batch) {
        if (message.template.startsWith(HELD_PREFIX)) {
          // Beyond the cap: left leased, for a later pass.
          if (heldRun >= MAX_HELD_ROWS_PER_PASS) {
            leftHeld++;
            continue;
          }
          // Not an email: no delivery outcome. What it wrote (an email) is claimed by the next round.
          await runHeld(message);
          heldRun++;
          ranHeld = true;
          continue;
        }
        const outcome = await deliverOne(message);
        report(message.template, outcome);
        if (outcome === 'delivered') result.delivered++;
        else if (outcome === 'retry') result.retried++;
        else result.dead++;
      }
      if (leftHeld > 0) {
        logger.warn(
          { held: heldRun, left: leftHeld },
          `tenant-auth: held requests left for a later delivery pass (at most ${MAX_HELD_ROWS_PER_PASS} a pass)`,
        );
        return result;
      }
      if (batch.length < CLAIM_LIMIT && !ranHeld) return result;
    }
  }

  return deliver;
}

/** @internal */
export function createMailOutbox(deps: MailOutboxDeps): MailOutbox {
  const { settings, seal, clock, random, logger } = deps;
  const heldHandlers = new Map<string, (request: HeldRequest) => Promise<void>>();
  const deliver = createDelivery(deps, heldHandlers);
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
    async holdRequest(kind, to, data) {
      const now = clock.now();
      const id = uuidv7(clock, random);
      const template = `${HELD_PREFIX}${kind}`;
      await deps.stores.outbox.enqueue({
        id,
        tenantId: null,
        template,
        to,
        payload: seal.sealData(data, { id, to, template }),
        createdAt: now,
        attempts: 0,
        nextAttemptAt: new Date(now.getTime() + HELD_RECOVERY_SECONDS * 1000),
        lockedUntil: null,
        lastError: null,
        deadAt: null,
      });
      return id;
    },
    onHeldRequest(kind, handler) {
      heldHandlers.set(kind, handler);
    },
    deliver,
    wake: () => wakeUp?.(),
    onScheduledPass(task) {
      scheduledTask = task;
    },
    runScheduledWork: () => scheduledTask(),
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
 * woken. Timer passes run `scheduledTask` first (the held requests); woken passes only deliver. A wake
 * never cancels nor postpones the timer: were it to, mail sent more often than the interval (each
 * registration wakes the loop) would keep the held requests waiting for ever.
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
  /** Passes asked for while one ran: the timer's (held requests and delivery), a wake's (delivery). */
  let pendingScheduled = false;
  let pendingWake = false;
  let running: Promise<void> | undefined;
  /** The next timer pass; armed whenever no timer pass is running or waiting to. */
  let timer: NodeJS.Timeout | undefined;
  const nextDelayMs = () => intervalSeconds * 1000 * (0.5 + 0.5 * ((random(1)[0] ?? 255) / 255));
  const arm = () => {
    timer = setTimeout(() => {
      timer = undefined;
      run(true);
    }, nextDelayMs());
    timer.unref();
  };
  const run = (scheduled: boolean) => {
    if (stopped) return;
    if (running) {
      if (scheduled) pendingScheduled = true;
      else pendingWake = true;
      return;
    }
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
        if (pendingScheduled) {
          // A timer pass delivers too: it answers the wakes that waited with it.
          pendingScheduled = pendingWake = false;
          run(true);
          return;
        }
        if (pendingWake) {
          pendingWake = false;
          run(false);
        }
        if (!timer) arm();
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
