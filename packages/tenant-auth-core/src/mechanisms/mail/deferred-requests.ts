import type { Logger } from '../../ports/logger.js';

/**
 * Requests held at most; beyond, a request is dropped (logged), the same way whatever it is for. Each
 * holds a bounded copy of its input (see password-recovery.ts: an address, and a request context capped
 * as sessions cap it), a couple of KiB at most: some 20 MiB when full.
 */
const MAX_HELD = 10_000;
/** Requests one client network (its /24 or /48, the rate limiter's network key) may hold at once. */
const MAX_HELD_PER_NETWORK = 1_000;
/**
 * How long one `process()` works at most; what is left stays held for the next one. This bounds a pass
 * of the delivery worker and, above all, a shutdown (`stop`, `whenIdle`), which would otherwise process
 * the whole backlog however long it took.
 */
const PROCESS_BUDGET_MS = 10_000;

/**
 * @internal Requests whose work must not happen in the request, nor right after it: a "forgot password"
 * for a known address writes a token, an email and an audit event, and for an unknown one nothing, so work
 * started from the request would show in the latency of the requests that follow it. The request only
 * holds its input here, the same for every address; the mail delivery worker processes what is held on its
 * timer passes (every few seconds, with jitter), never because a request woke it.
 */
export interface DeferredRequests<T> {
  /**
   * Holds a request of a client network (its rate-limit network key); synchronous, no I/O. Returns whether
   * it was kept: `false` when the caps drop it (logged), so that the caller undoes whatever it wrote for
   * it (a durable copy would otherwise run the dropped request later).
   */
  hold(request: T, network: string): boolean;
  /**
   * Whether a request of `network` would be kept now (no side effect): a caller checks it before writing
   * anything for the request, and logs nothing; `hold` still decides.
   */
  hasRoom(network: string): boolean;
  /**
   * Processes every request held now (and any held meanwhile), one at a time, for up to its time budget;
   * what is left stays held. Failures are logged.
   */
  process(): Promise<void>;
  /** How many are held. */
  readonly size: number;
}

/** @internal */
export function createDeferredRequests<T>(
  name: string,
  handle: (request: T) => Promise<void>,
  logger: Logger,
  options: { budgetMs?: number } = {},
): DeferredRequests<T> {
  const budgetMs = options.budgetMs ?? PROCESS_BUDGET_MS;
  let held: { request: T; network: string }[] = [];
  const perNetwork = new Map<string, number>();
  let running: Promise<void> | undefined;
  const release = (network: string) => {
    const n = (perNetwork.get(network) ?? 1) - 1;
    if (n > 0) perNetwork.set(network, n);
    else perNetwork.delete(network);
  };
  const drain = async () => {
    const deadline = performance.now() + budgetMs;
    while (held.length > 0) {
      const batch = held;
      held = [];
      for (const [i, entry] of batch.entries()) {
        if (performance.now() >= deadline) {
          held = [...batch.slice(i), ...held];
          logger.warn(
            { task: name, held: held.length },
            `tenant-auth: held requests left for the next pass (time budget spent): ${name}`,
          );
          return;
        }
        release(entry.network);
        try {
          await handle(entry.request);
        } catch (err) {
          logger.warn({ err, task: name }, `tenant-auth: deferred work failed: ${name}`);
        }
      }
    }
  };
  const drop = (why: string, network: string) => {
    logger.warn({ task: name, held: held.length, network }, `tenant-auth: ${why}; dropped one: ${name}`);
    return false;
  };
  return {
    hold(request, network) {
      if (held.length >= MAX_HELD) return drop('too many held requests', network);
      const mine = perNetwork.get(network) ?? 0;
      if (mine >= MAX_HELD_PER_NETWORK) return drop('too many held requests from one network', network);
      perNetwork.set(network, mine + 1);
      held.push({ request, network });
      return true;
    },
    hasRoom(network) {
      return held.length < MAX_HELD && (perNetwork.get(network) ?? 0) < MAX_HELD_PER_NETWORK;
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
