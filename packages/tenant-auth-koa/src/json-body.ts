import type { Context } from 'koa';
import bodyParser from 'koa-bodyparser';
import { isTenantAuthError, TenantAuthError } from 'tenant-auth-core';
import { isUnsafeMethod } from './csrf.js';

/** @internal Default JSON body limit: 16 KiB. */
export const DEFAULT_BODY_LIMIT_BYTES = 16 * 1024;

/**
 * @internal How much of a refused (too large) body is read and thrown away, and for how long, before the
 * `413` is sent. A client is still writing its body when the server decides; a server that answers and
 * closes at once makes the client's next write fail (EPIPE, ECONNRESET), and most clients then report that
 * failure instead of the answer. Reading the rest first, within these bounds, lets the answer arrive; past
 * them the answer goes at once and the connection is closed (what nginx's lingering close does too).
 */
export const DISCARD_LIMIT = { bytes: 4 * 1024 * 1024, ms: 10_000 } as const;

/**
 * @internal How many refused bodies this process reads and throws away at once. Each drain holds a
 * connection for up to {@link DISCARD_LIMIT}; without a cap, a client could open many such connections
 * and keep the server reading for them. Beyond it the `413` goes at once with `Connection: close`, the
 * body unread (the answer may then be lost to a client still writing: the price of the bound).
 */
export const MAX_CONCURRENT_DRAINS = 32;
let drains = 0;

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * @internal Whether a parsed JSON value holds a `__proto__`, `constructor` or `prototype` key at any depth.
 * (`JSON.parse` creates `__proto__` as an own property, so own keys are what is checked.) Iterative,
 * so deeply nested input cannot exhaust the stack.
 *
 * @example
 * hasForbiddenKey(JSON.parse('{"a":{"__proto__":{"admin":true}}}')); // true
 */
export function hasForbiddenKey(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (typeof current !== 'object' || current === null) continue;
    if (Array.isArray(current)) {
      for (const item of current) stack.push(item);
      continue;
    }
    for (const key of Object.keys(current)) {
      if (FORBIDDEN_KEYS.has(key)) return true;
      stack.push((current as Record<string, unknown>)[key]);
    }
  }
  return false;
}

/** The media type of a Content-Type header, lower-cased, and whether its charset (if any) is UTF-8. */
function parseContentType(header: string): { type: string; utf8: boolean } {
  const [type = '', ...params] = header.split(';');
  let utf8 = true;
  for (const param of params) {
    const [name = '', value = ''] = param.split('=');
    if (name.trim().toLowerCase() === 'charset') {
      utf8 = /^"?utf-8"?$/i.test(value.trim());
    }
  }
  return { type: type.trim().toLowerCase(), utf8 };
}

function hasBody(ctx: Context): boolean {
  const length = ctx.get('content-length');
  return ctx.get('transfer-encoding') !== '' || (length !== '' && length !== '0');
}

/** A zlib or brotli failure: a body whose Content-Encoding says gzip, deflate or br, and is not. */
function isDecodingError(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  return (
    (typeof e?.code === 'string' && (e.code.startsWith('Z_') || e.code.startsWith('ERR_BROTLI'))) ||
    (typeof e?.message === 'string' &&
      /incorrect header check|Decompression failed|unexpected end of file/.test(e.message))
  );
}

/** A string that is not well-formed Unicode (a lone surrogate): it has no UTF-8 form. */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * @internal Whether a parsed JSON value holds a string (key or value) that is not well-formed Unicode.
 * Iterative, like {@link hasForbiddenKey}.
 */
export function hasIllFormedText(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (typeof current === 'string') {
      if (LONE_SURROGATE.test(current)) return true;
      continue;
    }
    if (typeof current !== 'object' || current === null) continue;
    if (Array.isArray(current)) {
      for (const item of current) stack.push(item);
      continue;
    }
    for (const key of Object.keys(current)) {
      if (LONE_SURROGATE.test(key)) return true;
      stack.push((current as Record<string, unknown>)[key]);
    }
  }
  return false;
}

/** The checks every parsed body passes, whoever parsed it. */
function checkParsed(body: unknown): void {
  if (hasForbiddenKey(body)) {
    throw new TenantAuthError('invalid_json', 'The request body holds a forbidden key.');
  }
  // No database, driver or hash may see text that has no UTF-8 form (PGlite miscounts its bytes).
  if (hasIllFormedText(body)) {
    throw new TenantAuthError('invalid_json', 'The request body holds text that is not valid Unicode.');
  }
}

function mapParseError(err: unknown): unknown {
  const e = err as { status?: unknown; type?: unknown };
  if (isDecodingError(err)) {
    return new TenantAuthError(
      'invalid_json',
      'The request body does not decode as its Content-Encoding says.',
      {
        cause: err,
      },
    );
  }
  if (e?.status === 413 || e?.type === 'entity.too.large') {
    return new TenantAuthError('payload_too_large', 'The request body is too large.', { cause: err });
  }
  if (e?.status === 415) {
    return new TenantAuthError('unsupported_media_type', 'The request body encoding is not supported.', {
      cause: err,
    });
  }
  if (e?.status === 400 || err instanceof SyntaxError) {
    return new TenantAuthError('invalid_json', 'The request body is not valid JSON.', { cause: err });
  }
  return err;
}

/**
 * Reads what is left of a refused body and throws it away, within {@link DISCARD_LIMIT}, so the answer
 * that follows reaches a client that is still writing. Past the bound (or when the declared length is
 * already past it, or {@link MAX_CONCURRENT_DRAINS} are under way) the response says `Connection: close`
 * and the rest is never read.
 */
