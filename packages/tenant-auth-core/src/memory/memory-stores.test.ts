import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runStoreConformance } from '../testing/store-conformance.js';
import { createMemoryStores } from './memory-stores.js';

runStoreConformance({
  name: 'memory',
  createStores: () => createMemoryStores(),
  test: { describe, it, expect, beforeEach, afterEach },
});

// The same stores without the optional rotateCurrent: refreshes take the two-step path (read, then rotate),
// and every rule of the suite must hold on it too.
runStoreConformance({
  name: 'memory, without rotateCurrent',
  createStores: () => {
    const stores = createMemoryStores();
    delete stores.sessions.rotateCurrent;
    return stores;
  },
  test: { describe, it, expect, beforeEach, afterEach },
});

describe('createMemoryStores', () => {
  it('refuses a store call made outside an open transaction from inside it, instead of deadlocking', async () => {
    const stores = createMemoryStores();
    await expect(
      stores.transaction(async () => {
        await stores.tenants.findById('0192f1c4-5f3a-7c1e-9a4b-3d2f1e0c9b8a');
      }),
    ).rejects.toThrow(/outside its transaction/);
  });
});
