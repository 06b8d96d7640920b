import type { Context } from 'koa';
import { configurationError } from 'tenant-auth-core';

/**
 * Cookie settings (the `cookies` option of `createTenantAuthKoa`). Defaults follow docs/http-api.md ("Endpoints"):
 * `access_token` (`Path=/`, `SameSite=Lax`) and `refresh_token` (`Path=<prefix>/auth`, `SameSite=Strict`),
 * both `HttpOnly; Secure`; with `production: true` the names carry the `__Host-` / `__Secure-` prefixes.
 *
 * @example
 * const cookies: CookieOptions = { accessName: 'myapp_at', refreshName: 'myapp_rt' };
 */
export interface CookieOptions {
  /** Overrides the access cookie name. */
  accessName?: string;
  /** Overrides the refresh cookie name. */
  refreshName?: string;
  /** Path of the refresh cookie. Default `<prefix>/auth`, so it only travels to the auth routes. */
  refreshPath?: string;
  /**
   * Whether token responses set cookies at all. Default `true`. Cookies are still read when `false`
   * (set `read: false` to ignore them too).
   */
  set?: boolean;
  /** Whether tokens are read from cookies. Default `true`. */
  read?: boolean;
}

/**
 * The cookie names and path in use, with every default applied (`tenantAuth.cookies`).
 *
 * @example
 * const { accessName, refreshName, refreshPath }: ResolvedCookieOptions = tenantAuth.cookies;
 */
export interface ResolvedCookieOptions {
  accessName: string;
  refreshName: string;
  refreshPath: string;
  set: boolean;
  read: boolean;
}

/** @internal Applies the defaults of {@link CookieOptions}; throws `invalid_configuration`. */
export function resolveCookieOptions(
  options: CookieOptions,
  prefix: string,
  secureNames: boolean,
): ResolvedCookieOptions {
  const accessName = options.accessName ?? (secureNames ? '__Host-access_token' : 'access_token');
  const refreshName = options.refreshName ?? (secureNames ? '__Secure-refresh_token' : 'refresh_token');
  const refreshPath = options.refreshPath ?? `${prefix}/auth`;
  for (const [option, name] of [
    ['cookies.accessName', accessName],
    ['cookies.refreshName', refreshName],
  ] as const) {
    if (typeof name !== 'string' || !/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)) {
      throw configurationError('createTenantAuthKoa', option, 'must be a valid cookie name (RFC 6265 token)');
    }
  }
  if (typeof refreshPath !== 'string' || !refreshPath.startsWith('/') || /[;\s,]/.test(refreshPath)) {
    throw configurationError('createTenantAuthKoa', 'cookies.refreshPath', 'must be a path starting with /');
  }
  return { accessName, refreshName, refreshPath, set: options.set ?? true, read: options.read ?? true };
}

/** @internal */
export interface CookieAttributes {
  path: string;
  /** `None` only for a cookie a cross-site `POST` must carry (the `sso_state` of a form-posting protocol). */
  sameSite: 'Lax' | 'Strict' | 'None';
  maxAgeSeconds: number;
}

/**
 * @internal Serialises one `Set-Cookie` value. Always `HttpOnly; Secure`: the header is written directly (not
 * through `ctx.cookies`) so `Secure` is sent behind a TLS-terminating proxy too, and `Max-Age` is exact.
 */
export function serializeCookie(name: string, value: string, attrs: CookieAttributes): string {
  const maxAge = Math.max(0, Math.floor(attrs.maxAgeSeconds));
  const parts = [`${name}=${value}`, `Path=${attrs.path}`, `Max-Age=${maxAge}`];
  if (maxAge === 0) parts.push('Expires=Thu, 01 Jan 1970 00:00:00 GMT');
  parts.push('HttpOnly', 'Secure', `SameSite=${attrs.sameSite}`);
  return parts.join('; ');
}

/** JWTs are base64url segments joined by dots; anything else never goes into a cookie. */
const COOKIE_VALUE = /^[A-Za-z0-9\-_.]*$/;

function appendSetCookie(ctx: Context, value: string): void {
  ctx.append('Set-Cookie', value);
}

/**
 * @internal Sets the access and refresh cookies of a token response, with `Max-Age` from the token lifetimes.
 *
 * @example
 * setTokenCookies(ctx, cookies, { accessToken, refreshToken, expiresIn: 900, refreshExpiresIn: 604800 });
 */
export function setTokenCookies(
  ctx: Context,
  cookies: ResolvedCookieOptions,
  tokens: { accessToken: string; refreshToken: string; expiresIn: number; refreshExpiresIn: number },
): void {
  if (!cookies.set) return;
  if (!COOKIE_VALUE.test(tokens.accessToken) || !COOKIE_VALUE.test(tokens.refreshToken)) {
    throw new TypeError('token is not cookie-safe');
  }
  appendSetCookie(
    ctx,
    serializeCookie(cookies.accessName, tokens.accessToken, {
      path: '/',
      sameSite: 'Lax',
      maxAgeSeconds: tokens.expiresIn,
    }),
  );
  appendSetCookie(
    ctx,
    serializeCookie(cookies.refreshName, tokens.refreshToken, {
      path: cookies.refreshPath,
      sameSite: 'Strict',
      maxAgeSeconds: tokens.refreshExpiresIn,
    }),
  );
}

/**
 * @internal Clears both cookies (same names and paths, `Max-Age=0` and an expiry in the past).
 *
 * @example
 * clearTokenCookies(ctx, cookies);
 */
export function clearTokenCookies(ctx: Context, cookies: ResolvedCookieOptions): void {
  if (!cookies.set) return;
  appendSetCookie(
    ctx,
    serializeCookie(cookies.accessName, '', { path: '/', sameSite: 'Lax', maxAgeSeconds: 0 }),
  );
  appendSetCookie(
    ctx,
    serializeCookie(cookies.refreshName, '', {
      path: cookies.refreshPath,
      sameSite: 'Strict',
      maxAgeSeconds: 0,
    }),
  );
}

/**
 * @internal Reads a cookie without signature checking (tokens are signed JWTs already, and `app.keys` must not
 * turn this into a signed-cookie lookup). Empty values count as absent.
 *
 * @example
 * const token = readCookie(ctx, 'access_token');
 */
export function readCookie(ctx: Context, name: string): string | undefined {
  const value = ctx.cookies.get(name, { signed: false });
  return value ? value : undefined;
}
