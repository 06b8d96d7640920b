import { configurationError } from 'tenant-auth-core';

/**
 * A dependency check for `GET <prefix>/health` (the `health` option of `createTenantAuthKoa`).
 *
 * @example
 * const health: HealthCheckOptions = { ping: () => orm.em.getConnection().execute('select 1') };
 */
export interface HealthCheckOptions {
  /** Resolves when the dependency answers; rejecting (or resolving `false`) means degraded. */
  ping: () => Promise<unknown>;
  /** How long to wait for `ping` before answering degraded. Default 2. */
  timeoutSeconds?: number;
  /** Whether `/health` requires an access token (docs/http-api.md, "Endpoints": yes). Default `true`. */
  requireAuth?: boolean;
  /** `Retry-After` of a degraded (503) answer. Default 5. */
  retryAfterSeconds?: number;
  /**
   * How long one ping's answer serves every health request, in seconds (0 to 10; default 1). Requests
   * arriving while a ping is out wait for that ping: a flood of health checks is at most one ping in
   * flight and one per `cacheSeconds`, not one per request, and a database that goes away is seen
   * within `cacheSeconds` plus the ping's own failure time.
   */
  cacheSeconds?: number;
}

/** @internal A resolved health check. */
export interface HealthCheck {
  check(): Promise<boolean>;
  /** The answer of the last ping while it serves (within `cacheSeconds`), else `undefined`. */
  fresh(): boolean | undefined;
  requireAuth: boolean;
  retryAfterSeconds: number;
}

/** @internal Validates the options and builds the check. */
export function healthCheck(options: HealthCheckOptions): HealthCheck {
  const fail = (option: string, problem: string) =>
    configurationError('createTenantAuthKoa', `health.${option}`, problem);
  if (typeof options.ping !== 'function') throw fail('ping', 'must be a function');
  const timeoutSeconds = options.timeoutSeconds ?? 2;
  if (typeof timeoutSeconds !== 'number' || !(timeoutSeconds > 0) || timeoutSeconds > 60) {
    throw fail('timeoutSeconds', 'must be a number of seconds from 0 to 60');
  }
  const retryAfterSeconds = options.retryAfterSeconds ?? 5;
  if (!Number.isSafeInteger(retryAfterSeconds) || retryAfterSeconds < 1) {
    throw fail('retryAfterSeconds', 'must be a positive integer');
  }
  const cacheSeconds = options.cacheSeconds ?? 1;
  if (typeof cacheSeconds !== 'number' || !(cacheSeconds >= 0) || cacheSeconds > 10) {
    throw fail('cacheSeconds', 'must be a number of seconds from 0 to 10');
  }
  const { ping } = options;
  const pingOnce = (): Promise<boolean> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutSeconds * 1000);
      timer.unref?.();
      Promise.resolve()
        .then(ping)
        .then(
          (value) => resolve(value !== false),
          () => resolve(false),
        )
        .finally(() => clearTimeout(timer));
    });
  let inFlight: Promise<boolean> | undefined;
  let last: { ok: boolean; at: number } | undefined;
  const fresh = () => (last && performance.now() - last.at < cacheSeconds * 1000 ? last.ok : undefined);
  return {
    requireAuth: options.requireAuth ?? true,
    retryAfterSeconds,
    fresh,
    check() {
      const known = fresh();
      if (known !== undefined) return Promise.resolve(known);
      inFlight ??= pingOnce().then((ok) => {
        last = { ok, at: performance.now() };
        inFlight = undefined;
        return ok;
      });
      return inFlight;
    },
  };
}
