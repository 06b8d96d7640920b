import type { Context } from 'koa';
import { fieldError, TenantAuthError, validationError } from 'tenant-auth-core';
import { readCookie } from './cookies.js';
import { MAX_TOKEN_LENGTH } from './problem-codes.js';
import { requestBody } from './request-body.js';
import { markTokenPresented } from './request-marks.js';

/**
 * @internal The token of an `Authorization: Bearer <token>` header. `undefined` when there is no Authorization
 * header; `null` when there is one but it is not a well-formed Bearer credential.
 */
export function readBearerToken(ctx: Context): string | null | undefined {
  // A request reads its header more than once (its API key's budget, then its guard): matched once per
  // request. Kept with the request only, so no credential outlives it.
  const header = ctx.get('authorization');
  if (!header) return undefined;
  const known = bearerOf.get(ctx);
  if (known?.header === header) return known.token;
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
  const found = match?.[1];
  const token = !found || found.length > MAX_TOKEN_LENGTH ? null : found;
  bearerOf.set(ctx, { header, token });
  return token;
}

const bearerOf = new WeakMap<Context, { header: string; token: string | null }>();

/** @internal Where a request's token was found. */
export interface FoundToken {
  token: string;
  /** `cookie` tokens are the ones the CSRF rule applies to. */
  via: 'header' | 'body' | 'cookie';
}

/**
 * @internal The one rule of where a token is read from, in order: the `Authorization: Bearer` header,
 * then (when `bodyField` is given) that field of the JSON body, then the named cookies in order.
 * A malformed Authorization header or an over-long token is a presented, invalid token: `invalid_token`
 * is thrown rather than falling back to a cookie. A found token marks the request (its 401 then says
 * `error="invalid_token"`).
 */
export function findToken(
  ctx: Context,
  places: { bodyField?: string; cookies: readonly string[] },
): FoundToken | undefined {
  const found = locate(ctx, places);
  if (found === undefined) return undefined;
  markTokenPresented(ctx);
  if (found.token.length > MAX_TOKEN_LENGTH)
    throw new TenantAuthError('invalid_token', 'The token is invalid.');
  return found;
}

function locate(
  ctx: Context,
  places: { bodyField?: string; cookies: readonly string[] },
): FoundToken | undefined {
  const bearer = readBearerToken(ctx);
  if (bearer === null) {
    markTokenPresented(ctx);
    throw new TenantAuthError('invalid_token', 'The Authorization header is not a valid Bearer credential.');
  }
  if (bearer !== undefined) return { token: bearer, via: 'header' };
  if (places.bodyField !== undefined) {
    const body = requestBody(ctx);
    const field =
      typeof body === 'object' && body !== null
        ? (body as Record<string, unknown>)[places.bodyField]
        : undefined;
    if (field !== undefined && field !== null && typeof field !== 'string') {
      throw validationError([
        fieldError(places.bodyField, 'invalid_type', `${places.bodyField} must be a string.`),
      ]);
    }
    if (typeof field === 'string' && field !== '') return { token: field, via: 'body' };
  }
  for (const name of places.cookies) {
    const cookie = readCookie(ctx, name);
    if (cookie !== undefined) return { token: cookie, via: 'cookie' };
  }
  return undefined;
}
