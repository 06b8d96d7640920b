import { type Logger, type RateLimitResult, type RateLimitStore, TenantAuthError } from 'tenant-auth-core';

/** @internal The resolved SCIM budget: requests per window per tenant, counted in a rate-limit store. */
export interface ScimBudgetSettings {
  store: RateLimitStore;
  max: number;
  windowSeconds: number;
}

/**
 * @internal A tenant's SCIM budget (docs/http-api.md: `SCIM_RATE_LIMIT_MAX` per window per tenant): a
 * sliding window in the same rate-limit store as the other budgets (memory, or Redis for several
 * instances), keyed by the tenant, never by an address: a directory (Entra ID, Okta) calls for many
 * tenants from one address. `consume` returns the budget's state for the `RateLimit-*` headers, and
 * throws `rate_limited` (with `Retry-After`) when the tenant spent it. Refused requests count too (a
 * directory that ignores 429 stays limited). When the store fails the request goes through (the budget
 * protects the server, not a credential), with a warning once per outage.
 */
export function createScimBudget(settings: ScimBudgetSettings, logger: Logger) {
  const { store, max, windowSeconds } = settings;
  const windowMs = windowSeconds * 1000;
  let failing = false;
  return {
    async consume(tenantId: string): Promise<RateLimitResult | null> {
      let hit: { count: number; resetMs: number };
      try {
        hit = await store.hit(`scim:${tenantId}`, { windowMs, now: Date.now() });
        failing = false;
      } catch (err) {
        if (!failing) logger.warn({ err, budget: 'scim' }, 'rate-limit store failed; allowing SCIM requests');
        failing = true;
        return null;
      }
      const allowed = hit.count <= max;
      const resetSeconds = Math.ceil(hit.resetMs / 1000);
      const result: RateLimitResult = {
        budget: 'scim',
        allowed,
        limit: max,
        remaining: Math.max(0, max - hit.count),
        resetSeconds,
        retryAfterSeconds: allowed ? 0 : Math.max(1, resetSeconds),
      };
      if (!allowed) {
        throw new TenantAuthError('rate_limited', 'Too many SCIM requests for this tenant. Retry later.', {
          retryAfterSeconds: result.retryAfterSeconds,
          rateLimit: result,
        });
      }
      return result;
    },
  };
}

/** @internal What {@link createScimBudget} makes. */
export type ScimBudget = ReturnType<typeof createScimBudget>;
