import type { InputLimits } from 'tenant-auth-core';
import type { ResolvedCookieOptions } from './cookies.js';
import { mfaMethodSchema, requestSchemas, roleSchema } from './http-contract.js';
import {
  idOf,
  type JsonObject,
  queryParameters,
  REF,
  RESPONSE,
  RESPONSE_SCHEMAS,
  toComponents,
} from './openapi-components.js';
import type { Caller, DocumentKit, Operation, RequestSchemas } from './operations/define.js';
import { isServed, OPERATIONS } from './operations/index.js';
import { problemCodesOf } from './operations/problems.js';
import type { ProblemCode } from './problem-codes.js';

/**
 * `info` of the OpenAPI document (the `openapi` option of `createTenantAuthKoa`).
 *
 * @example
 * const openapi: OpenApiInfo = { title: 'Acme API', version: '2.3.0' };
 */
export interface OpenApiInfo {
  title?: string;
  version?: string;
  description?: string;
}

/** @internal Options of {@link buildOpenApiDocument}. */
export interface OpenApiDocumentOptions {
  prefix: string;
  cookies: Pick<ResolvedCookieOptions, 'accessName' | 'refreshName' | 'refreshPath'> & {
    /** Whether token responses set cookies (default `true`): `Set-Cookie` is then a required header. */
    set?: boolean;
  };
  /** The limits of the `TenantAuth` the routes serve. */
  limits: InputLimits;
  /** Whether `GET /health` is documented. */
  health?: boolean;
  info?: OpenApiInfo;
}

const integer = (description: string, required: boolean) => ({
  description,
  required,
  schema: { type: 'integer', minimum: 0 },
});

const rateLimitHeaders = (required: boolean) => ({
  'RateLimit-Limit': integer(
    required
      ? 'Requests the refusing budget allows per window.'
      : 'Requests allowed per window (when rate limiting is on).',
    required,
  ),
  'RateLimit-Remaining': integer('Requests left in the window.', required),
  'RateLimit-Reset': integer('Seconds until the window frees a slot.', required),
});

const NO_STORE = {
  'Cache-Control': {
    description: 'Never cached: the answer is about one caller.',
    required: true,
    schema: { type: 'string', const: 'no-store' },
  },
};

const RETRY_AFTER = {
  'Retry-After': {
    description: 'Seconds to wait before retrying.',
    required: true,
    schema: { type: 'integer', minimum: 1 },
  },
};

const WWW_AUTHENTICATE = {
  'WWW-Authenticate': {
    description: '`Bearer`, with `error="invalid_token"` when a token was sent.',
    required: true,
    schema: { type: 'string' },
  },
};

const PUBLIC_CACHE = {
  'Cache-Control': {
    description: 'Public keys may be cached for five minutes.',
    required: true,
    schema: { type: 'string', const: 'public, max-age=300' },
  },
};

/** The headers of every answer under the prefix. */
const COMMON = { ...NO_STORE, ...rateLimitHeaders(false) };

const json = (schemaName: string, description: string, headers: JsonObject = {}): JsonObject => ({
  description,
  headers: { ...COMMON, ...headers },
  content: { 'application/json': { schema: REF(schemaName) } },
});
const empty = (description: string, headers: JsonObject = {}): JsonObject => ({
  description,
  headers: { ...COMMON, ...headers },
});
const problem = (description: string, headers: JsonObject = {}): JsonObject => ({
  description,
  headers: { ...COMMON, ...headers },
  content: { 'application/problem+json': { schema: REF('Problem') } },
});

