import type { Context } from 'koa';

/** Largest token accepted from a header, cookie or body; longer values are refused unparsed. */
export const MAX_TOKEN_LENGTH = 8192;

/**
 * The token of an `Authorization: Bearer <token>` header. `undefined` when there is no Authorization
 * header; `null` when there is one but it is not a well-formed Bearer credential (that is a presented,
 * invalid token: the request is refused rather than falling back to a cookie).
 *
 * @example
 * const token = readBearerToken(ctx); // 'eyJ...' | null | undefined
 */
export function readBearerToken(ctx: Context): string | null | undefined {
  const header = ctx.get('authorization');
  if (!header) return undefined;
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
  const token = match?.[1];
  if (!token || token.length > MAX_TOKEN_LENGTH) return null;
  return token;
}