async function discardRest(ctx: Context): Promise<void> {
  const req = ctx.req;
  if (req.complete || req.destroyed) return;
  if (Number(ctx.get('content-length')) > DISCARD_LIMIT.bytes || drains >= MAX_CONCURRENT_DRAINS) {
    ctx.set('Connection', 'close');
    return;
  }
  // A Content-Encoding pipes the request into a decompressor, which the parser stopped reading.
  req.unpipe();
  drains++;
  try {
    await readAndDiscard(ctx);
  } finally {
    drains--;
  }
}

/** Reads the rest of the request and throws it away, until its end or past {@link DISCARD_LIMIT}. */
function readAndDiscard(ctx: Context): Promise<void> {
  const req = ctx.req;
  return new Promise<void>((resolve) => {
    let seen = 0;
    const stop = (whole: boolean) => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onEnd);
      req.off('error', onEnd);
      if (!whole) {
        req.pause();
        ctx.set('Connection', 'close');
      }
      resolve();
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > DISCARD_LIMIT.bytes) stop(false);
    };
    const onEnd = () => stop(true);
    const timer = setTimeout(() => stop(false), DISCARD_LIMIT.ms);
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('close', onEnd);
    req.once('error', onEnd);
    req.resume();
  });
}

/**
 * @internal Body parsing for a JSON API, on `koa-bodyparser`:
 * - an unsafe request (POST, PUT, PATCH, DELETE, ...) that has a body or a Content-Type must be
 *   `application/json` (UTF-8): forms, `text/plain` and multipart get `415 unsupported_media_type`, so a
 *   cross-site form can never reach a handler;
 * - bodies above the limit (16 KiB) get `413 payload_too_large`, after the rest of the body was read and
 *   thrown away (up to {@link DISCARD_LIMIT}), so a client still writing it receives the answer;
 * - invalid JSON, a top-level value that is not an object or array, `__proto__` / `constructor` /
 *   `prototype` keys at any depth, text that is not well-formed Unicode (a lone surrogate), and a body
 *   that does not decode as its `Content-Encoding` says get `400 invalid_json`.
 *
 * The parsed body is on `ctx.request.body` (`{}` when there was none). Reading it twice is harmless. A step
 * of the request rather than a middleware: it returns a promise only when there is a body to read, so a
 * request without one (every GET) takes no asynchronous turn here.
 */
export function jsonBodyReader(limit: number): (ctx: Context) => Promise<void> | undefined {
  const parser = bodyParser({ enableTypes: ['json'], jsonLimit: `${limit}b`, strict: true });
  const parse = async (ctx: Context): Promise<void> => {
    let parsedOk = false;
    try {
      await parser(ctx, async () => {
        parsedOk = true;
      });
    } catch (err) {
      const mapped = mapParseError(err);
      if (isTenantAuthError(mapped) && mapped.code === 'payload_too_large') await discardRest(ctx);
      throw mapped;
    }
    if (!parsedOk) throw new TenantAuthError('invalid_json', 'The request body is not valid JSON.');
    checkParsed(ctx.request.body);
  };
  return (ctx) => {
    const contentType = ctx.get('content-type');
    const { type, utf8 } = parseContentType(contentType);
    const isJson = type === 'application/json';
    // Checked even when an earlier parser (the application's own) already read a form: a cross-site
    // form post must never reach a handler.
    if (isUnsafeMethod(ctx.method) && (hasBody(ctx) || contentType !== '') && (!isJson || !utf8)) {
      throw new TenantAuthError('unsupported_media_type', 'The request body must be application/json.');
    }
    if (ctx.request.body !== undefined) {
      // Parsed by the application's own parser, perhaps with a larger limit: ours still holds.
      if (Number(ctx.get('content-length')) > limit) {
        throw new TenantAuthError('payload_too_large', 'The request body is too large.');
      }
      checkParsed(ctx.request.body);
      return undefined;
    }
    if (!isJson || !hasBody(ctx)) {
      ctx.request.body = {};
      return undefined;
    }
    return parse(ctx);
  };
}

/**
 * The JSON body tenant-auth parsed for a request under its prefix (`{}` when the request had none), as
 * `unknown`: check its shape before use. Koa's own types do not declare `ctx.request.body`, and the body
 * parsers' type packages declare it differently, so this is the typed way to read it. Outside the prefix
 * (where `tenantAuth.middleware()` parses nothing) it throws an `Error` that says so, unless the
 * application's own body parser has set `ctx.request.body`.
 *
 * @example
 * router.post('/api/v1/projects', tenantAuth.requireAuth(), async (ctx) => {
 *   const { name } = requestBody(ctx) as { name?: unknown };
 *   if (typeof name !== 'string') return respondWithProblem(ctx, new TenantAuthError('validation_failed', 'A name is required.'));
 * });
 */
export function requestBody(ctx: Context): unknown {
  const body = (ctx.request as { body?: unknown }).body;
  if (body === undefined) {
    // Otherwise the caller destructures `undefined` and gets a TypeError that says nothing of why.
    throw new Error(
      `requestBody() is only available for requests under tenant-auth's prefix: tenantAuth.middleware() parses the body there, and ${ctx.method} ${ctx.path} is not under it (or the middleware is not installed). Parse bodies of your other routes with your own body parser.`,
    );
  }
  return body;
}
