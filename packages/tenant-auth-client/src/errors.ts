import { type FieldError, PROBLEM_CODES, type Problem, type ProblemCode } from './contract.generated.js';

/**
 * The error of every failed call: the server's problem details (RFC 9457) as a typed value. Switch on
 * `code`, never on the message. A network failure (no answer at all) is `code: 'unavailable'` with
 * `status: 0`; an answer that is not a problem of tenant-auth (a proxy's HTML error page) keeps its
 * status with `code: 'http_error'`.
 *
 * @example
 * try {
 *   await client.login({ email, password });
 * } catch (err) {
 *   if (isTenantAuthClientError(err, 'invalid_credentials')) showWrongPassword();
 *   else if (isTenantAuthClientError(err, 'rate_limited')) showRetryIn(err.retryAfterSeconds);
 *   else throw err;
 * }
 */
export class TenantAuthClientError extends Error {
  override readonly name = 'TenantAuthClientError';
  /** The problem's stable code. */
  readonly code: ProblemCode;
  /** The HTTP status; `0` when no answer came (network failure). */
  readonly status: number;
  /** The field errors of a `validation_failed` (empty otherwise), with their typed codes. */
  readonly errors: readonly FieldError[];
  /** Seconds to wait before retrying (`Retry-After` of a `429` or `503`). */
  readonly retryAfterSeconds: number | undefined;
  /** The problem body as the server sent it, when it sent one. */
  readonly problem: Problem | undefined;

  constructor(
    code: ProblemCode,
    message: string,
    options: {
      status: number;
      errors?: readonly FieldError[];
      retryAfterSeconds?: number | undefined;
      problem?: Problem;
      cause?: unknown;
    },
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = options.status;
    this.errors = options.errors ?? [];
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.problem = options.problem;
  }
}

/**
 * Whether `err` is a {@link TenantAuthClientError} (optionally with that `code`). Duck-typed, so it holds
 * across two copies of the package.
 *
 * @example
 * if (isTenantAuthClientError(err, 'validation_failed')) showFieldErrors(err.errors);
 */
export function isTenantAuthClientError(err: unknown, code?: ProblemCode): err is TenantAuthClientError {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { name?: unknown; code?: unknown };
  return e.name === 'TenantAuthClientError' && (code === undefined || e.code === code);
}

const isProblemCode = (value: unknown): value is ProblemCode =>
  typeof value === 'string' && (PROBLEM_CODES as readonly string[]).includes(value);

/** `Retry-After` in seconds (a number of seconds or an HTTP date). */
function retryAfterOf(headers: Headers, now: number): number | undefined {
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

/** @internal The error of a response that is not a success. */
export function errorOf(response: Response, text: string, now: number): TenantAuthClientError {
  const retryAfterSeconds = retryAfterOf(response.headers, now);
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  const problem = body as Partial<Problem> | undefined;
  if (problem && typeof problem === 'object' && isProblemCode(problem.code)) {
    return new TenantAuthClientError(problem.code, problem.detail ?? problem.title ?? problem.code, {
      status: response.status,
      errors: Array.isArray(problem.errors) ? problem.errors : [],
      retryAfterSeconds,
      problem: problem as Problem,
    });
  }
  return new TenantAuthClientError('http_error', `HTTP ${response.status}`, {
    status: response.status,
    retryAfterSeconds,
  });
}

/** @internal The error of a request that got no answer. */
export function networkError(cause: unknown): TenantAuthClientError {
  const message = cause instanceof Error ? cause.message : String(cause);
  return new TenantAuthClientError('unavailable', `No answer from the server: ${message}`, {
    status: 0,
    cause,
  });
}

/** @internal The error of a refresh without a session to refresh. */
export function notSignedIn(): TenantAuthClientError {
  return new TenantAuthClientError('invalid_token', 'Not signed in.', { status: 401 });
}
