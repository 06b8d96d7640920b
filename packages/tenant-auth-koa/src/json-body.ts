import type { Context, Middleware, Next } from 'koa';
import bodyParser from 'koa-bodyparser';
import { TenantAuthError } from 'tenant-auth-core';
import { isUnsafeMethod } from './csrf.js';

/** Default JSON body limit: 16 KiB. */
export const DEFAULT_BODY_LIMIT_BYTES = 16 * 1024;

/** Options of {@link jsonBody}. */
export interface JsonBodyOptions {
  /** Largest accepted body in bytes. Default 16 KiB; larger bodies get `413 payload_too_large`. */
  limitBytes?: number;
}

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Whether a parsed JSON value holds a `__proto__`, `constructor` or `prototype` key at any depth.
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

function mapParseError(err: unknown): unknown {
  const e = err as { status?: unknown; type?: unknown };
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
 * Body parsing for a JSON API, on `koa-bodyparser`:
 * - an unsafe request (POST, PUT, PATCH, DELETE, ...) that has a body or a Content-Type must be
 *   `application/json` (UTF-8): forms, `text/plain` and multipart get `415 unsupported_media_type`, so a
 *   cross-site form can never reach a handler;
 * - bodies above the limit (16 KiB) get `413 payload_too_large`;
 * - invalid JSON, a top-level value that is not an object or array, and `__proto__` / `constructor` /
 *   `prototype` keys at any depth get `400 invalid_json`.
 *
 * The parsed body is on `ctx.request.body` (`{}` when there was none). Installing it twice is harmless.
 *
 * @example
 * app.use(errorHandler());
 * app.use(jsonBody({ limitBytes: 16 * 1024 }));
 */
export function jsonBody(options: JsonBodyOptions = {}): Middleware {
  const limit = options.limitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  if (!Number.isInteger(limit) || limit <= 0) throw new TypeError('limitBytes must be a positive integer');
  const parser = bodyParser({ enableTypes: ['json'], jsonLimit: `${limit}b`, strict: true });
  return async (ctx: Context, next: Next) => {
    const contentType = ctx.get('content-type');
    const { type, utf8 } = parseContentType(contentType);
    const isJson = type === 'application/json';
    // Checked even when an earlier parser (the application's own) already read a form: a cross-site
    // form post must never reach a handler.
    if (isUnsafeMethod(ctx.method) && (hasBody(ctx) || contentType !== '') && (!isJson || !utf8)) {
      throw new TenantAuthError('unsupported_media_type', 'The request body must be application/json.');
    }
    if (ctx.request.body !== undefined) {
      if (hasForbiddenKey(ctx.request.body)) {
        throw new TenantAuthError('invalid_json', 'The request body holds a forbidden key.');
      }
      return next();
    }
    if (!isJson || !hasBody(ctx)) {
      ctx.request.body = {};
      return next();
    }
    let parsedOk = false;
    try {
      await parser(ctx, async () => {
        parsedOk = true;
      });
    } catch (err) {
      throw mapParseError(err);
    }
    if (!parsedOk) throw new TenantAuthError('invalid_json', 'The request body is not valid JSON.');
    if (hasForbiddenKey(ctx.request.body)) {
      throw new TenantAuthError('invalid_json', 'The request body holds a forbidden key.');
    }
    return next();
  };
}
