import { isTenantAuthError, type TenantAuthErrorCode } from '../../errors.js';
import type { UserRecord } from '../../records.js';
import type { TenantAuthStores } from '../../stores/tenant-auth-stores.js';
import type { TestApi } from '../test-api.js';

/** @internal What the conformance cases of one store get from the suite. */
export interface ConformanceContext {
  test: TestApi;
  /** The stores of the running test (fresh storage per test). */
  stores: () => TenantAuthStores;
  /** Creates a tenant and its owner, committed. */
  seedUser: (overrides?: { email?: string; slug?: string }) => Promise<UserRecord>;
}

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
