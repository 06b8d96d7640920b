import { ERROR_MESSAGES, ERROR_STATUS, type TenantAuthErrorCode } from './error-registry.js';
import type { RateLimitResult } from './rate-limit-result.js';

// The codes and their statuses are the registry's (error-registry.ts); re-exported beside the error class.
export { ERROR_CODES, ERROR_STATUS, type TenantAuthErrorCode } from './error-registry.js';

/**
 * The codes a field-level validation failure may carry (docs/http-api.md, "Errors"): the one list of them, from which
 * {@link FieldErrorCode} and the HTTP contract's field codes are derived.
 *
 * @example
 * const known = (FIELD_ERROR_CODES as readonly string[]).includes(error.code);
 */
export const FIELD_ERROR_CODES = [
  'invalid_email',
  'email_taken',
  'too_short',
  'too_long',
  'missing_character_classes',
  'contains_personal_info',
  'common_password',
  'required',
  'invalid_type',
  'invalid_value',
  'invalid_or_expired',
  'incorrect',
  'invalid_role',
  'invalid_credential',
  'invalid_domain',
  'issuer_unreachable',
  'invalid_metadata',
  'invalid_certificate',
  'invalid_url',
  'invalid_event',
  'domain_not_verified',
  'unknown_user',
] as const;

/**
 * A code a field-level validation failure may carry (one of {@link FIELD_ERROR_CODES}).
 *
 * @example
 * const code: FieldErrorCode = 'email_taken';
 */
export type FieldErrorCode = (typeof FIELD_ERROR_CODES)[number];

/**
 * One field of a `validation_failed` error.
 *
 * @example
 * const error: FieldError = { field: 'password', code: 'too_short', message: 'At least 12 characters.' };
 */
export interface FieldError {
  /** The input field, dotted for nested fields (`'email'`, `'body'` for the body as a whole). */
  field: string;
  code: FieldErrorCode;
  /** A human-readable sentence; never parse it. */
  message: string;
}

/**
 * Options of the {@link TenantAuthError} constructor.
 *
 * @example
 * new TenantAuthError('rate_limited', 'Too many requests.', { retryAfterSeconds: 30 });
 */
export interface TenantAuthErrorOptions {
  cause?: unknown;
  /** Field errors of a `validation_failed`. */
  errors?: FieldError[];
  /** Seconds after which a `rate_limited` or `unavailable` request may be retried. */
  retryAfterSeconds?: number;
  /** The option an `invalid_configuration` error is about, as a path (`'accessToken.secret'`). */
  option?: string;
  /** The budget that refused a `rate_limited` request, for the `RateLimit-*` headers. */
  rateLimit?: RateLimitResult;
  /**
   * Members the problem details carry beside the standard ones (RFC 9457 extension members), part of
   * the contract: `mfaToken`, `methods` and `expiresIn` of `mfa_required` and `mfa_setup_required`.
   */
  extensions?: Record<string, unknown>;
}

/**
 * The one error class of tenant-auth. Every failure of every package is one of these, with a stable
 * `code` and the HTTP `status` that goes with it.
 *
 * @example
 * try {
 *   await auth.login({ email, password }, { ipAddress, userAgent });
 * } catch (err) {
 *   if (isTenantAuthError(err, 'invalid_credentials')) showLoginError();
 *   else throw err;
 * }
 */
export class TenantAuthError extends Error {
  override readonly name = 'TenantAuthError';
  readonly code: TenantAuthErrorCode;
  readonly status: number;
  readonly errors: FieldError[] | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly option: string | undefined;
  readonly rateLimit: RateLimitResult | undefined;
  /** Extension members of the problem details (see {@link TenantAuthErrorOptions.extensions}). */
  readonly extensions: Record<string, unknown> | undefined;

  constructor(code: TenantAuthErrorCode, message: string, options: TenantAuthErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.errors = options.errors;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.option = options.option;
    this.rateLimit = options.rateLimit;
    this.extensions = options.extensions;
  }
}

