import { STATUS_CODES } from 'node:http';
import type { Context, Middleware, Next } from 'koa';
import { type FieldError, isTenantAuthError, type TenantAuthErrorCode } from 'tenant-auth-core';
import { consoleLogger, type TenantAuthLogger } from './logger.js';
import { wasTokenPresented } from './request-marks.js';

/** An RFC 9457 problem details body as this package writes it. */
export interface ProblemDetails {
  type: 'about:blank';
  title: string;
  status: number;
  code: string;
  detail: string;
  errors?: FieldError[];
}

/** Options of {@link errorHandler}. */
export interface ErrorHandlerOptions {
  /** Where unexpected errors (and every 5xx) are logged. Default: JSON lines on stderr. */
  logger?: TenantAuthLogger;
  /** `Retry-After` for a 429 or 503 whose error carries no `retryAfterSeconds`. Default 5. */
  defaultRetryAfterSeconds?: number;
}

/** Details that are fixed per code, so bodies cannot leak internals or tell resources apart. */
const FIXED_DETAIL: Partial<Record<string, string>> = {
  not_found: 'The requested resource was not found.',
  internal_error: 'An unexpected error occurred.',
  unavailable: 'The service is temporarily unavailable. Retry later.',
  invalid_json: 'The request body is not valid JSON.',
  payload_too_large: 'The request body is too large.',
  unsupported_media_type: 'The request body must be application/json.',
};

/** Codes for HTTP errors thrown by Koa middleware (`ctx.throw`, body parsing) rather than by core. */
function codeForStatus(status: number): string {
  switch (status) {
    case 400:
      return 'invalid_json';
    case 401:
      return 'invalid_token';
    case 404:
      return 'not_found';
    case 413:
      return 'payload_too_large';
    case 415:
      return 'unsupported_media_type';
    case 429:
      return 'rate_limited';
    case 503:
      return 'unavailable';
    default:
      return status >= 500
        ? 'internal_error'
        : (STATUS_CODES[status] ?? 'error').toLowerCase().replace(/[^a-z]+/g, '_');
  }
}

interface HttpErrorLike {
  status?: unknown;
  statusCode?: unknown;
  expose?: unknown;
  message?: unknown;
  headers?: unknown;
}

interface Mapped {
  status: number;
  code: string;
  detail: string;
  errors?: FieldError[];
  retryAfterSeconds?: number;
  headers?: Record<string, string>;
  /** Whether to log it as unexpected. */
  unexpected: boolean;
}

function mapError(err: unknown): Mapped {
  if (isTenantAuthError(err)) {
    const code: TenantAuthErrorCode = err.code;
    const mapped: Mapped = {
      status: err.status,
      code,
      detail: FIXED_DETAIL[code] ?? err.message,
      unexpected: err.status >= 500 && code !== 'unavailable',
    };
    if (err.errors) mapped.errors = err.errors;
    if (err.retryAfterSeconds !== undefined) mapped.retryAfterSeconds = err.retryAfterSeconds;
    return mapped;
  }
  const e = (typeof err === 'object' && err !== null ? err : {}) as HttpErrorLike;
  const rawStatus =
    typeof e.status === 'number' ? e.status : typeof e.statusCode === 'number' ? e.statusCode : 500;
  const status = Number.isInteger(rawStatus) && rawStatus >= 400 && rawStatus <= 599 ? rawStatus : 500;
  const code = codeForStatus(status);
  const exposable = status < 500 && e.expose === true && typeof e.message === 'string';
  const mapped: Mapped = {
    status,
    code,
    detail: FIXED_DETAIL[code] ?? (exposable ? (e.message as string) : (STATUS_CODES[status] ?? 'Error')),
    unexpected: status >= 500,
  };
  if (status < 500 && typeof e.headers === 'object' && e.headers !== null) {
    mapped.headers = Object.fromEntries(
      Object.entries(e.headers as Record<string, unknown>).filter(
        (entry): entry is [string, string] => typeof entry[1] === 'string',
      ),
    );
  }
  return mapped;
}

