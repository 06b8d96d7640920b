import type { Logger } from '../logger.js';

/** Requests held at most; beyond, a request is dropped (logged), the same way whatever it is for. */
const MAX_HELD = 10_000;

/**
 * @internal Requests whose work must not happen in the request, nor right after it: a "forgot password"
 * for a known address writes a token, an email and an audit event, and for an unknown one nothing, so work
 * started from the request would show in the latency of the requests that follow it. The request only
 * holds its input here, the same for every address; the mail delivery worker processes what is held on its
 * timer passes (every few seconds, with jitter), never because a request woke it.
 */
export interface DeferredRequests<T> {
  /** Holds a request; synchronous, no I/O. */
  hold(request: T): void;
  /** Processes every request held now (and any held meanwhile), one at a time; failures are logged. */
  process(): Promise<void>;
  /** How many are held. */
  readonly size: number;
}

/** @internal */
export function createDeferredRequests<T>(
  name: string,
  handle: (request: T) => Promise<void>,
  logger: Logger,
): DeferredRequests<T> {
  let held: T[] = [];
  let running: Promise<void> | undefined;
  const drain = async () => {
    while (held.length > 0) {
      const batch = held;
      held = [];
      for (const request of batch) {
        try {
          await handle(request);
        } catch (err) {
          logger.warn({ err, task: name }, `tenant-auth: deferred work failed: ${name}`);
        }
      }
    }
  };
  return {
    hold(request) {
      if (held.length >= MAX_HELD) {
        logger.warn(
          { task: name, held: held.length },
          `tenant-auth: too many held requests; dropped one: ${name}`,
        );
        return;
      }
      held.push(request);
    },
    process() {
      // One drain at a time; a second caller waits for the one under way (which takes what it finds).
      running ??= drain().finally(() => {
        running = undefined;
      });
      return running;
    },
    get size() {
      return held.length;
    },
  };
}
