import { fieldError, isTenantAuthError, TenantAuthError, validationError } from 'tenant-auth-core';

// How the stores map what a database driver throws: SQLSTATEs, errno codes and the messages of pg, its pool
// and PGlite, which are PostgreSQL's and Node's, not one driver's. A driver that knows its own error
// classes passes what they say as `known` (the MikroORM driver does, `../to-store-error.ts`).

/**
 * @internal Names of the unique constraints whose violation has a meaning for callers.
 *
 * @example
 * if (err instanceof UniqueConstraintViolationException && err.constraint === UNIQUE_CONSTRAINTS.email) { ... }
 */
export const UNIQUE_CONSTRAINTS = {
  email: 'tenant_auth_user_email_unique',
  slug: 'tenant_auth_tenant_slug_unique',
} as const;

/** Network errors of the `pg` driver and the OS. */
const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EPIPE',
]);

/**
 * SQLSTATEs meaning "the database cannot serve this now": connection exceptions (class 08), insufficient
 * resources (class 53, e.g. too many connections), operator intervention (57P01-57P05: shutdown,
 * crash, cannot connect now) and a statement or lock timeout (57014 query_canceled, 55P03 lock_not_available).
 */
function isUnavailableSqlState(state: string): boolean {
  return (
    (state.startsWith('08') && state !== PROTOCOL_VIOLATION) ||
    state.startsWith('53') ||
    /^57P0[1-5]$/.test(state) ||
    state === '57014' ||
    state === '55P03'
  );
}

/**
 * SQLSTATE 08P01 (protocol_violation): what PGlite answers for a NUL byte in a parameter. A property of
 * the value sent, not of the connection: never "unavailable".
 */
const PROTOCOL_VIOLATION = '08P01';

/**
 * A value the database refuses as data: class 22 (data_exception: a NUL byte in text, 22021; a value out
 * of range; an invalid text representation) and PGlite's 08P01 for the same NUL byte. The request's fault.
 */
function isInvalidValueSqlState(state: string): boolean {
  return state.startsWith('22') || state === PROTOCOL_VIOLATION;
}

/**
 * SQLSTATE 55000 (object_not_in_prerequisite_state) is a connection refusal only with this message:
 * `ALTER DATABASE ... ALLOW_CONNECTIONS false`, as during maintenance.
 */
const NOT_ACCEPTING_CONNECTIONS = /is not currently accepting connections/i;

/** Messages of pool or client errors that carry no code (pg-pool, kysely, PGlite). */
const UNAVAILABLE_MESSAGE =
  /timeout exceeded when trying to connect|query read timeout|connection terminated|connection timeout|client has encountered a connection error|pglite is closed|driver has already been destroyed|cannot use a pool after calling end/i;

function codeOf(err: object): string | undefined {
  const e = err as { code?: unknown; sqlState?: unknown };
  if (typeof e.sqlState === 'string') return e.sqlState;
  return typeof e.code === 'string' ? e.code : undefined;
}

function constraintOf(err: object): string | undefined {
  const constraint = (err as { constraint?: unknown }).constraint;
  return typeof constraint === 'string' ? constraint : undefined;
}

function isUnavailable(err: object): boolean {
  const code = codeOf(err);
  if (code !== undefined && (CONNECTION_ERROR_CODES.has(code) || isUnavailableSqlState(code))) return true;
  const message = (err as { message?: unknown }).message;
  if (code === '55000' && typeof message === 'string' && NOT_ACCEPTING_CONNECTIONS.test(message)) return true;
  if (typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message)) return true;
  // AggregateError from a dual-stack connect attempt, or an error wrapped by a pool.
  const nested = (err as { errors?: unknown; cause?: unknown }).errors ?? [
    (err as { cause?: unknown }).cause,
  ];
  return (
    Array.isArray(nested) &&
    nested.some((inner) => typeof inner === 'object' && inner !== null && isUnavailable(inner))
  );
}

/**
 * What of a driver error may travel on as `cause`: its class, SQLSTATE or errno code, and the names of the
 * constraint, table and column involved. Never its message, `detail` or query: PostgreSQL's `detail`
 * ("Failing row contains (...)") and MikroORM's messages (the SQL) can hold a whole row, password hash
 * included, and error handlers log the cause chain.
 *
 * @example
 * new StoreDriverError(err).message; // 'UniqueConstraintViolationException (code 23505, constraint tenant_auth_user_email_unique)'
 */
