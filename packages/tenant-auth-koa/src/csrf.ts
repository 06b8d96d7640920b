import type { Context } from 'koa';
import { TenantAuthError } from 'tenant-auth-core';
import { requestOrigin } from './origins.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * @internal Whether a method can change state (anything but GET, HEAD and OPTIONS; unknown methods count as unsafe).
 *
 * @example isUnsafeMethod('POST'); // true
 */
export function isUnsafeMethod(method: string): boolean {
  return !SAFE_METHODS.has(method.toUpperCase());
}

/**
 * @internal The CSRF rule for a request about to be authenticated by a cookie: when the method is unsafe, its
 * `Origin` (or, absent, the origin of its `Referer`) must be one of `allowedOrigins`. A request with
 * neither header is refused too (fail closed); clients without a browser send `Authorization: Bearer`
 * instead of cookies. Throws `csrf_rejected`.
 *
 * @example
 * if (via === 'cookie') assertSameOriginRequest(ctx, allowedOrigins);
 */
export function assertSameOriginRequest(ctx: Context, allowedOrigins: ReadonlySet<string> | undefined): void {
  if (!isUnsafeMethod(ctx.method)) return;
  const origin = requestOrigin(ctx.get('origin') || undefined, ctx.get('referer') || undefined);
  if (origin !== undefined && allowedOrigins?.has(origin)) return;
  throw new TenantAuthError(
    'csrf_rejected',
    origin === undefined
      ? 'A cookie-authenticated request must carry an Origin or Referer header.'
      : 'The request origin is not allowed.',
  );
}
