/**
 * Default budgets of the reference server; the reasoning is in docs/rate-limiting.md. Every number is
 * configurable (`RATE_LIMIT_WINDOW_SECONDS`, `RATE_LIMIT_AUTH_MAX`, `RATE_LIMIT_MAX`,
 * `LOGIN_FAILURES_PER_ACCOUNT`).
 *
 * @example
 * const auth = createRateLimiter({ store, ...RATE_LIMIT_DEFAULTS.auth });
 * const general = createRateLimiter({ store, ...RATE_LIMIT_DEFAULTS.general });
 * const throttle = createLoginThrottle({ store, ...RATE_LIMIT_DEFAULTS.loginFailures });
 */
export const RATE_LIMIT_DEFAULTS = {
  /** `/auth/login`, `/auth/register`, `/auth/refresh`: per client IP. */
  auth: { limit: 10, windowMs: 60_000, keyPrefix: 'auth:', onStoreError: 'fail-closed' },
  /** Every other route: per client IP. */
  general: { limit: 300, windowMs: 60_000, keyPrefix: 'general:', onStoreError: 'fail-open' },
  /** Failed logins per normalised email, from any IP. */
  loginFailures: { maxFailures: 10, windowMs: 60_000, keyPrefix: 'login-fail:', onStoreError: 'fail-closed' },
  /** Bits of an IPv6 address that identify one client. */
  ipv6PrefixLength: 64,
  /** Keys the in-memory store holds at most. */
  memoryMaxKeys: 100_000,
} as const;
