import type { InputLimits } from 'tenant-auth-core';
import type { z } from 'zod';
import type { ResolvedCookieOptions } from './cookies.js';
import { problemSchema, requestSchemas } from './http-contract.js';
import {
  idOf,
  type JsonObject,
  namedSchemas,
  queryParameters,
  REF,
  toComponents,
} from './openapi-components.js';
import {
  COMMON,
  empty,
  json,
  NO_STORE,
  PROBLEM_RESPONSES,
  PUBLIC_CACHE,
  RETRY_AFTER,
  rateLimitHeaders,
  SHARED_RESPONSES,
  WWW_AUTHENTICATE,
} from './openapi-responses.js';
import type { Caller, DocumentKit, Operation, RequestSchemas, Tag } from './operations/define.js';
import { isServed, OPERATIONS } from './operations/index.js';
import { problemCodesOf } from './operations/problems.js';

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
  /** The operations documented, in order: the API group's (default: the table of operations/). */
  operations?: readonly Operation[];
}

/** The OpenAPI tags, in the document's order: one per `Tag` of the operations, no more, no less. */
const TAGS = {
  auth: 'Registration, login, token refresh, logout, joining by invitation.',
  mfa: 'Second factors (TOTP, recovery codes) and recent authentication.',
  sso: 'Single sign-on per tenant: domains, the OpenID Connect connection.',
  tenants: "The caller's tenant.",
  sessions: "The caller's sessions.",
  members: 'Members, roles and invitations.',
  recovery: 'Passwords, email verification and change, account deletion.',
  audit: 'The audit log of the tenant.',
  meta: 'Keys, this document and health.',
} as const satisfies Record<Tag, string>;

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
  if (success.mediaType !== undefined) {
    return {
      description: success.description,
      headers: rateLimitHeaders(false),
      content: { [success.mediaType]: { schema: { type: 'string' } } },
    };
  }
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

/** The request body of an operation: its schema in each media type it takes (JSON unless it says otherwise). */
function requestBodyOf(operation: Operation, schema: z.ZodObject): JsonObject {
  const mediaTypes = operation.request?.mediaTypes ?? ['application/json'];
  const ref = REF(idOf(schema));
  return {
    required: !operation.bodyOptional,
    content: Object.fromEntries(mediaTypes.map((type) => [type, { schema: ref }])),
  };
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
      : { requestBody: requestBodyOf(operation, requests[operation.body]) }),
    responses: responsesOf(operation, cookies),
  };
}

/** The order of the methods of a path in the document. */
const METHOD_ORDER = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** `paths`: one per path of the operations served, in the order of the table; `:name` becomes `{name}`. */
function pathsOf(
  options: OpenApiDocumentOptions,
  table: readonly Operation[],
  requests: RequestSchemas,
): Record<string, JsonObject> {
  const cookies = cookieHeaders(options.cookies);
  const served = table.filter((operation) => isServed(operation, { health: options.health ?? false }));
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
 * zod 4's JSON Schema output. Every status the middleware can answer is listed per operation, with its
 * headers. The components are the named schemas the operations answer and take (and the problem's), each
 * after those it is made of, answers first.
 */
export function buildOpenApiDocument(options: OpenApiDocumentOptions): JsonObject {
  const { prefix, cookies } = options;
  const table = options.operations ?? OPERATIONS;
  const requests = requestSchemas(options.limits);
  const answers = table.flatMap((o) => (o.success.body === undefined ? [] : [o.success.body]));
  const bodies = [...new Set(table.flatMap((o) => (o.body === undefined ? [] : [requests[o.body]])))];
  const schemas: Record<string, JsonObject> = {
    ...toComponents(namedSchemas([...answers, problemSchema]), 'output'),
    ...toComponents(namedSchemas(bodies), 'input'),
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
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths: pathsOf(options, table, requests),
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
