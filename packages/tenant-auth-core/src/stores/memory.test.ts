import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runStoreConformance } from '../testing/store-conformance.js';
import { MemorySessionStore, MemoryTenantAuthStore } from './memory.js';

runStoreConformance({
  name: 'memory',
  createStores: () => ({
    tenantAuthStore: new MemoryTenantAuthStore(),
    sessionStore: new MemorySessionStore(),
  }),
  test: { describe, it, expect, beforeEach, afterEach },
});
