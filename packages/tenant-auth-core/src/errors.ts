/**
 * Stable error codes. Callers switch on `code`, never on messages or `instanceof` across packages.
 * `status` is the HTTP status an adapter should answer with.
 */
export const ERROR_STATUS = {
  validation_failed: 400,
  invalid_json: 400,
  invalid_credentials: 401,
  invalid_token: 401,
  csrf_rejected: 403,
  not_found: 404,
  email_taken: 409,
  slug_taken: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
  unavailable: 503,
} as const;

export type TenantAuthErrorCode = keyof typeof ERROR_STATUS;

/** Codes a field-level validation failure may carry (see API.md). */
export type FieldErrorCode =
  | 'invalid_email'
  | 'email_taken'
  | 'too_short'
  | 'too_long'
  | 'missing_character_classes'
  | 'contains_personal_info'
  | 'common_password'
  | 'required'
  | 'invalid_type'
  | 'invalid_value';

export interface FieldError {
  field: string;
  code: FieldErrorCode;
  message: string;
}

export interface TenantAuthErrorOptions {
  cause?: unknown;
  /** Field errors of a `validation_failed`. */
  errors?: FieldError[];
  /** Seconds after which a `rate_limited` or `unavailable` request may be retried. */
  retryAfterSeconds?: number;
}

/**
 * The one error class of tenant-auth.
 *
 * @example
 * try {
 *   await auth.login({ email, password }, { ipAddress, userAgent });
 * } catch (err) {
 *   if (isTenantAuthError(err) && err.code === 'invalid_credentials') showLoginError();
 *   else throw err;
 * }
 */
export class TenantAuthError extends Error {
  override readonly name = 'TenantAuthError';
  readonly code: TenantAuthErrorCode;
  readonly status: number;
  readonly errors: FieldError[] | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(code: TenantAuthErrorCode, message: string, options: TenantAuthErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.errors = options.errors;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/**
 * Duck-typed check, safe across package copies (two versions of core in one tree).
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