export class StoreDriverError extends Error {
  override readonly name = 'StoreDriverError';
  readonly driverErrorName: string | undefined;
  readonly code: string | undefined;
  readonly constraint: string | undefined;
  readonly table: string | undefined;
  readonly column: string | undefined;

  constructor(err: unknown) {
    const e = (typeof err === 'object' && err !== null ? err : {}) as Record<string, unknown>;
    const str = (v: unknown) => (typeof v === 'string' && v.length <= 128 ? v : undefined);
    const inner = Array.isArray(e.errors) ? (e.errors[0] as Record<string, unknown> | undefined) : undefined;
    const fields = {
      driverErrorName: err instanceof Error ? err.constructor.name : typeof err,
      code: str(e.sqlState) ?? str(e.code) ?? str(inner?.code),
      constraint: str(e.constraint),
      table: str(e.table),
      column: str(e.column),
    };
    const described = Object.entries(fields)
      .filter(([key, value]) => key !== 'driverErrorName' && value !== undefined)
      .map(([key, value]) => `${key} ${value}`);
    super(
      described.length > 0 ? `${fields.driverErrorName} (${described.join(', ')})` : fields.driverErrorName,
    );
    this.driverErrorName = fields.driverErrorName;
    this.code = fields.code;
    this.constraint = fields.constraint;
    this.table = fields.table;
    this.column = fields.column;
  }
}

/**
 * @internal What a driver knows of an error that its code does not say: a connection failure, a unique
 * violation (MikroORM's exception classes).
 */
export interface KnownDriverError {
  readonly unavailable?: boolean;
  readonly uniqueViolation?: boolean;
}

/**
 * @internal Maps anything a store operation threw to a `TenantAuthError` with a stable code: unique violations of
 * the email and slug constraints become `email_taken` and `slug_taken`, a value the database refuses as data
 * `validation_failed`, connection failures `unavailable`, everything else `internal_error`. The messages
 * are fixed texts; the `cause` is a `StoreDriverError` summary (class, SQLSTATE, constraint, table), never
 * the driver's error with its SQL and row values. A `TenantAuthError` passes unchanged.
 *
 * @example
 * try {
 *   await driver.execute(sql, params);
 * } catch (err) {
 *   throw sqlStoreError(err);
 * }
 */
export function sqlStoreError(err: unknown, known: KnownDriverError = {}): TenantAuthError {
  if (isTenantAuthError(err)) return err;
  if (typeof err === 'object' && err !== null) {
    if (known.uniqueViolation || codeOf(err) === '23505') {
      const constraint = constraintOf(err);
      if (constraint === UNIQUE_CONSTRAINTS.email) {
        return new TenantAuthError('email_taken', 'This email address is already registered.', {
          cause: new StoreDriverError(err),
        });
      }
      if (constraint === UNIQUE_CONSTRAINTS.slug) {
        return new TenantAuthError('slug_taken', 'This tenant slug is already taken.', {
          cause: new StoreDriverError(err),
        });
      }
    }
    const code = codeOf(err);
    if (code !== undefined && isInvalidValueSqlState(code)) {
      return validationError(
        [fieldError('body', 'invalid_value', 'A value of the request cannot be stored.')],
        { cause: new StoreDriverError(err) },
      );
    }
    if (known.unavailable || isUnavailable(err)) {
      return new TenantAuthError('unavailable', 'The database is not available.', {
        cause: new StoreDriverError(err),
      });
    }
  }
  return new TenantAuthError('internal_error', 'The database operation failed.', {
    cause: new StoreDriverError(err),
  });
}

/**
 * @internal Runs `fn` as a store call: what it throws becomes a `TenantAuthError` whose cause holds no row
 * values ({@link sqlStoreError}); a `TenantAuthError` (a driver's own mapping) passes unchanged.
 */
export async function guarded<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw sqlStoreError(err);
  }
}

/**
 * @internal A copy of a `TenantAuthError` (its code, message, cause, field errors and retry time) for each
 * further request one failed statement answered (batched-reads.ts): no two requests hold one error object.
 * Anything else passes unchanged, as each caller's {@link guarded} maps it into an error of its own.
 */
export function copyOfStoreError(err: unknown): unknown {
  if (!isTenantAuthError(err)) return err;
  return new TenantAuthError(err.code, err.message, {
    cause: err.cause,
    ...(err.errors === undefined ? {} : { errors: err.errors }),
    ...(err.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: err.retryAfterSeconds }),
  });
}
