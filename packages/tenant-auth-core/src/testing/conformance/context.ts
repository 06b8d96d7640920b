import type { CompleteTenantAuthStores, UserRecord } from '../../store-kit.js';
import { isTenantAuthError, type TenantAuthErrorCode } from '../../vocabulary/errors.js';
import type { tenantAndOwner } from '../fixtures.js';
import type { TestApi } from '../test-api.js';

/**
 * @internal What the conformance cases of one port get from the suite. The cases call the store ports
 * only: no service of core runs in them, so what they check is what the store itself guarantees.
 *
 * Naming: a `describe` per store method (`users.findById`), and for every method that takes a tenant id
 * a case named `in another tenant: …` that checks the method neither reads nor changes anything of
 * another tenant (as ory/kratos's persister tests do).
 */
export interface ConformanceContext {
  test: TestApi;
  /** The stores of the running test (fresh storage per test). */
  stores: () => CompleteTenantAuthStores;
  /** Creates a tenant and its owner in one transaction, as registration does. */
  seed: (input: ReturnType<typeof tenantAndOwner>) => Promise<void>;
  /** Creates a tenant and its owner, committed. */
  seedUser: (overrides?: { email?: string; slug?: string }) => Promise<UserRecord>;
}

/** @internal The name of the isolation case of a method: `in another tenant: <what happens>`. */
export const inAnotherTenant = (what: string): string => `in another tenant: ${what}`;

/** @internal The error code a promise rejects with, `resolved`, or `other` for a foreign error. */
export async function errorCode(
  promise: Promise<unknown>,
): Promise<TenantAuthErrorCode | 'resolved' | 'other'> {
  try {
    await promise;
    return 'resolved';
  } catch (err) {
    return isTenantAuthError(err) ? err.code : 'other';
  }
}

/** @internal An error a test throws inside a transaction to make it roll back. */
export class Rollback extends Error {}
