import type { Middleware } from 'koa';
import { configurationError, consoleLogger, type Logger, type Role, type TenantAuth } from 'tenant-auth-core';
import type { AuthState, OptionalAuthState, PrincipalState } from './auth-state.js';
import { DEFAULT_BODY_LIMIT_BYTES } from './body-rules.js';
import { type CookieOptions, type ResolvedCookieOptions, resolveCookieOptions } from './cookies.js';
import { type CorsOptions, corsMiddleware } from './cors.js';
import {
  type GuardSettings,
  optionalAuthMiddleware,
  type RequireAuthOptions,
  type RequireRecentAuthOptions,
  requireAuthMiddleware,
} from './guards.js';
import { type HealthCheckOptions, healthCheck } from './health.js';
import { roleSchema } from './http-contract.js';
import { mountsMiddleware, serveMount } from './mount.js';
import { buildOpenApiDocument, type OpenApiInfo } from './openapi.js';
import { API_GROUP, type Mount, type OperationGroup } from './operation-group.js';
import { DEVELOPMENT_ORIGINS, originSet } from './origins.js';
import { isUnderPrefix, normalizePrefix } from './prefix.js';
import type { ResponseInfo } from './response-hook.js';
import { scimOperationGroup } from './scim/scim-operation-group.js';
import { resolveScimOptions, type ScimOptions } from './scim/scim-options.js';

/**
 * Options of {@link createTenantAuthKoa}. Only `auth` is required; every default follows the HTTP
 * contract (docs/http-api.md). A bad option throws `TenantAuthError` with code `invalid_configuration` naming it,
 * when `createTenantAuthKoa` is called.
 *
 * @example
 * const options: TenantAuthKoaOptions = {
 *   auth,
 *   production: process.env.NODE_ENV === 'production',
 *   origins: ['https://app.example.com'],
 * };
 */
export interface TenantAuthKoaOptions {
  /** The service from `createTenantAuth` (its `rateLimit` option decides the budgets applied here). */
  auth: TenantAuth;
  /** Where the routes live; everything this package installs applies under it only. Default `/api/v1`. */
  prefix?: string;
  /**
   * Production mode: the browser-enforced cookie names `__Host-access_token` and
   * `__Secure-refresh_token`, and `origins` required. Default `false`.
   */
  production?: boolean;
  /**
   * The exact web origins (`https://app.example.com`) allowed by CORS and by the CSRF rule for
   * cookie-authenticated requests. Default (development only): {@link DEVELOPMENT_ORIGINS}.
   */
  origins?: Iterable<string>;
  /** Cookie names and path; see {@link CookieOptions}. */
  cookies?: CookieOptions;
  /** CORS settings other than the origins, or `false` to leave CORS to the application. */
  cors?: CorsOptions | false;
  /** Largest JSON body accepted, in bytes. Default 16384 (16 KiB). */
  bodyLimitBytes?: number;
  /** Where unexpected errors are logged (pino fits). Default: JSON lines on stderr. */
  logger?: Logger;
  /** Adds `GET <prefix>/health`, answering whether `ping` resolves. */
  health?: HealthCheckOptions;
  /** `info` of the OpenAPI document served at `<prefix>/openapi.json`. */
  openapi?: OpenApiInfo;
  /**
   * Sets `X-Content-Type-Options: nosniff`, `X-Frame-Options: DENY` and `Referrer-Policy: no-referrer`
   * on every response under the prefix (an API answers JSON only). Default `true`.
   */
  securityHeaders?: boolean;
  /**
   * Called once for each request answered under the prefix, with its route template (never the raw
   * path), method, status and duration: for request metrics (see {@link ResponseInfo}). Requests
   * outside the prefix are the application's to measure. A hook that throws is ignored.
   */
  onResponse?: (info: ResponseInfo) => void;
  /**
   * Serves SCIM 2.0 provisioning at the path of `scim.baseUrl` (outside the prefix), with the SCIM token
   * routes under the prefix; see {@link ScimOptions}. Without it those routes answer `501
   * feature_unavailable` and nothing is served at `/scim/v2`.
   */
  scim?: ScimOptions;
}

