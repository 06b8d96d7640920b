import type { RateLimitResult } from './rate-limit/rate-limit-result.js';

/**
 * Every error code of tenant-auth: the one list of them, from which {@link TenantAuthErrorCode}, the
 * HTTP contract's problem codes and the status map are derived. Callers switch on `code`, never on
 * messages or on `instanceof` across packages.
 *
 * - The codes a client can receive are the ones of the HTTP contract (API.md).
 * - `email_taken` and `slug_taken` are raised by stores and turned into `validation_failed` by core.
 * - `invalid_configuration` is thrown by factories (`createTenantAuth`, `createTenantAuthKoa`, ...) at
 *   creation time, before any I/O; its `option` names the offending option.
 *
 * @example
 * const known = (ERROR_CODES as readonly string[]).includes(body.code);
 */
export const ERROR_CODES = [
  'validation_failed',
  'invalid_json',
  'invalid_credentials',
  'invalid_token',
  'csrf_rejected',
  'forbidden',
  'email_not_verified',
  'not_found',
  'last_owner',
  'mfa_required',
  'mfa_setup_required',
  'reauthentication_required',
  'mfa_required_by_tenant',
  'already_enabled',
  'mfa_not_enabled',
  'email_taken',
  'slug_taken',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limited',
  'internal_error',
  'invalid_configuration',
  'unavailable',
  'sso_required',
  'domain_taken',
  'domain_not_verified',
] as const;

/**
 * A stable error code (one of {@link ERROR_CODES}).
 *
 * @example
 * const code: TenantAuthErrorCode = 'invalid_credentials';
 */
export type TenantAuthErrorCode = (typeof ERROR_CODES)[number];

/**
 * The HTTP status an adapter answers each error code with (every code of {@link ERROR_CODES}, no
 * other: the compiler checks it).
 *
 * @example
 * ERROR_STATUS.invalid_token; // 401
 */
export const ERROR_STATUS = {
  validation_failed: 400,
  invalid_json: 400,
  invalid_credentials: 401,
  invalid_token: 401,
  csrf_rejected: 403,
  forbidden: 403,
  email_not_verified: 403,
  not_found: 404,
  last_owner: 409,
  mfa_required: 401,
  mfa_setup_required: 401,
  reauthentication_required: 403,
  mfa_required_by_tenant: 409,
  already_enabled: 409,
  mfa_not_enabled: 409,
  email_taken: 409,
  slug_taken: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
  invalid_configuration: 500,
  unavailable: 503,
  sso_required: 403,
  domain_taken: 409,
  domain_not_verified: 409,
} as const satisfies Record<TenantAuthErrorCode, number>;

/**
 * The codes a field-level validation failure may carry (API.md): the one list of them, from which
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

/** @internal Builds a `validation_failed` error from field errors. */
export function validationError(errors: FieldError[]): TenantAuthError {
  return new TenantAuthError('validation_failed', 'The request is invalid.', { errors });
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
  return new TenantAuthError('invalid_token', 'The token is missing, invalid or expired.', { cause });
}

/** @internal An operation that sends mail, on a server without `mail` configured. */
export function mailUnavailable(): TenantAuthError {
  return new TenantAuthError('unavailable', 'Email is not configured on this server.', {
    retryAfterSeconds: 3600,
  });
}

/** @internal The caller's role does not allow the operation. */
export function forbidden(message = 'Your role does not allow this.'): TenantAuthError {
  return new TenantAuthError('forbidden', message);
}

/**
 * @internal The caller's email is not verified, and the operation vouches for others (an invitation, a
 * role): an account registered with someone else's address must not plant members before its owner
 * claims it.
 */
export function emailNotVerified(): TenantAuthError {
  return new TenantAuthError('email_not_verified', 'Verify your email address first.');
}

/** @internal */
export function notFound(): TenantAuthError {
  return new TenantAuthError('not_found', 'Not found.');
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
