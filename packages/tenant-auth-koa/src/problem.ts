import { STATUS_CODES } from 'node:http';
import type { Context } from 'koa';
import { type FieldError, isTenantAuthError, type Logger, type TenantAuthErrorCode } from 'tenant-auth-core';
import type { z } from 'zod';
import { PROBLEM_CODES, type ProblemCode } from './problem-codes.js';
import type { problemSchema } from './problem-contract.js';
import { wasTokenPresented } from './request-marks.js';

/** Core codes that may reach a client. The others (`email_taken`, `invalid_configuration`, ...) are bugs there. */
const EDGE_CODES: ReadonlySet<string> = new Set<string>(PROBLEM_CODES);

/**
 * An RFC 9457 problem details body, as every error of tenant-auth is answered
 * (`Content-Type: application/problem+json`): the output type of `problemSchema` of
 * `tenant-auth-koa/contract`, so the two cannot disagree.
 *
 * @example
 * const body: ProblemDetails = { type: 'about:blank', title: 'Unauthorized', status: 401, code: 'invalid_token', detail: '…' };
 */
// An interface (not an alias) as in 1.0, so that code extending or merging with it keeps compiling.
export interface ProblemDetails extends z.output<typeof problemSchema> {}

/** The members of a problem body that an error's `extensions` may not overwrite. */
const STANDARD_MEMBERS: ReadonlySet<string> = new Set([
  'type',
  'title',
  'status',
  'code',
  'detail',
  'errors',
]);

/** Details that are fixed per code, so bodies cannot leak internals or tell resources apart. */
const FIXED_DETAIL: Partial<Record<ProblemCode, string>> = {
  not_found: 'The requested resource was not found.',
  method_not_allowed: 'The method is not allowed on this resource.',
  internal_error: 'An unexpected error occurred.',
  unavailable: 'The service is temporarily unavailable. Retry later.',
  invalid_json: 'The request body is not valid JSON.',
  payload_too_large: 'The request body is too large.',
  // `unsupported_media_type` says which media types the operation takes (request-body.ts).
};

/** `Retry-After` for a 429 or 503 whose error carries none. */
const DEFAULT_RETRY_AFTER_SECONDS = 5;

/** @internal What an error becomes. */
export interface Problem {
  status: number;
  code: ProblemCode;
  detail: string;
  errors?: FieldError[];
  /** RFC 9457 extension members of the error (`mfaToken`, `methods`, `expiresIn`). */
  extensions?: Record<string, unknown>;
  retryAfterSeconds?: number;
  rateLimit?: { limit: number; remaining: number; resetSeconds: number };
  /** Allowed response headers of a foreign HTTP error (its `Allow` on a 405, CORS, `Vary`). */
  headers?: Record<string, string>;
  /** Whether to log it as unexpected (a bug or a failure of ours). */
  unexpected: boolean;
}

interface HttpErrorLike {
  status?: unknown;
  statusCode?: unknown;
  expose?: unknown;
  message?: unknown;
  headers?: unknown;
}

/**
 * @internal Maps a thrown value to a problem. Only `TenantAuthError`s become our codes; an HTTP error of
 * anyone else keeps its status with the neutral code `http_error` (and its message only when it is
 * marked `expose`); anything else is an unexpected `500 internal_error`.
 */
export function problemOf(err: unknown): Problem {
  if (isTenantAuthError(err)) {
    const code: TenantAuthErrorCode = err.code;
    if (!EDGE_CODES.has(code)) {
      return {
        status: 500,
        code: 'internal_error',
        detail: FIXED_DETAIL.internal_error ?? '',
        unexpected: true,
      };
    }
    const edge = code as ProblemCode;
    const problem: Problem = {
      status: err.status,
      code: edge,
      detail: FIXED_DETAIL[edge] ?? err.message,
      // A 503 is the storage's moment, a 501 the application's choice of stores: neither is a fault here.
      unexpected: err.status >= 500 && edge !== 'unavailable' && edge !== 'feature_unavailable',
    };
    if (err.errors) problem.errors = err.errors;
    if (err.extensions) problem.extensions = err.extensions;
    if (err.retryAfterSeconds !== undefined) problem.retryAfterSeconds = err.retryAfterSeconds;
    if (err.rateLimit) problem.rateLimit = err.rateLimit;
    return problem;
  }
  const e = (typeof err === 'object' && err !== null ? err : {}) as HttpErrorLike;
  const raw = typeof e.status === 'number' ? e.status : typeof e.statusCode === 'number' ? e.statusCode : 500;
  const isHttpError = Number.isInteger(raw) && raw >= 400 && raw <= 599;
  if (!isHttpError || raw === 500) {
    return {
      status: 500,
      code: 'internal_error',
      detail: FIXED_DETAIL.internal_error ?? '',
      unexpected: true,
    };
  }
  const status = raw;
  // A 5xx message is never shown, whatever it says of itself: it tends to name upstreams and hosts.
  const exposed =
    status < 500 && e.expose === true && typeof e.message === 'string' ? e.message.slice(0, 500) : undefined;
  const problem: Problem = {
    status,
    code: 'http_error',
    detail: exposed ?? STATUS_CODES[status] ?? 'Error',
    unexpected: status >= 500,
  };
  if (typeof e.headers === 'object' && e.headers !== null) {
    problem.headers = Object.fromEntries(
      Object.entries(e.headers as Record<string, unknown>).filter(
        (entry): entry is [string, string] =>
          typeof entry[1] === 'string' && /^(access-control-|vary$|allow$)/i.test(entry[0]),
      ),
    );
  }
  return problem;
}