/**
 * tenant-auth on a Koa application, configured once: the one way to add it (see
 * {@link createTenantAuthKoa}).
 *
 * @example
 * const tenantAuth: TenantAuthKoa = createTenantAuthKoa({ auth });
 * app.use(tenantAuth.middleware());
 */
export interface TenantAuthKoa {
  /** The prefix everything is installed under. */
  readonly prefix: string;
  /** The cookie names and refresh-cookie path in use. */
  readonly cookies: ResolvedCookieOptions;
  /** The allowed web origins (CORS and CSRF). */
  readonly origins: ReadonlySet<string>;
  /** The OpenAPI 3.1 document of the routes, as served at `<prefix>/openapi.json`. */
  readonly openapiDocument: Record<string, unknown>;
  /**
   * The middleware to `app.use()`. Requests outside the prefix pass straight through, untouched. Under
   * the prefix, in order: a request id, security headers, problem+json errors, CORS, the per-client rate
   * limit (`strict` on the credential routes, `general` on the others), JSON-only bodies, the routes of
   * docs/http-api.md, then the application's own routes under the prefix, and `404 not_found` when nothing answered.
   */
  middleware(): Middleware;
  /**
   * Middleware that requires a valid access token (`Authorization: Bearer` first, then the access
   * cookie) and puts its claims on `ctx.state.auth`. It answers the failure itself as a problem
   * (`401 invalid_token`, `403 csrf_rejected` for a cookie on a cross-origin unsafe request, `503`),
   * so it works on routes outside the prefix with no error middleware of ours. With
   * `{ requireVerifiedEmail: true }` it also answers `403 forbidden` to callers whose email is not
   * verified. With `{ apiKeys: true }` it also accepts an API key in the Authorization header (never a
   * cookie): `ctx.state.auth.actorType` is then `'api_key'`; without it a key is answered `403 forbidden`.
   * @example router.get('/reports', tenantAuth.requireAuth({ apiKeys: true }), listReports);
   */
  requireAuth(options: RequireAuthOptions & { apiKeys: true }): Middleware<PrincipalState>;
  requireAuth(options?: RequireAuthOptions): Middleware<AuthState>;
  /**
   * Like {@link TenantAuthKoa.requireAuth}, and the caller's role must be at least `minimum` (owner >
   * admin > member), read from the stores on every request (`403 forbidden` otherwise). The trade-off:
   * one database read per request, for an answer that cannot go stale: a demoted admin is refused at
   * once, where the token's `role` claim would still say `admin` until it expires. Use
   * `ctx.state.auth.role` (the token's claim) for what may lag, such as showing or hiding a button.
   *
   * @example
   * router.delete('/projects/:id', tenantAuth.requireRole('admin'), deleteProject);
   * router.get('/exports', tenantAuth.requireRole('admin', { apiKeys: true }), listExports); // keys too
   */
  requireRole(minimum: Role, options: { apiKeys: true }): Middleware<PrincipalState>;
  requireRole(minimum: Role, options?: { apiKeys?: boolean }): Middleware<AuthState>;
  /**
   * Like {@link TenantAuthKoa.requireAuth}, and the caller must have proved who they are recently: the
   * token's `auth_time` at most `maxAgeSeconds` old and, when the user has a second factor (read from the
   * stores on every request), `mfa` in its `amr`. Otherwise `403 reauthentication_required`: the client
   * calls `POST /auth/reauthenticate` and retries. For an application's own sensitive routes (changing a
   * payout account, exporting data), as tenant-auth guards its own *recent* routes.
   *
   * @example
   * router.post('/billing/payout-account', tenantAuth.requireRecentAuth(), changePayoutAccount);
   * router.delete('/projects/:id', tenantAuth.requireRecentAuth({ maxAgeSeconds: 300 }), deleteProject);
   */
  requireRecentAuth(options?: RequireRecentAuthOptions): Middleware<AuthState>;
  /**
   * Like {@link TenantAuthKoa.requireAuth}, but lets requests without a valid token through anonymously
   * (an API key is still answered `403 forbidden`: keys are welcome only where a route opts in).
   */
  optionalAuth(): Middleware<OptionalAuthState>;
}

const FACTORY = 'createTenantAuthKoa';

