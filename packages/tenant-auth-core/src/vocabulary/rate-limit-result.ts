/**
 * The per-client budgets an HTTP adapter applies to requests: `strict` for the routes that take
 * credentials or create accounts (login, registration, refresh), `general` for every other route.
 *
 * @example
 * const budget: ClientBudget = path.endsWith('/auth/login') ? 'strict' : 'general';
 */
export type ClientBudget = 'strict' | 'general';

/**
 * Every budget tenant-auth counts: the per-client ones, `network` (the aggregate of a client's network,
 * a /24 or a /48, on the strict routes), `account` (failed password checks per account), `mfa` (wrong
 * second-factor answers per account), `mailbox` (emails per address per hour) and `scim` (SCIM requests
 * per tenant, counted by the HTTP adapter).
 *
 * @example
 * if (err.rateLimit?.budget === 'account') showAccountLockedHint();
 */
export type RateLimitBudget = ClientBudget | 'network' | 'account' | 'mfa' | 'mailbox' | 'scim';

/**
 * The state of one budget after a request was counted against it. Maps onto the `RateLimit-*` and
 * `Retry-After` headers; a `rate_limited` error carries the one of the budget that refused.
 *
 * @example
 * const result = await auth.rateLimit('general', { ipAddress: ctx.ip });
 * if (result) ctx.set('RateLimit-Remaining', String(result.remaining));
 */
export interface RateLimitResult {
  /** Which budget this is. */
  budget: RateLimitBudget;
  /** Whether the request is within the budget. */
  allowed: boolean;
  /** The budget: requests per window. */
  limit: number;
  /** Requests left in the window now. */
  remaining: number;
  /** Seconds until the window frees a slot (0 when nothing is counted). */
  resetSeconds: number;
  /** Seconds to wait before retrying; 0 when `allowed`. */
  retryAfterSeconds: number;
}
