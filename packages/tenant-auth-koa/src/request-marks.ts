import type { Context } from 'koa';

/** Set on the context of a request that presented a token (a property, not a WeakSet: this runs on every request). */
const PRESENTED = Symbol('tenant-auth.tokenPresented');

type Marked = Context & { [PRESENTED]?: true };

/** @internal Records that the request presented a token, so a 401 says `error="invalid_token"`. */
export function markTokenPresented(ctx: Context): void {
  (ctx as Marked)[PRESENTED] = true;
}

/** @internal Whether {@link markTokenPresented} was called for this request. */
export function wasTokenPresented(ctx: Context): boolean {
  return (ctx as Marked)[PRESENTED] === true;
}
