import { loginInputSchema, refreshInputSchema, registerInputSchema } from 'tenant-auth-core';
import { z } from 'zod';
import type { ResolvedCookieOptions } from './cookies.js';
import {
  healthSchema,
  jwksSchema,
  problemSchema,
  registerResponseSchema,
  revokedCountSchema,
  sessionListSchema,
  tenantSchema,
  tokenResponseSchema,
} from './response-schemas.js';

/** `info` of the OpenAPI document. */
export interface OpenApiInfo {
  title?: string;
  version?: string;
  description?: string;
}

/** Options of {@link buildOpenApiDocument}. */
export interface OpenApiDocumentOptions {
  prefix?: string;
  cookies: Pick<ResolvedCookieOptions, 'accessName' | 'refreshName' | 'refreshPath'>;
  /** Whether `GET /health` is documented. */
  health?: boolean;
  info?: OpenApiInfo;
}

type JsonObject = Record<string, unknown>;

const REF = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** Converts a zod schema to a component; nested `$defs` become components too. */
function addComponent(components: JsonObject, name: string, schema: z.ZodType, io: 'input' | 'output'): void {
  const json = z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'any' }) as JsonObject;
  const rewritten = JSON.parse(
    JSON.stringify(json).replaceAll('"#/$defs/', '"#/components/schemas/'),
  ) as JsonObject;
  const {
    $schema: _schema,
    $defs,
    ...root
  } = rewritten as JsonObject & { $defs?: Record<string, JsonObject> };
  const defs = $defs ?? {};
  for (const [defName, def] of Object.entries(defs)) {
    if (defName !== name) components[defName] = def;
  }
  const rootRef = root.$ref;
  if (
    Object.keys(root).length === 1 &&
    typeof rootRef === 'string' &&
    rootRef.endsWith(`/${name}`) &&
    defs[name]
  ) {
    components[name] = defs[name];
  } else if (Object.keys(root).length === 1 && typeof rootRef === 'string') {
    components[name] = { $ref: rootRef };
  } else {
    components[name] = root;
  }
}

function json(schemaName: string, description: string, headers?: JsonObject): JsonObject {
  return {
    description,
    ...(headers ? { headers } : {}),
    content: { 'application/json': { schema: REF(schemaName) } },
  };
}

const problemRef = (name: string) => ({ $ref: `#/components/responses/${name}` });

/**
 * The OpenAPI 3.1 document of the routes of {@link createAuthRouter}: request bodies from core's zod
 * schemas, responses and problem details from this package's, all through zod 4's JSON Schema output.
 *
 * @example
 * const doc = buildOpenApiDocument({ prefix: '/api/v1', cookies: resolveCookieOptions() });
 * doc.openapi; // '3.1.0'
 */
