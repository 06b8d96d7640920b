import { configurationError, MemoryRateLimitStore, type RateLimitStore } from 'tenant-auth-core';
import type { ScimBudgetSettings } from './scim-budget.js';

/**
 * SCIM 2.0 provisioning (the `scim` option of `createTenantAuthKoa`; docs/http-api.md, "SCIM 2.0
 * provisioning per tenant"): where the directories connect, and the per-tenant budget. Core's `scim` store
 * must be there too, else every SCIM request answers `501`.
 *
 * @example
 * const scim: ScimOptions = {
 *   baseUrl: 'https://auth.example.com/scim/v2',
 *   rateLimit: { max: 600, windowSeconds: 60, store: new RedisRateLimitStore({ redis }) },
 * };
 */
export interface ScimOptions {
  /** The public URL of the SCIM routes (`PUBLIC_URL + "/scim/v2"`): shown to owners, and in every `meta.location`. */
  baseUrl: string;
  /** Where the routes are mounted in this application. Default: the path of `baseUrl`. */
  path?: string;
  /** Largest request body, in bytes (a group's members come in one PATCH). Default 65536 (64 KiB). */
  bodyLimitBytes?: number;
  /**
   * Each tenant's SCIM budget: `max` requests (default 600) per `windowSeconds` (default 60), counted in
   * `store` (default: a `MemoryRateLimitStore` of its own; several instances share Redis's); `false` for none.
   */
  rateLimit?: { max?: number; windowSeconds?: number; store?: RateLimitStore } | false;
}

/** @internal The SCIM option, checked and with its defaults. */
export interface ResolvedScimOptions {
  baseUrl: string;
  path: string;
  bodyLimitBytes: number;
  budget: ScimBudgetSettings | undefined;
}

const FACTORY = 'createTenantAuthKoa';

function positiveInteger(option: string, value: unknown, fallback: number): number {
  const number = value ?? fallback;
  if (typeof number !== 'number' || !Number.isSafeInteger(number) || number < 1) {
    throw configurationError(FACTORY, option, 'must be a positive integer');
  }
  return number;
}

/** @internal Checks the `scim` option (`invalid_configuration` naming what is wrong). */
export function resolveScimOptions(options: ScimOptions): ResolvedScimOptions {
  if (typeof options !== 'object' || options === null)
    throw configurationError(FACTORY, 'scim', 'must be an object');
  let url: URL;
  try {
    url = new URL(options.baseUrl);
  } catch {
    throw configurationError(FACTORY, 'scim.baseUrl', 'must be an absolute http(s) URL');
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.search !== '' || url.hash !== '') {
    throw configurationError(
      FACTORY,
      'scim.baseUrl',
      'must be an absolute http(s) URL without query or fragment',
    );
  }
  const baseUrl = url.href.replace(/\/+$/, '');
  const path = options.path ?? url.pathname.replace(/\/+$/, '');
  const limits = options.rateLimit ?? {};
  if (limits !== false && (typeof limits !== 'object' || limits === null)) {
    throw configurationError(FACTORY, 'scim.rateLimit', 'must be an object or false');
  }
  if (limits !== false && limits.store !== undefined && typeof limits.store?.hit !== 'function') {
    throw configurationError(
      FACTORY,
      'scim.rateLimit.store',
      'must be a RateLimitStore (an object with hit())',
    );
  }
  return {
    baseUrl,
    path,
    bodyLimitBytes: positiveInteger('scim.bodyLimitBytes', options.bodyLimitBytes, 64 * 1024),
    budget:
      limits === false
        ? undefined
        : {
            store: limits.store ?? new MemoryRateLimitStore(),
            max: positiveInteger('scim.rateLimit.max', limits.max, 600),
            windowSeconds: positiveInteger('scim.rateLimit.windowSeconds', limits.windowSeconds, 60),
          },
  };
}