function writeProblem(ctx: Context, mapped: Mapped, defaultRetryAfter: number): void {
  const body: ProblemDetails = {
    type: 'about:blank',
    title: STATUS_CODES[mapped.status] ?? 'Error',
    status: mapped.status,
    code: mapped.code,
    detail: mapped.detail,
  };
  if (mapped.errors) body.errors = mapped.errors;
  // Headers from earlier middleware (CORS, rate-limit, cleared cookies) stay; body headers do not.
  ctx.remove('Content-Length');
  ctx.remove('Content-Encoding');
  ctx.remove('ETag');
  ctx.remove('Last-Modified');
  if (mapped.headers) {
    for (const [name, value] of Object.entries(mapped.headers)) {
      if (/^(access-control-|vary$|allow$)/i.test(name)) ctx.set(name, value);
    }
  }
  if (mapped.status === 401) {
    ctx.set('WWW-Authenticate', wasTokenPresented(ctx) ? 'Bearer error="invalid_token"' : 'Bearer');
  }
  if (mapped.status === 429 || mapped.status === 503) {
    ctx.set('Retry-After', String(Math.max(1, Math.ceil(mapped.retryAfterSeconds ?? defaultRetryAfter))));
  }
  if (mapped.status >= 500) ctx.set('Cache-Control', 'no-store');
  ctx.status = mapped.status;
  ctx.type = 'application/problem+json';
  ctx.body = JSON.stringify(body);
}

/**
 * Builds the problem details body and headers for `err` on `ctx` (what {@link errorHandler} does for a
 * thrown error). Exposed for applications that handle errors themselves.
 *
 * @example
 * respondWithProblem(ctx, new TenantAuthError('not_found', 'No such project.'));
 */
export function respondWithProblem(ctx: Context, err: unknown, options: ErrorHandlerOptions = {}): void {
  writeProblem(ctx, mapError(err), options.defaultRetryAfterSeconds ?? 5);
}

/**
 * The one error middleware: maps `TenantAuthError` codes (and HTTP errors of Koa middleware) to RFC 9457
 * `application/problem+json` (`type: 'about:blank'`, `title` the reason phrase, `status`, `code`,
 * `detail`, and `errors` for validation failures). 401 carries `WWW-Authenticate: Bearer`, 429/503
 * `Retry-After`. Unknown routes become `404 not_found`; other bodiless error statuses (a 405 of
 * `allowedMethods()`) get a problem body too. Anything unexpected is logged and becomes
 * `500 internal_error` with a fixed body. Install it first.
 *
 * @example
 * app.use(errorHandler({ logger: pino() }));
 */
export function errorHandler(options: ErrorHandlerOptions = {}): Middleware {
  const logger = options.logger ?? consoleLogger;
  const defaultRetryAfter = options.defaultRetryAfterSeconds ?? 5;
  return async (ctx: Context, next: Next) => {
    try {
      await next();
      // Bodiless error statuses (no route matched, router.allowedMethods()'s 405, a bare ctx.status = 401)
      // get a problem body too, so every error has the same shape.
      if (ctx.body == null && ctx.status >= 400) {
        const code = codeForStatus(ctx.status);
        const detail = FIXED_DETAIL[code] ?? STATUS_CODES[ctx.status] ?? 'Error';
        writeProblem(ctx, { status: ctx.status, code, detail, unexpected: false }, defaultRetryAfter);
      }
    } catch (err) {
      const mapped = mapError(err);
      if (mapped.unexpected || mapped.status >= 500) {
        const log = mapped.unexpected
          ? logger.error.bind(logger)
          : (logger.warn?.bind(logger) ?? logger.error.bind(logger));
        try {
          log(
            { err, method: ctx.method, path: ctx.path, status: mapped.status, code: mapped.code },
            'request failed',
          );
        } catch {
          // A failing logger must not turn a problem response into a crash.
        }
      }
      if (ctx.headerSent || !ctx.writable) return;
      writeProblem(ctx, mapped, defaultRetryAfter);
    }
  };
}