export function buildOpenApiDocument(options: OpenApiDocumentOptions): JsonObject {
  const prefix = (options.prefix ?? '/api/v1').replace(/\/+$/, '');
  const { cookies } = options;
  const schemas: JsonObject = {};
  addComponent(schemas, 'RegisterRequest', registerInputSchema, 'input');
  addComponent(schemas, 'LoginRequest', loginInputSchema, 'input');
  addComponent(schemas, 'RefreshRequest', refreshInputSchema, 'input');
  addComponent(schemas, 'TokenResponse', tokenResponseSchema, 'output');
  addComponent(schemas, 'RegisterResponse', registerResponseSchema, 'output');
  addComponent(schemas, 'Tenant', tenantSchema, 'output');
  addComponent(schemas, 'SessionList', sessionListSchema, 'output');
  addComponent(schemas, 'RevokedCount', revokedCountSchema, 'output');
  addComponent(schemas, 'Jwks', jwksSchema, 'output');
  addComponent(schemas, 'Health', healthSchema, 'output');
  addComponent(schemas, 'Problem', problemSchema, 'output');

  const integerHeader = (description: string) => ({ description, schema: { type: 'integer', minimum: 0 } });
  const rateLimitHeaders = {
    'RateLimit-Limit': integerHeader('Requests allowed per window.'),
    'RateLimit-Remaining': integerHeader('Requests left in the window.'),
    'RateLimit-Reset': integerHeader('Seconds until the window frees a slot.'),
  };
  const tokenHeaders = {
    ...rateLimitHeaders,
    'Set-Cookie': {
      description: `\`${cookies.accessName}\` (HttpOnly; Secure; SameSite=Lax; Path=/) and \`${cookies.refreshName}\` (HttpOnly; Secure; SameSite=Strict; Path=${cookies.refreshPath}), Max-Age from the token lifetimes.`,
      schema: { type: 'string' },
    },
  };
  const problem = (description: string, headers?: JsonObject): JsonObject => ({
    description,
    ...(headers ? { headers } : {}),
    content: { 'application/problem+json': { schema: REF('Problem') } },
  });
  const retryAfter = { 'Retry-After': integerHeader('Seconds to wait before retrying.') };
  const responses: JsonObject = {
    ValidationFailed: problem('`validation_failed` (with `errors`) or `invalid_json`.'),
    Unauthorized: problem('`invalid_token` (or `invalid_credentials` on login).', {
      'WWW-Authenticate': {
        description: '`Bearer`, with `error="invalid_token"` when a token was sent.',
        schema: { type: 'string' },
      },
    }),
    CsrfRejected: problem(
      '`csrf_rejected`: a cookie-authenticated unsafe request from an origin outside the whitelist.',
    ),
    NotFound: problem("`not_found`: unknown id, another tenant's resource, or unknown route."),
    PayloadTooLarge: problem('`payload_too_large`: body above the limit (16 KiB by default).'),
    UnsupportedMediaType: problem('`unsupported_media_type`: the body is not `application/json`.'),
    RateLimited: problem('`rate_limited`.', { ...rateLimitHeaders, ...retryAfter }),
    Unavailable: problem(
      '`unavailable`: hashing queue full, or the database or rate-limit store unreachable.',
      retryAfter,
    ),
    InternalError: problem('`internal_error`: nothing internal is disclosed.'),
  };
  const common = {
    '429': problemRef('RateLimited'),
    '500': problemRef('InternalError'),
    '503': problemRef('Unavailable'),
  };
  const withBody = {
    '400': problemRef('ValidationFailed'),
    '413': problemRef('PayloadTooLarge'),
    '415': problemRef('UnsupportedMediaType'),
  };
  const authed = { '401': problemRef('Unauthorized'), '403': problemRef('CsrfRejected') };
  const security = [{ bearerAuth: [] }, { accessCookie: [] }];
  const body = (schemaName: string, required: boolean) => ({
    required,
    content: { 'application/json': { schema: REF(schemaName) } },
  });
  const idParam = (description: string) => [
    { name: 'id', in: 'path', required: true, description, schema: { type: 'string', format: 'uuid' } },
  ];

  const paths: Record<string, JsonObject> = {
    '/auth/register': {
      post: {
        operationId: 'register',
        summary: 'Create a tenant and its first user, and log in.',
        tags: ['auth'],
        security: [],
        requestBody: body('RegisterRequest', true),
        responses: {
          '201': json('RegisterResponse', 'Registered; cookies set.', tokenHeaders),
          ...withBody,
          ...common,
        },
      },
    },
    '/auth/login': {
      post: {
        operationId: 'login',
        summary: 'Log in with email and password.',
        tags: ['auth'],
        security: [],
        requestBody: body('LoginRequest', true),
        responses: {
          '200': json('TokenResponse', 'Logged in; cookies set.', tokenHeaders),
          '401': problemRef('Unauthorized'),
          ...withBody,
          ...common,
        },
      },
    },
    '/auth/refresh': {
      post: {
        operationId: 'refresh',
        summary:
          'Rotate a refresh token (Bearer header, then the refreshToken field, then the refresh cookie).',
        tags: ['auth'],
        security: [{ bearerAuth: [] }, { refreshCookie: [] }, {}],
        requestBody: body('RefreshRequest', false),
        responses: {
          '200': json('TokenResponse', 'A new token pair; cookies set.', tokenHeaders),
          ...authed,
          ...withBody,
          ...common,
        },
      },
    },
    '/auth/logout': {
      post: {
        operationId: 'logout',
        summary: 'Revoke the session of an access or refresh token and clear the cookies.',
        tags: ['auth'],
        security: [{ bearerAuth: [] }, { refreshCookie: [] }, { accessCookie: [] }],
        responses: {
          '204': { description: 'Logged out; cookies cleared.' },
          ...authed,
          '415': problemRef('UnsupportedMediaType'),
          ...common,
        },
      },
    },
    '/tenants/me': {
      get: {
        operationId: 'getMyTenant',
        summary: "The caller's tenant.",
        tags: ['tenants'],
        security,
        responses: { '200': json('Tenant', 'The tenant.'), '401': problemRef('Unauthorized'), ...common },
      },
    },
    '/tenants/{id}': {
      get: {
        operationId: 'getTenant',
        summary: "A tenant by id: only the caller's own; any other id is 404.",
        tags: ['tenants'],
        security,
        parameters: idParam('Tenant id.'),
        responses: {
          '200': json('Tenant', 'The tenant.'),
          '401': problemRef('Unauthorized'),
          '404': problemRef('NotFound'),
          ...common,
        },
      },
    },
    '/sessions': {
      get: {
        operationId: 'listSessions',
        summary: "The caller's active sessions.",
        tags: ['sessions'],
        security,
        responses: {
          '200': json('SessionList', "Active sessions, the caller's marked `current`."),
          '401': problemRef('Unauthorized'),
          ...common,
        },
      },
      delete: {
        operationId: 'revokeAllSessions',
        summary: "Revoke all of the caller's sessions (`?except=current` keeps the calling one).",
        tags: ['sessions'],
        security,
        parameters: [
          { name: 'except', in: 'query', required: false, schema: { type: 'string', enum: ['current'] } },
        ],
        responses: {
          '200': json('RevokedCount', 'How many sessions were revoked.'),
          '400': problemRef('ValidationFailed'),
          ...authed,
          ...common,
        },
      },
    },
    '/sessions/{id}': {
      delete: {
        operationId: 'revokeSession',
        summary: "Revoke one of the caller's sessions; it can no longer refresh.",
        tags: ['sessions'],
        security,
        parameters: idParam('Session id.'),
        responses: {
          '204': { description: 'Revoked.' },
          ...authed,
          '404': problemRef('NotFound'),
          ...common,
        },
      },
    },
    '/.well-known/jwks.json': {
      get: {
        operationId: 'jwks',
        summary: 'Public keys of the access-token signer (empty for HMAC).',
        tags: ['keys'],
        security: [],
        responses: { '200': json('Jwks', 'The JSON Web Key Set.'), ...common },
      },
    },
    '/openapi.json': {
      get: {
        operationId: 'openapi',
        summary: 'This document.',
        tags: ['meta'],
        security: [],
        responses: {
          '200': {
            description: 'OpenAPI 3.1 document.',
            content: { 'application/json': { schema: { type: 'object' } } },
          },
          ...common,
        },
      },
    },
  };
  if (options.health) {
    paths['/health'] = {
      get: {
        operationId: 'health',
        summary: 'Service and database health.',
        tags: ['meta'],
        security,
        responses: {
          '200': json('Health', '`{"status":"ok","database":"ok"}`.'),
          '401': problemRef('Unauthorized'),
          '503': json(
            'Health',
            '`{"status":"degraded","database":"unavailable"}`: the database does not answer.',
          ),
          '429': problemRef('RateLimited'),
          '500': problemRef('InternalError'),
        },
      },
    };
  }

  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: options.info?.title ?? 'tenant-auth',
      version: options.info?.version ?? '1.0.0',
      description:
        options.info?.description ??
        'Multi-tenant authentication: registration, login, rotating refresh tokens, sessions. Errors are RFC 9457 problem details.',
    },
    servers: [{ url: prefix || '/' }],
    paths,
    components: {
      schemas,
      responses,
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        accessCookie: { type: 'apiKey', in: 'cookie', name: cookies.accessName },
        refreshCookie: { type: 'apiKey', in: 'cookie', name: cookies.refreshName },
      },
    },
  };
}