/**
 * Whether `err` is a `TenantAuthError` (optionally with that `code`). Duck-typed, so it holds across
 * two copies of the package in one dependency tree.
 *
 * @example
 * if (isTenantAuthError(err, 'invalid_token')) ctx.status = 401;
 */
export function isTenantAuthError(err: unknown, code?: TenantAuthErrorCode): err is TenantAuthError {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { name?: unknown; code?: unknown };
  if (e.name !== 'TenantAuthError' || typeof e.code !== 'string' || !(e.code in ERROR_STATUS)) return false;
  return code === undefined || e.code === code;
}

/**
 * @internal An error with its code's default message (the registry's, `error-registry.ts`), for the errors
 * that say nothing more specific.
 */
export function errorOf(code: TenantAuthErrorCode, options?: TenantAuthErrorOptions): TenantAuthError {
  return new TenantAuthError(code, ERROR_MESSAGES[code], options);
}

/**
 * One field of a `validation_failed` error: the field (dotted for a nested one, `'body'` for the body as
 * a whole), one of {@link FIELD_ERROR_CODES}, and a sentence for people.
 *
 * @example
 * const error = fieldError('name', 'required', 'A name is required.');
 */
export function fieldError(field: string, code: FieldErrorCode, message: string): FieldError {
  return { field, code, message };
}

/**
 * The `validation_failed` error of some fields (`400`, with their `errors[]`), as core answers its own
 * invalid inputs: for an adapter's or an application's own checks, so they answer the same way. `cause`
 * is kept for logs, never answered.
 *
 * @example
 * if (typeof body.name !== 'string') throw validationError([fieldError('name', 'required', 'A name is required.')]);
 */
export function validationError(
  errors: FieldError[],
  options: Pick<TenantAuthErrorOptions, 'cause'> = {},
): TenantAuthError {
  return errorOf('validation_failed', { ...options, errors });
}

/** @internal The one answer for a one-time token that is unknown, used, replaced or expired. */
export function invalidOrExpired(field = 'token'): TenantAuthError {
  return validationError([
    { field, code: 'invalid_or_expired', message: 'This link is invalid or has expired; ask for a new one.' },
  ]);
}

/** @internal A wrong current password given to confirm a change. */
export function incorrectPassword(field: string): TenantAuthError {
  return validationError([{ field, code: 'incorrect', message: 'The password is incorrect.' }]);
}

/** @internal The one answer for an access or refresh token that is missing, invalid, expired or revoked. */
export function invalidToken(cause?: unknown): TenantAuthError {
  return errorOf('invalid_token', { cause });
}

/** @internal An operation that sends mail, on a server without `mail` configured. */
export function mailUnavailable(): TenantAuthError {
  return new TenantAuthError('unavailable', 'Email is not configured on this server.', {
    retryAfterSeconds: 3600,
  });
}

/** @internal The caller's role does not allow the operation. */
export function forbidden(message = ERROR_MESSAGES.forbidden): TenantAuthError {
  return new TenantAuthError('forbidden', message);
}

/**
 * @internal The caller's email is not verified, and the operation vouches for others (an invitation, a
 * role): an account registered with someone else's address must not plant members before its owner
 * claims it.
 */
export function emailNotVerified(): TenantAuthError {
  return errorOf('email_not_verified');
}

/** @internal */
export function notFound(): TenantAuthError {
  return errorOf('not_found');
}

/**
 * The one way a factory reports a bad option: a `TenantAuthError` with code `invalid_configuration`,
 * naming the factory and the option, thrown at creation time before any I/O. For adapter authors, so
 * their factories fail the way tenant-auth's own do.
 *
 * @example
 * if (!Number.isSafeInteger(timeoutMs)) throw configurationError('MyStore', 'timeoutMs', 'must be an integer');
 */
export function configurationError(
  factory: string,
  option: string,
  problem: string,
  cause?: unknown,
): TenantAuthError {
  return new TenantAuthError('invalid_configuration', `${factory}: ${option} ${problem}`, {
    option,
    ...(cause === undefined ? {} : { cause }),
  });
}
