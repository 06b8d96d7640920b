import type { TenantAuthStores, TransactionStores } from './tenant-auth-stores.js';

/** Whether `createTenantAuth` requires a store: as its `TenantAuthStores` property is required or optional. */
type Requirement<Stores, K extends keyof Stores> =
  Partial<Pick<Stores, K>> extends Pick<Stores, K> ? 'optional' : 'required';

/**
 * @internal What a list of the stores must say: every store of `Stores` but `transaction`, no other, each
 * `'required'` or `'optional'` as its property is.
 */
export type StoreRequirements<Stores = TenantAuthStores> = {
  readonly [K in Exclude<keyof Stores, 'transaction'>]-?: Requirement<Stores, K>;
};

/**
 * @internal Every store of the bundle, once, and whether `createTenantAuth` requires it: the list its
 * `stores` option is checked against. Tied to the types (`satisfies`): a store added to
 * `TenantAuthStores` and not here, or here and not there, fails to compile, and so does a requirement that
 * is not the property's own (a store made optional in the type is `'optional'` here).
 */
export const STORES = {
  tenants: 'required',
  users: 'required',
  sessions: 'required',
  oneTimeTokens: 'required',
  outbox: 'required',
  auditEvents: 'required',
  factors: 'optional',
  passkeys: 'optional',
  sso: 'optional',
  apiKeys: 'optional',
  webhooks: 'optional',
  scim: 'optional',
} as const satisfies StoreRequirements;

/** @internal The name of a store of the bundle. */
export type StoreName = keyof typeof STORES;

/** @internal The stores' names, in the order of {@link STORES}. */
export const STORE_NAMES = Object.keys(STORES) as StoreName[];

/** @internal Whether a bundle may leave the store out (its feature then answers a clear error). */
export const isOptionalStore = (name: StoreName): boolean =>
  (STORES as Record<StoreName, string>)[name] === 'optional';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
// The stores a transaction gets are the bundle's, all of them: TenantAuthStores adds only `transaction`.
true satisfies Same<StoreName, keyof TransactionStores>;
