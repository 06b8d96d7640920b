import type { Context, Middleware, Next } from 'koa';
import { afterEach, expect } from 'vitest';
import { createOpenApiValidator } from '../../../test-support/openapi-validator.js';
import type { TenantAuthKoa, TenantAuthKoaOptions } from '../src/index.js';
import type { Operation } from '../src/operations/define.js';
import { OPERATIONS } from '../src/operations/index.js';
import { problemCodesOf } from '../src/operations/problems.js';
import { type Composition, composeTenantAuthKoa } from '../src/tenant-auth-koa.js';

/*
 * Every answer tenant-auth gives itself in these tests is checked against what its operation declares:
 * the status, headers and body against the OpenAPI document (derived from the operation table), and a
 * problem's code against the codes of the operation (`problemCodesOf`). A handler that answers a status,
 * a field or a code its operation does not declare fails the test that made the request.
 */

/** The body of an answer as the client receives it (HEAD: none). */
function bodyText(ctx: Context): string | undefined {
  if (ctx.method === 'HEAD') return '';
  const { body } = ctx;
  if (body === null || body === undefined) return '';
  if (typeof body === 'string') return body;
  if (Buffer.isBuffer(body)) return body.toString('utf8');
  if (typeof (body as { pipe?: unknown }).pipe === 'function') return undefined; // a stream: none of ours
  return JSON.stringify(body);
}

function headersOf(ctx: Context): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(ctx.response.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, String(value));
  }
  return headers;
}

/**
 * Wraps tenant-auth's middleware: after it answered a request itself (it did not hand it on to the
 * application's routes), reports what in the answer its operation (or the document) does not declare.
 * `operations` are the ones the document was made of (default: the table of operations/).
 */
export function checkAnswers(
  document: Record<string, unknown>,
  middleware: Middleware,
  report: (problems: string[]) => void,
  operations: readonly Operation[] = OPERATIONS,
): Middleware {
  const validator = createOpenApiValidator(document);
  const prefix = ((document.servers as { url: string }[])[0]?.url ?? '').replace(/\/$/, '');
  const byRoute = new Map<string, Operation>(operations.map((o) => [`${o.method} ${prefix}${o.path}`, o]));
  return async (ctx: Context, next: Next) => {
    let handedOn = false;
    await middleware(ctx, async () => {
      handedOn = true;
      await next();
    });
    const text = bodyText(ctx);
    if (handedOn || text === undefined) return;
    const headers = headersOf(ctx);
    const problems = validator.check(
      { method: ctx.method, path: ctx.url },
      { status: ctx.status, headers, text },
    );
    const method = ctx.method === 'HEAD' ? 'GET' : ctx.method;
    const operation = byRoute.get(`${method} ${(ctx as { _matchedRoute?: string })._matchedRoute}`);
    if (operation && text !== '' && headers.get('content-type')?.startsWith('application/problem+json')) {
      const { code } = JSON.parse(text) as { code: never };
      if (!problemCodesOf(operation).includes(code)) {
        problems.push(
          `${ctx.method} ${ctx.url} -> ${ctx.status}: ${operation.id} does not declare the code ${code}`,
        );
      }
    }
    if (problems.length > 0) report(problems);
  };
}

/** What the answers of the current test did not declare. */
const undeclared: string[] = [];

afterEach(() => {
  const found = undeclared.splice(0);
  expect(found, 'answers their operations do not declare').toEqual([]);
});

/**
 * `createTenantAuthKoa`, with every answer of its middleware checked (see {@link checkAnswers}): the
 * test that made a request fails when an answer is not what its operation declares. With a
 * `composition`, its API group's operations are the ones served, documented and checked.
 */
export function createCheckedTenantAuthKoa(
  options: TenantAuthKoaOptions,
  composition: Composition = {},
): TenantAuthKoa {
  const tenantAuth = composeTenantAuthKoa(options, composition);
  const checked = checkAnswers(
    tenantAuth.openapiDocument,
    tenantAuth.middleware(),
    (problems) => undeclared.push(...problems),
    composition.api?.operations,
  );
  return { ...tenantAuth, middleware: () => checked };
}
