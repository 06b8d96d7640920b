import type { Context } from 'koa';
import bodyParser from 'koa-bodyparser';
import { isTenantAuthError, TenantAuthError } from 'tenant-auth-core';
import { discardRest } from './body-discard.js';
import { type BodyRule, FORM_MEDIA_TYPE } from './body-rules.js';
import { assertSameOriginRequest, isUnsafeMethod } from './csrf.js';
import { formFields } from './form-body.js';

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

/** The sentence of a `415`: the media types the request's operation takes. */
const mediaTypeMessage = (rule: BodyRule) => `The request body must be ${rule.mediaTypes.join(' or ')}.`;

function mapParseError(err: unknown, rule: BodyRule): unknown {
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
    // An encoding the parser does not read (a charset it does not know).
    return new TenantAuthError('unsupported_media_type', mediaTypeMessage(rule), { cause: err });
  }
  if (e?.status === 400 || err instanceof SyntaxError) {
    return new TenantAuthError('invalid_json', 'The request body is not valid JSON.', { cause: err });
  }
  return err;
}

/** The parser of a rule's bodies: JSON into a value, a form into its text (read into fields after). */
function parserOf(rule: BodyRule) {
  const limit = `${rule.limitBytes}b`;
  return rule.form
    ? bodyParser({ enableTypes: ['text'], extendTypes: { text: [FORM_MEDIA_TYPE] }, textLimit: limit })
    : bodyParser({
        enableTypes: ['json'],
        extendTypes: { json: [...rule.mediaTypes] },
        jsonLimit: limit,
        strict: true,
      });
}

/**
 * @internal What reads the body of a request before its route: a step of the request rather than a
 * middleware, it returns a promise only when there is a body to read, so a request without one (every
 * GET) takes no asynchronous turn.
 */
export type BodyReader = (ctx: Context) => Promise<void> | undefined;

/**
 * @internal Body parsing by the rule of the request's operation (JSON by default: see body-rules.ts), on
 * `koa-bodyparser`:
 * - an unsafe request (POST, PUT, PATCH, DELETE, ...) that has a body or a Content-Type must be of one of
 *   the rule's media types, in UTF-8: anything else (for a JSON operation: forms, `text/plain`,
 *   multipart) gets `415 unsupported_media_type`, so a cross-site form never reaches a JSON operation;
 * - an operation that takes a form holds it to the same-origin rule (`403 csrf_rejected`) unless it is
 *   `crossSite`;
 * - bodies above the rule's limit (16 KiB by default) get `413 payload_too_large`, after the rest of the
 *   body was read and thrown away (up to `DISCARD_LIMIT`), so a client still writing it receives the answer;
 * - invalid JSON, a top-level value that is not an object or array, `__proto__` / `constructor` /
 *   `prototype` keys at any depth, text that is not well-formed Unicode (a lone surrogate), and a body
 *   that does not decode as its `Content-Encoding` says get `400 invalid_json`; a form field sent twice
 *   gets `400 validation_failed`.
 *
 * The parsed body is on `ctx.request.body` (`{}` when there was none; a form's fields as strings).
 * Reading it twice is harmless.
 */
export function bodyReader(rule: BodyRule, origins: ReadonlySet<string>): BodyReader {
  const parser = parserOf(rule);
  const { limitBytes: limit } = rule;
  const parse = async (ctx: Context): Promise<void> => {
    let parsedOk = false;
    try {
      await parser(ctx, async () => {
        parsedOk = true;
      });
    } catch (err) {
      const mapped = mapParseError(err, rule);
      if (isTenantAuthError(mapped) && mapped.code === 'payload_too_large') await discardRest(ctx);
      throw mapped;
    }
    if (!parsedOk) throw new TenantAuthError('invalid_json', 'The request body is not valid JSON.');
    if (rule.form) ctx.request.body = formFields(ctx.request.body as string);
    checkParsed(ctx.request.body);
  };
  return (ctx) => {
    const contentType = ctx.get('content-type');
    const { type, utf8 } = parseContentType(contentType);
    const accepted = rule.mediaTypes.includes(type);
    const unsafe = isUnsafeMethod(ctx.method);
    // Checked even when an earlier parser (the application's own) already read a form: a cross-site
    // form post must never reach an operation that does not take one.
    if (unsafe && (hasBody(ctx) || contentType !== '') && (!accepted || !utf8)) {
      throw new TenantAuthError('unsupported_media_type', mediaTypeMessage(rule));
    }
    if (unsafe && rule.form && !rule.crossSite) assertSameOriginRequest(ctx, origins);
    if (ctx.request.body !== undefined) {
      // Parsed by the application's own parser, perhaps with a larger limit: ours still holds.
      if (Number(ctx.get('content-length')) > limit) {
        throw new TenantAuthError('payload_too_large', 'The request body is too large.');
      }
      checkParsed(ctx.request.body);
      return undefined;
    }
    if (!accepted || !hasBody(ctx)) {
      ctx.request.body = {};
      return undefined;
    }
    return parse(ctx);
  };
}

/**
 * The body tenant-auth parsed for a request under its prefix (`{}` when the request had none): the JSON
 * value, or the fields of a form on the routes that take one, as `unknown`: check its shape before use. Koa's own types do not declare `ctx.request.body`, and the body
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