/** The responses every operation may refer to (`components.responses`). */
const SHARED_RESPONSES: Record<string, JsonObject> = {
  BadRequest: problem(
    '`validation_failed` (with `errors`, one per refused field), or `invalid_json` (a body that is not JSON, holds `__proto__` / `constructor` / `prototype` keys, or text that is not well-formed Unicode).',
  ),
  Unauthorized: problem(
    '`invalid_token`: missing, malformed, expired, wrong-type or revoked token.',
    WWW_AUTHENTICATE,
  ),
  Forbidden: problem(
    "`forbidden`: the role does not allow it (checked against the current role), or an API key on a route that does not take keys; `email_not_verified`: inviting, changing a role and creating an API key need a verified email; `reauthentication_required` (the routes that need a recent authentication): the access token's `auth_time` is too old, or it lacks `mfa` while the user has a factor: `POST /auth/reauthenticate`, then retry; `csrf_rejected`: a cookie-authenticated unsafe request from an origin outside the whitelist (or with neither `Origin` nor `Referer`).",
  ),
  NotFound: problem("`not_found`: unknown id, or another tenant's resource (never 403: no probing)."),
  MethodNotAllowed: problem('`method_not_allowed`: another method of this path was used.', {
    Allow: {
      description: 'The methods this path answers.',
      required: true,
      schema: { type: 'string' },
    },
  }),
  LastOwner: problem('`last_owner`: the change would leave the tenant without an owner.'),
  PayloadTooLarge: problem('`payload_too_large`: the body is above the limit (16 KiB by default).'),
  UnsupportedMediaType: problem(
    '`unsupported_media_type`: an unsafe request whose body (or Content-Type) is not `application/json` in UTF-8.',
  ),
  RateLimited: problem(
    '`rate_limited`: the per-client budget of this route, or the per-account login throttle, is spent; the `RateLimit-*` headers describe the budget that refused.',
    { ...rateLimitHeaders(true), ...RETRY_AFTER },
  ),
  Unavailable: problem(
    '`unavailable`: the password-hashing queue is full, or the database or the rate-limit store does not answer.',
    { ...NO_STORE, ...RETRY_AFTER },
  ),
  InternalError: problem('`internal_error`: nothing internal is disclosed.'),
  MfaRequired: problem(
    '`mfa_required`: the password was right, a second factor is needed (`mfaToken`, `methods`, `expiresIn`; no session, no cookie); `mfa_setup_required`: the tenant requires a second factor and the user has none (`mfaToken`, `expiresIn`: enrol with it). On login also `invalid_credentials`: the same answer for an unknown email and a wrong password.',
    WWW_AUTHENTICATE,
  ),
  MfaConflict: problem(
    '`already_enabled` (a TOTP factor is active), `mfa_not_enabled` (the caller has no factor), or `mfa_required_by_tenant` (the tenant requires a factor and this is the last one).',
  ),
  SsoRequired: problem('`sso_required`: this address signs in through its tenant’s SSO only.'),
  DomainConflict: problem('`domain_taken` (another tenant has it) or `domain_not_verified` (no TXT yet).'),
};

/** The response of each problem code, by status (the first code of a status in `problemCodesOf` wins). */
const PROBLEM_RESPONSES: Record<ProblemCode, [status: string, response: JsonObject] | undefined> = {
  validation_failed: ['400', RESPONSE('BadRequest')],
  invalid_json: ['400', RESPONSE('BadRequest')],
  invalid_credentials: [
    '401',
    problem(
      '`invalid_credentials`: the same answer, in the same time, for an unknown email and a wrong password.',
      WWW_AUTHENTICATE,
    ),
  ],
  invalid_token: ['401', RESPONSE('Unauthorized')],
  // One 403 response for the codes that every kind of route may answer together (a role, an API key, a
  // recent authentication, CSRF): an operation lists its codes, the response says what each means.
  forbidden: ['403', RESPONSE('Forbidden')],
  csrf_rejected: ['403', RESPONSE('Forbidden')],
  email_not_verified: ['403', RESPONSE('Forbidden')],
  not_found: ['404', RESPONSE('NotFound')],
  method_not_allowed: ['405', RESPONSE('MethodNotAllowed')],
  last_owner: ['409', RESPONSE('LastOwner')],
  mfa_required: ['401', RESPONSE('MfaRequired')],
  mfa_setup_required: ['401', RESPONSE('MfaRequired')],
  reauthentication_required: ['403', RESPONSE('Forbidden')],
  mfa_required_by_tenant: ['409', RESPONSE('MfaConflict')],
  already_enabled: ['409', RESPONSE('MfaConflict')],
  mfa_not_enabled: ['409', RESPONSE('MfaConflict')],
  payload_too_large: ['413', RESPONSE('PayloadTooLarge')],
  unsupported_media_type: ['415', RESPONSE('UnsupportedMediaType')],
  rate_limited: ['429', RESPONSE('RateLimited')],
  internal_error: ['500', RESPONSE('InternalError')],
  unavailable: ['503', RESPONSE('Unavailable')],
  // A host route's HTTP error: never one of ours.
  http_error: undefined,
  sso_required: ['403', RESPONSE('SsoRequired')],
  domain_taken: ['409', RESPONSE('DomainConflict')],
  domain_not_verified: ['409', RESPONSE('DomainConflict')],
};

