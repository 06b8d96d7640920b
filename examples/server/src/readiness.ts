/** How long the result of a dependency check is reused (a probe flood makes at most ~2 checks a second). */
export const READINESS_REUSE_MS = 500;

/**
 * How long a check waits for the dependencies: longer counts as not answering. Below Kubernetes'
 * default probe timeout (1 s), so a probe gets an answer rather than timing out itself.
 */
export const READINESS_TIMEOUT_MS = 500;

/** Whether the server should be sent traffic (`GET /readyz`). */
export interface Readiness {
  /**
   * Resolves `true` when the dependencies answered a check that started at most `reuseMs` ago and
   * shutdown has not begun. Concurrent callers share one check in flight.
   */
  check(): Promise<boolean>;
  /** From now on (graceful shutdown), `check` answers `false` at once, whatever the dependencies say. */
  shutDown(): void;
  /** Whether {@link Readiness.shutDown} was called. */
  readonly shuttingDown: boolean;
}

/** Options of {@link createReadiness}. */
export interface ReadinessOptions {
  /** Resolves when every dependency answers (the database; Redis when configured); rejects otherwise. */
  ping: () => Promise<unknown>;
  reuseMs?: number;
  timeoutMs?: number;
  /** Milliseconds, for tests. Default `performance.now`. */
  now?: () => number;
}

/**
 * Readiness from a dependency ping, for `/readyz`: one ping in flight at a time, whatever the number
 * of probes, its result reused for `reuseMs` (0.5 s), and a ping with no answer within `timeoutMs`
 * (0.5 s) counts as down. So a probe answers "not ready" at most about a second after the database
 * stops answering, and a probe flood costs the database at most two `select 1` a second.
 *
 * @example
 * const readiness = createReadiness({ ping: () => Promise.all([database.ping(), redis.ping()]) });
 * ctx.status = (await readiness.check()) ? 200 : 503;
 */
export function createReadiness(options: ReadinessOptions): Readiness {
  const reuseMs = options.reuseMs ?? READINESS_REUSE_MS;
  const timeoutMs = options.timeoutMs ?? READINESS_TIMEOUT_MS;
  const now = options.now ?? (() => performance.now());
  let last: { ready: boolean; startedAt: number } | undefined;
  let inFlight: Promise<boolean> | undefined;
  // A ping that timed out but has not settled: no second one is sent while it is out, so a database
  // that stopped answering is not handed a growing pile of pings (each holding a pool connection).
  let unanswered: Promise<unknown> | undefined;
  let shuttingDown = false;

  const ping = (): Promise<boolean> => {
    const startedAt = now();
    let answered: Promise<boolean>;
    if (unanswered) answered = Promise.resolve(false);
    else {
      // Sent at once (a synchronous throw counts as down).
      const sent = new Promise<unknown>((resolve) => resolve(options.ping()));
      unanswered = sent;
      const settled = sent
        .then(
          () => true,
          () => false,
        )
        .finally(() => {
          if (unanswered === sent) unanswered = undefined;
        });
      answered = new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), timeoutMs);
        timer.unref();
        void settled.then((ready) => {
          clearTimeout(timer);
          resolve(ready);
        });
      });
    }
    return answered.then((ready) => {
      last = { ready, startedAt };
      inFlight = undefined;
      return ready;
    });
  };

  return {
    async check() {
      if (shuttingDown) return false;
      if (last && now() - last.startedAt < reuseMs) return last.ready;
      inFlight ??= ping();
      const ready = await inFlight;
      return ready && !shuttingDown;
    },
    shutDown() {
      shuttingDown = true;
    },
    get shuttingDown() {
      return shuttingDown;
    },
  };
}