/** @internal The problem of a bodiless error status left by routing (a 404, a 405). */
export function problemOfStatus(status: number): Problem {
  const code: ProblemCode =
    status === 404 ? 'not_found' : status === 405 ? 'method_not_allowed' : 'http_error';
  return { status, code, detail: FIXED_DETAIL[code] ?? STATUS_CODES[status] ?? 'Error', unexpected: false };
}

/**
 * @internal Writes an error answer in a group's form: problem+json ({@link writeProblem}) under the prefix,
 * another form for a group that speaks another protocol (SCIM's errors). It gets the problem the thrown
 * value became, and the value itself (`undefined` for a bare 404 or 405 of routing).
 */
export type ErrorWriter = (ctx: Context, problem: Problem, err: unknown) => void;

/**
 * @internal The headers of every error answer, whatever its body's form: the ones earlier middleware set
 * (CORS, rate limits, cleared cookies) stay and those of a body do not; `WWW-Authenticate` on a 401, the
 * refusing budget's `RateLimit-*`, `Retry-After` on a 429 or 503, `Cache-Control: no-store`; then the status.
 */
export function writeErrorHeaders(ctx: Context, problem: Problem): void {
  ctx.remove('Content-Length');
  ctx.remove('Content-Encoding');
  ctx.remove('ETag');
  ctx.remove('Last-Modified');
  for (const [name, value] of Object.entries(problem.headers ?? {})) ctx.set(name, value);
  if (problem.status === 401) {
    ctx.set('WWW-Authenticate', wasTokenPresented(ctx) ? 'Bearer error="invalid_token"' : 'Bearer');
  }
  if (problem.rateLimit) {
    // The budget that refused: its own numbers, so a 429 never says there is room left.
    ctx.set('RateLimit-Limit', String(problem.rateLimit.limit));
    ctx.set('RateLimit-Remaining', String(problem.rateLimit.remaining));
    ctx.set('RateLimit-Reset', String(problem.rateLimit.resetSeconds));
  }
  if (problem.status === 429 || problem.status === 503) {
    ctx.set(
      'Retry-After',
      String(Math.max(1, Math.ceil(problem.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS))),
    );
  }
  ctx.set('Cache-Control', 'no-store');
  ctx.status = problem.status;
}

/** @internal Writes a problem as the response: the error form of the routes under the prefix. */
export function writeProblem(ctx: Context, problem: Problem): void {
  const body: ProblemDetails = {
    type: 'about:blank',
    title: STATUS_CODES[problem.status] ?? 'Error',
    status: problem.status,
    code: problem.code,
    detail: problem.detail,
  };
  if (problem.errors) body.errors = problem.errors;
  for (const [member, value] of Object.entries(problem.extensions ?? {})) {
    if (!STANDARD_MEMBERS.has(member)) (body as unknown as Record<string, unknown>)[member] = value;
  }
  writeErrorHeaders(ctx, problem);
  ctx.type = 'application/problem+json';
  ctx.body = JSON.stringify(body);
}

/** @internal Logs a problem that is a failure of ours (5xx), once, without letting the logger throw. */
export function logProblem(logger: Logger, ctx: Context, err: unknown, problem: Problem): void {
  if (problem.status < 500) return;
  try {
    const line = { err, method: ctx.method, path: ctx.path, status: problem.status, code: problem.code };
    if (problem.unexpected) logger.error(line, 'request failed');
    else logger.warn(line, 'request failed');
  } catch {
    // A failing logger must not turn a problem response into a crash.
  }
}

/**
 * Answers `err` as a problem details response, the way tenant-auth answers its own errors: for a host
 * application's own routes that want the same error shape. `TenantAuthError`s keep their code; other
 * HTTP errors keep their status with the code `http_error`; anything else is `500 internal_error`.
 *
 * @example
 * router.get('/projects/:id', tenantAuth.requireAuth(), async (ctx) => {
 *   const project = await projects.find(ctx.state.auth.tenantId, ctx.params.id);
 *   if (!project) return respondWithProblem(ctx, new TenantAuthError('not_found', 'No such project.'));
 *   ctx.body = project;
 * });
 */
export function respondWithProblem(ctx: Context, err: unknown): void {
  writeProblem(ctx, problemOf(err));
}
