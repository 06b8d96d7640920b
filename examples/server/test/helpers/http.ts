import { expect } from 'vitest';
import { referenceOpenApiDocument } from '../../../../scripts/openapi-document.js';
import { createOpenApiValidator, type OpenApiValidator } from '../../../../test-support/openapi-validator.js';

/** One parsed `Set-Cookie` header. */
export interface SetCookie {
  name: string;
  value: string;
  /** Attribute names lower-cased; flag attributes map to `true`. */
  attributes: Record<string, string | true>;
  raw: string;
}

/**
 * Parses every `Set-Cookie` header of a response.
 *
 * @example const cookies = setCookies(res); cookies.access_token?.attributes.httponly;
 */
export function setCookies(res: Response): Record<string, SetCookie> {
  const out: Record<string, SetCookie> = {};
  for (const raw of res.headers.getSetCookie()) {
    const [pair = '', ...attrs] = raw.split(';').map((s) => s.trim());
    const eq = pair.indexOf('=');
    const name = pair.slice(0, eq);
    const attributes: Record<string, string | true> = {};
    for (const attr of attrs) {
      const i = attr.indexOf('=');
      if (i === -1) attributes[attr.toLowerCase()] = true;
      else attributes[attr.slice(0, i).toLowerCase()] = attr.slice(i + 1);
    }
    out[name] = { name, value: pair.slice(eq + 1), attributes, raw };
  }
  return out;
}

/** A small client for one server: JSON in, JSON out, with the status and headers kept. */
export interface ApiResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
  res: Response;
}

export interface RequestOptions {
  method?: string;
  body?: unknown;
  /** Sent as is, with no Content-Type added. */
  rawBody?: string;
  token?: string;
  headers?: Record<string, string>;
}

let contract: OpenApiValidator | undefined;

/**
 * Calls `path` under `/api/v1` of `baseUrl`, and checks the answer against the OpenAPI document the
 * reference server serves (the status is documented for the operation, the body matches its schema for
 * that status and content type, with no undocumented field, and the required headers are there): a
 * response that does not match fails the test that received it.
 *
 * @example const r = await api(url, '/auth/login', { method: 'POST', body: { email, password } });
 */
export async function api<T = Record<string, unknown>>(
  baseUrl: string,
  path: string,
  options: RequestOptions = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const method = options.method ?? (body === undefined ? 'GET' : 'POST');
  const res = await fetch(`${baseUrl}/api/v1${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body }),
    redirect: 'manual',
  });
  const text = await res.text();
  contract ??= createOpenApiValidator(referenceOpenApiDocument());
  const problems = contract.check(
    { method, path: `/api/v1${path}` },
    { status: res.status, headers: res.headers, text },
  );
  if (problems.length > 0) {
    throw new Error(`the response does not match the OpenAPI document:\n${problems.join('\n')}`);
  }
  let parsed: unknown = text;
  if (text !== '') {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  return { status: res.status, headers: res.headers, body: parsed as T, res };
}

/**
 * {@link api}, as a well-behaved client calls: a 429 or 503 (a busy password hasher refuses a burst from
 * one network with `rate_limited`, retry after 1 s) is retried after its `Retry-After`, up to `attempts`
 * times. For tests that fire many requests at once and care about what the server did with each, not about
 * the refusals a loaded machine makes.
 *
 * @example const r = await apiPolitely(url, '/auth/register', { body: { email, password } }); expect(r.status).toBe(201);
 */
export async function apiPolitely<T = Record<string, unknown>>(
  baseUrl: string,
  path: string,
  options: RequestOptions = {},
  attempts = 30,
): Promise<ApiResponse<T>> {
  for (let attempt = 1; ; attempt++) {
    const r = await api<T>(baseUrl, path, options);
    if ((r.status !== 429 && r.status !== 503) || attempt >= attempts) return r;
    const seconds = Number(r.headers.get('retry-after') ?? '1');
    await new Promise((resolve) => setTimeout(resolve, (Number.isFinite(seconds) ? seconds : 1) * 1000));
  }
}

/** A password the default policy accepts. */
export const PASSWORD = 'Correct-Horse-Battery-42';

let counter = 0;
/** A unique email per call. */
export function uniqueEmail(prefix = 'user'): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter}@example.com`;
}

/** Asserts a problem+json answer with this status and code. */
export function expectProblem(
  r: { status: number; headers: Headers; body: unknown },
  status: number,
  code: string,
): void {
  expect(r.status).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(r.body).toMatchObject({ status, code });
}
