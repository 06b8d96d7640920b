import type { Context } from 'koa';

const presented = new WeakSet<Context>();

/** @internal Records that the request presented a token, so a 401 says `error="invalid_token"`. */
export function markTokenPresented(ctx: Context): void {
  presented.add(ctx);
}

/** @internal Whether {@link markTokenPresented} was called for this request. */
export function wasTokenPresented(ctx: Context): boolean {
  return presented.has(ctx);
}