function checkOptions(options: TenantAuthKoaOptions) {
  if (typeof options !== 'object' || options === null)
    throw configurationError(FACTORY, 'options', 'must be an object');
  const auth = options.auth as Partial<TenantAuth> | undefined;
  if (typeof auth?.verifyAccessToken !== 'function' || typeof auth.rateLimit !== 'function') {
    throw configurationError(FACTORY, 'auth', 'must be the TenantAuth that createTenantAuth returns');
  }
  const production = options.production ?? false;
  if (typeof production !== 'boolean') throw configurationError(FACTORY, 'production', 'must be a boolean');
  if (production && (options.origins === undefined || [...options.origins].length === 0)) {
    throw configurationError(
      FACTORY,
      'origins',
      'are required in production (the exact origins of your web clients)',
    );
  }
  if (options.securityHeaders !== undefined && typeof options.securityHeaders !== 'boolean') {
    throw configurationError(FACTORY, 'securityHeaders', 'must be a boolean');
  }
  for (const option of ['cors', 'cookies', 'openapi', 'health'] as const) {
    const value: unknown = options[option];
    const isObject = typeof value === 'object' && value !== null;
    if (value !== undefined && !isObject && !(option === 'cors' && value === false)) {
      throw configurationError(
        FACTORY,
        option,
        option === 'cors' ? 'must be an object or false' : 'must be an object',
      );
    }
  }
  if (options.onResponse !== undefined && typeof options.onResponse !== 'function') {
    throw configurationError(FACTORY, 'onResponse', 'must be a function');
  }
  const bodyLimitBytes = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  if (!Number.isSafeInteger(bodyLimitBytes) || bodyLimitBytes < 1) {
    throw configurationError(FACTORY, 'bodyLimitBytes', 'must be a positive integer');
  }
  const logger = options.logger ?? consoleLogger;
  if (
    typeof logger?.error !== 'function' ||
    typeof logger.warn !== 'function' ||
    typeof logger.info !== 'function'
  ) {
    throw configurationError(
      FACTORY,
      'logger',
      'must have error, warn and info methods (a pino logger fits)',
    );
  }
  return { production, bodyLimitBytes, logger };
}

/**
 * Adds tenant-auth to a Koa application: the routes of the HTTP contract (docs/http-api.md) under a prefix, with
 * problem+json errors, CORS over an exact-origin whitelist, per-client rate limits, JSON-only bodies,
 * CSRF checks for cookie-authenticated requests, token cookies and an OpenAPI document; and guards for
 * the application's own routes. Everything it installs applies under its prefix only: the
 * application's other routes keep their own body parsing, errors and limits. The one composition path
 * of tenant-auth: the reference server uses it too.
 *
 * @example
 * const auth = createTenantAuth({ stores, accessToken: { secret }, refreshSecret });
 * const tenantAuth = createTenantAuthKoa({ auth, origins: ['https://app.example.com'], production: true });
 * app.use(tenantAuth.middleware());
 *
 * const projects = new Router<AuthState>();
 * projects.get('/projects', tenantAuth.requireAuth(), async (ctx) => {
 *   ctx.body = await listProjects(ctx.state.auth.tenantId);
 * });
 * app.use(projects.routes());
 */
export function createTenantAuthKoa(options: TenantAuthKoaOptions): TenantAuthKoa {
  return composeTenantAuthKoa(options);
}

/**
 * @internal What {@link composeTenantAuthKoa} serves besides the options: the API group under the prefix
 * (default: the routes of the HTTP contract), and groups mounted outside it, each at its own path.
 */
export interface Composition {
  api?: OperationGroup;
  mounts?: readonly Mount[];
}

/**
 * @internal {@link createTenantAuthKoa}, with the groups it serves named: the one composition path, which
 * a group of another protocol (SCIM) joins with a mount (a path from its option, and its group), and
 * through which tests and recipes serve an operation table of their own.
 */