const SECURITY: Record<Caller, JsonObject[]> = {
  none: [],
  access: [{ bearerAuth: [] }, { accessCookie: [] }],
  admin: [{ bearerAuth: [] }, { accessCookie: [] }],
  refresh: [{ bearerAuth: [] }, { refreshCookie: [] }, {}],
  logout: [{ bearerAuth: [] }, { refreshCookie: [] }, { accessCookie: [] }],
  // Or, without a token, the `mfaToken` of a `mfa_setup_required` in the body (the operation says so): an
  // empty alternative here would read as the refresh routes' (a token in the body) to generated clients.
  setup: [{ bearerAuth: [] }, { accessCookie: [] }],
};
const API_KEY_AUTH = 'An API key of the tenant (`Bearer tak_…`), on the routes that list it; never a cookie.';

const BUDGET_TEXT = {
  strict: 'Rate limited with the strict budget (login, registration and the other credential routes).',
  general: 'Rate limited with the general budget.',
};

const RECENT_TEXT =
  'Needs a recent authentication: an access token whose `auth_time` is within the maximum age (600 s by default) and, when the user has a second factor, whose `amr` has `mfa`.';

const KIT: DocumentKit = { ref: REF, headers: { noStore: NO_STORE, retryAfter: RETRY_AFTER } };

/** The headers about cookies: set by token responses, cleared on logout (and after a refused refresh). */
function cookieHeaders(cookies: OpenApiDocumentOptions['cookies']) {
  const setsCookies = cookies.set ?? true;
  const set = {
    'Set-Cookie': {
      description: `Two cookies: \`${cookies.accessName}\` (HttpOnly; Secure; SameSite=Lax; Path=/) and \`${cookies.refreshName}\` (HttpOnly; Secure; SameSite=Strict; Path=${cookies.refreshPath}), Max-Age from the token lifetimes.${setsCookies ? '' : ' Not sent: this server sets no cookies.'}`,
      required: setsCookies,
      schema: { type: 'string' },
    },
  };
  const cleared = (required: boolean) => ({
    'Set-Cookie': {
      description: `Clears \`${cookies.accessName}\` and \`${cookies.refreshName}\` (same names and paths, Max-Age=0).${required ? '' : ' Sent when the token came from a cookie; on logout, whenever a token was presented.'}`,
      required: required && setsCookies,
      schema: { type: 'string' },
    },
  });
  return { set, cleared };
}

type CookieHeaders = ReturnType<typeof cookieHeaders>;

/** The answer of success, as the document states it. */
function successResponse(operation: Operation, cookies: CookieHeaders): JsonObject {
  const { success, cache } = operation;
  const schema = success.body === undefined ? success.jsonSchema : REF(idOf(success.body));
  if (cache !== undefined) {
    return {
      description: success.description,
      headers: { ...rateLimitHeaders(false), ...(cache === 'public' ? PUBLIC_CACHE : {}) },
      content: { 'application/json': { schema } },
    };
  }
  const headers =
    success.cookies === 'set' ? cookies.set : success.cookies === 'cleared' ? cookies.cleared(true) : {};
  return success.body === undefined
    ? empty(success.description, headers)
    : json(idOf(success.body), success.description, headers);
}

/** The responses of an operation: success, what it states itself, then one per problem code it may answer. */
function responsesOf(operation: Operation, cookies: CookieHeaders): JsonObject {
  const all: Record<string, JsonObject> = { [operation.success.status]: successResponse(operation, cookies) };
  if (operation.caller === 'refresh' || operation.caller === 'logout') {
    // The cookies of a token that was refused are cleared.
    all['401'] = {
      ...(SHARED_RESPONSES.Unauthorized as JsonObject),
      headers: { ...COMMON, ...WWW_AUTHENTICATE, ...cookies.cleared(false) },
    };
  }
  Object.assign(all, operation.moreResponses?.(KIT));
  for (const code of problemCodesOf(operation)) {
    const response = PROBLEM_RESPONSES[code];
    if (response === undefined) throw new Error(`tenant-auth-koa: no response of the problem code ${code}`);
    all[response[0]] ??= response[1];
  }
  return Object.fromEntries(Object.entries(all).sort(([a], [b]) => a.localeCompare(b)));
}

