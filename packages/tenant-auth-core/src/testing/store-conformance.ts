import { describe } from 'vitest';
import type { SessionStore, TenantAuthStore } from '../stores/types.js';

/** The stores under test, over empty storage. */
export interface ConformanceStores {
  tenantAuthStore: TenantAuthStore;
  sessionStore: SessionStore;
}

export interface StoreConformanceOptions {
  /** Shown in the test names, e.g. `'mikro-orm (PGlite)'`. */
  name: string;
  /** Called before every test: stores over EMPTY storage (truncate or recreate between tests). */
  createStores: () => Promise<ConformanceStores> | ConformanceStores;
  /** Called after every test. */
  destroyStores?: (stores: ConformanceStores) => Promise<void> | void;
}

/**
 * Registers the store conformance suite with vitest. Every store implementation runs it.
 *
 * @example
 * // my-store.test.ts
 * import { runStoreConformance } from 'tenant-auth-core/testing';
 * runStoreConformance({ name: 'my store', createStores: async () => ({ tenantAuthStore, sessionStore }) });
 */
export function runStoreConformance(options: StoreConformanceOptions): void {
  describe(`store conformance: ${options.name}`, () => {});
}
