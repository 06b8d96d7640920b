import { ConnectionException, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { TenantAuthError } from 'tenant-auth-core';
import { sqlStoreError } from './sql/store-errors.js';

export { StoreDriverError, UNIQUE_CONSTRAINTS } from './sql/store-errors.js';

/**
 * @internal Maps anything a store operation on MikroORM threw to a `TenantAuthError` with a stable code, as
 * the SQL stores map any driver's errors ({@link sqlStoreError}), with what MikroORM's exception classes
 * add: a `ConnectionException` is `unavailable`, a `UniqueConstraintViolationException` a unique violation.
 *
 * @example
 * try {
 *   await em.getConnection().execute(sql, params);
 * } catch (err) {
 *   throw toStoreError(em.getDriver().convertException(err as Error));
 * }
 */
export function toStoreError(err: unknown): TenantAuthError {
  return sqlStoreError(err, {
    unavailable: err instanceof ConnectionException,
    uniqueViolation: err instanceof UniqueConstraintViolationException,
  });
}