/** An operation of the document. */
function operationObject(operation: Operation, requests: RequestSchemas, cookies: CookieHeaders) {
  const pathParameters = Object.entries(operation.params ?? {}).map(([name, description]) => ({
    name,
    in: 'path',
    required: true,
    description: `${description} Any value that is not ${name === 'name' ? 'one' : 'the id of one'} of yours is \`404\`.`,
    schema: { type: 'string', format: name === 'name' ? 'hostname' : 'uuid' }, // `:name`: a domain (SSO)
  }));
  const parameters = [
    ...pathParameters,
    ...(operation.query === undefined ? [] : queryParameters(requests[operation.query])),
  ];
  return {
    operationId: operation.id,
    summary: operation.summary,
    description: [operation.description, operation.recent && RECENT_TEXT, BUDGET_TEXT[operation.budget]]
      .filter(Boolean)
      .join('\n\n'),
    tags: [operation.tag],
    security: operation.apiKeys
      ? [...SECURITY[operation.caller], { apiKeyAuth: [] }]
      : SECURITY[operation.caller],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(operation.body === undefined
      ? {}
      : {
          requestBody: {
            required: !operation.bodyOptional,
            content: { 'application/json': { schema: REF(idOf(requests[operation.body])) } },
          },
        }),
    responses: responsesOf(operation, cookies),
  };
}

/** The order of the methods of a path in the document. */
const METHOD_ORDER = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** `paths`: one per path of the operations served, in the order of the table; `:name` becomes `{name}`. */
function pathsOf(options: OpenApiDocumentOptions, requests: RequestSchemas): Record<string, JsonObject> {
  const cookies = cookieHeaders(options.cookies);
  const served = OPERATIONS.filter((operation) => isServed(operation, { health: options.health ?? false }));
  const byPath = new Map<string, Operation[]>();
  for (const operation of served) {
    const path = operation.path.replace(/:(\w+)/g, '{$1}');
    byPath.set(path, [...(byPath.get(path) ?? []), operation]);
  }
  const paths: Record<string, JsonObject> = {};
  for (const [path, operations] of byPath) {
    const item: JsonObject = {};
    for (const method of METHOD_ORDER) {
      const operation = operations.find((o) => o.method === method);
      if (operation) item[method.toLowerCase()] = operationObject(operation, requests, cookies);
    }
    paths[path] = item;
  }
  return paths;
}

/**
 * @internal The OpenAPI 3.1 document of the operation table (operations/): request bodies with the
 * limits of the `TenantAuth`, responses and problem details from this package's zod schemas, all through
 * zod 4's JSON Schema output. Every status the middleware can answer is listed per operation, with its headers.
 */
export function buildOpenApiDocument(options: OpenApiDocumentOptions): JsonObject {
  const { prefix, cookies } = options;
  const requests = requestSchemas(options.limits);
  const bodies = [...new Set(OPERATIONS.flatMap((o) => (o.body === undefined ? [] : [o.body])))];
  const schemas: Record<string, JsonObject> = {
    ...toComponents(RESPONSE_SCHEMAS, 'output'),
    ...toComponents([roleSchema, mfaMethodSchema, ...bodies.map((name) => requests[name])], 'input'),
  };
  // A fresh copy: the constants of this module are shared by every document.
  return structuredClone({
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: options.info?.title ?? 'tenant-auth',
      version: options.info?.version ?? '1.1.0',
      description:
        options.info?.description ??
        'Multi-tenant authentication: registration, login, rotating refresh tokens, sessions, members and invitations, account recovery, audit log. Errors are RFC 9457 problem details. Response objects may gain fields in later versions: ignore the ones you do not know.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: prefix || '/' }],
    tags: [
      { name: 'auth', description: 'Registration, login, token refresh, logout, joining by invitation.' },
      { name: 'mfa', description: 'Second factors (TOTP, recovery codes) and recent authentication.' },
      { name: 'sso', description: 'Single sign-on per tenant: domains, the OpenID Connect connection.' },
      { name: 'tenants', description: "The caller's tenant." },
      { name: 'sessions', description: "The caller's sessions." },
      { name: 'members', description: 'Members, roles and invitations.' },
      { name: 'recovery', description: 'Passwords, email verification and change, account deletion.' },
      { name: 'audit', description: 'The audit log of the tenant.' },
      { name: 'meta', description: 'Keys, this document and health.' },
    ],
    paths: pathsOf(options, requests),
    components: {
      schemas,
      responses: SHARED_RESPONSES,
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'An access token (or, on refresh and logout, a refresh token).',
        },
        apiKeyAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'tak_…', description: API_KEY_AUTH },
        accessCookie: {
          type: 'apiKey',
          in: 'cookie',
          name: cookies.accessName,
          description: 'The access cookie that token responses set (browsers).',
        },
        refreshCookie: {
          type: 'apiKey',
          in: 'cookie',
          name: cookies.refreshName,
          description: `The refresh cookie; it travels only to ${cookies.refreshPath}.`,
        },
      },
    },
  });
}
