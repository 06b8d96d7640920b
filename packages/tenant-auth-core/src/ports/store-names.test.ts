import { describe, expect, it } from 'vitest';
import { createMemoryStores } from '../memory/memory-stores.js';
import { isOptionalStore, STORE_NAMES, STORES, type StoreRequirements } from './store-names.js';
import type { TenantAuthStores } from './tenant-auth-stores.js';

describe('STORE_NAMES, the one list of the stores', () => {
  it('names the stores of a real bundle, no more and no fewer', () => {
    const bundle = Object.keys(createMemoryStores()).filter((key) => key !== 'transaction');
    expect([...STORE_NAMES].sort()).toEqual(bundle.sort());
    expect(STORE_NAMES.filter(isOptionalStore)).toEqual([
      'factors',
      'passkeys',
      'sso',
      'apiKeys',
      'webhooks',
      'scim',
    ]);
  });

  // The ties below are checked by `pnpm typecheck` (tsc reads this file): each `@ts-expect-error` fails the
  // build the day its line compiles, that is, the day the tie stops holding.
  it('is tied to TenantAuthStores by the compiler, store for store and requirement for requirement', () => {
    // A store the type gains and the list lacks.
    type WithWidgets = TenantAuthStores & { readonly widgets: object };
    // @ts-expect-error `widgets` is missing from STORES
    const lacking: StoreRequirements<WithWidgets> = STORES;
    // A store the list names and the type lacks.
    // @ts-expect-error `gadgets` is not a store of TenantAuthStores
    const extra: StoreRequirements = { ...STORES, gadgets: 'required' };
    // A store the type makes optional, listed as required (and the other way round).
    type WithOptional = TenantAuthStores & { readonly widgets?: object };
    // @ts-expect-error an optional store is 'optional'
    const required: StoreRequirements<WithOptional> = { ...STORES, widgets: 'required' };
    // @ts-expect-error a required store is 'required'
    const optional: StoreRequirements<WithWidgets> = { ...STORES, widgets: 'optional' };
    const right: StoreRequirements<WithOptional> = { ...STORES, widgets: 'optional' };
    expect([lacking, extra, required, optional, right].every((list) => list.tenants === 'required')).toBe(
      true,
    );
  });
});