export function composeTenantAuthKoa(
  options: TenantAuthKoaOptions,
  composition: Composition = {},
): TenantAuthKoa {
  const { production, bodyLimitBytes, logger } = checkOptions(options);
  const { auth } = options;
  const prefix = normalizePrefix(options.prefix);
  const api = composition.api ?? API_GROUP;
  const scim = options.scim === undefined ? undefined : resolveScimOptions(options.scim);
  const scimMounts: Mount[] =
    scim === undefined
      ? []
      : [
          {
            path: scim.path,
            option: 'scim.path',
            group: scimOperationGroup({ bodyLimitBytes: scim.bodyLimitBytes, budget: scim.budget, logger }),
          },
        ];
  const mounts = mountsOf(prefix, api, [...scimMounts, ...(composition.mounts ?? [])]);
  const origins = originSet(options.origins ?? DEVELOPMENT_ORIGINS, 'origins');
  const cookies = resolveCookieOptions(options.cookies ?? {}, prefix, production);
  const health = options.health === undefined ? undefined : healthCheck(options.health);
  const guard: GuardSettings = {
    tokenPlaces: { cookies: cookies.read ? [cookies.accessName] : [] },
    origins,
  };
  const openapiDocument = buildOpenApiDocument({
    prefix,
    cookies,
    limits: auth.inputLimits,
    health: health !== undefined,
    operations: api.operations,
    ...(options.openapi ? { info: options.openapi } : {}),
  });
  const settings = {
    routes: {
      auth,
      prefix,
      cookies,
      origins,
      health,
      openapiJson: JSON.stringify(openapiDocument),
      bodyLimitBytes,
      scim: scim === undefined ? undefined : { baseUrl: scim.baseUrl },
    },
    guard,
    cors: options.cors === false ? undefined : corsMiddleware(options.cors ?? {}, origins),
    logger,
    securityHeaders: options.securityHeaders ?? true,
    onResponse: options.onResponse,
  };
  const middleware = mountsMiddleware(
    mounts.map((mount) => ({ path: mount.path, serve: serveMount(mount, settings) })),
    isUnderPrefix,
  );
  return {
    prefix,
    cookies,
    origins,
    openapiDocument,
    middleware: () => middleware,
    ...guardFactories(auth, guard),
  };
}

/**
 * The API group at the prefix, and the other groups each at a path valid as the prefix is (never `''`,
 * which would hold every path), no two groups at one path.
 */
function mountsOf(prefix: string, api: OperationGroup, others: readonly Mount[]): Mount[] {
  const mounts: Mount[] = [{ path: prefix, group: api }];
  for (const mount of others) {
    const option = mount.option ?? 'mounts';
    const path = normalizePrefix(mount.path, option);
    if (path === '' || mounts.some((m) => m.path === path)) {
      throw configurationError(FACTORY, option, `must be a path of its own (${path || "''"} is taken)`);
    }
    mounts.push({ ...mount, path });
  }
  return mounts;
}

/** The guards for the application's own routes; `requireAuth()` without options is one middleware, made once. */
function guardFactories(
  auth: TenantAuth,
  guard: GuardSettings,
): Pick<TenantAuthKoa, 'requireAuth' | 'requireRole' | 'requireRecentAuth' | 'optionalAuth'> {
  const authenticated = requireAuthMiddleware(auth, guard);
  return {
    requireAuth: ((requireOptions?: RequireAuthOptions) =>
      requireOptions?.requireVerifiedEmail || requireOptions?.apiKeys
        ? requireAuthMiddleware(auth, guard, requireOptions)
        : authenticated) as TenantAuthKoa['requireAuth'],
    requireRole: ((minimum: Role, roleOptions?: { apiKeys?: boolean }) => {
      if (!roleSchema.options.includes(minimum)) {
        throw configurationError('requireRole', 'minimum', "must be 'owner', 'admin' or 'member'");
      }
      return requireAuthMiddleware(auth, guard, { role: minimum, apiKeys: roleOptions?.apiKeys === true });
    }) as TenantAuthKoa['requireRole'],
    requireRecentAuth(recentOptions: RequireRecentAuthOptions = {}) {
      const { maxAgeSeconds } = recentOptions;
      if (maxAgeSeconds !== undefined && (!Number.isSafeInteger(maxAgeSeconds) || maxAgeSeconds < 1)) {
        throw configurationError('requireRecentAuth', 'maxAgeSeconds', 'must be a positive integer');
      }
      return requireAuthMiddleware(auth, guard, {
        recent: maxAgeSeconds === undefined ? {} : { maxAgeSeconds },
      });
    },
    optionalAuth: () => optionalAuthMiddleware(auth, guard),
  };
}
