import type { InputLimits } from 'tenant-auth-core';
import { z } from 'zod';
import type { ResolvedCookieOptions } from './cookies.js';
import {
  acceptedSchema,
  auditEventPageSchema,
  auditEventSchema,
  auditEventTypeSchema,
  fieldErrorCodeSchema,
  fieldErrorSchema,
  healthSchema,
  invitationListSchema,
  invitationResponseSchema,
  invitationSchema,
  jwksSchema,
  memberListSchema,
  memberSchema,
  problemCodeSchema,
  problemSchema,
  publicUserSchema,
  registerResponseSchema,
  requestSchemas,
  revokedCountSchema,
  roleSchema,
  sessionListSchema,
  sessionSchema,
  tenantSchema,
  tokenResponseSchema,
} from './http-contract.js';
import { STRICT_ROUTES } from './routes.js';

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

type JsonObject = Record<string, unknown>;

const SCHEMAS = '#/components/schemas/';
const REF = (name: string) => ({ $ref: `${SCHEMAS}${name}` });
const RESPONSE = (name: string) => ({ $ref: `#/components/responses/${name}` });

/** The named schemas of the responses: every schema with an `id` that a response uses, nested ones too. */
const RESPONSE_SCHEMAS: readonly z.ZodType[] = [
  roleSchema,
  publicUserSchema,
  tokenResponseSchema.shape.session,
  tokenResponseSchema,
  registerResponseSchema,
  tenantSchema,
  sessionSchema,
  sessionListSchema,
  revokedCountSchema,
  memberSchema,
  memberListSchema,
  invitationSchema,
  invitationResponseSchema,
  invitationListSchema,
  auditEventTypeSchema,
  auditEventSchema,
  auditEventPageSchema,
  acceptedSchema,
  jwksSchema.shape.keys.element,
  jwksSchema,
  healthSchema,
  fieldErrorCodeSchema,
  fieldErrorSchema,
  problemCodeSchema,
  problemSchema,
];

function idOf(schema: z.ZodType): string {
  const id = z.globalRegistry.get(schema)?.id;
  if (typeof id !== 'string') throw new Error('tenant-auth-koa: a schema of the OpenAPI document has no id');
  return id;
}

/**
 * Converts named zod schemas to components in one pass, so that they refer to each other by `$ref`.
 *
 * Response objects are left open (no `additionalProperties: false`, which zod's output mode would add):
 * a later minor version may add a field, and clients must ignore fields they do not know. It is also what
 * lets `RegisterResponse` extend `TokenResponse` with `allOf`. Objects declared strict in zod stay closed.
 */
function toComponents(schemas: readonly z.ZodType[], io: 'input' | 'output'): Record<string, JsonObject> {
  const registry = z.registry<{ id: string }>();
  for (const schema of schemas) registry.add(schema, { id: idOf(schema) });
  const converted = z.toJSONSchema(registry, {
    io,
    target: 'draft-2020-12',
    unrepresentable: 'any',
    uri: (id) => `${SCHEMAS}${id}`,
    override(ctx) {
      const def = ctx.zodSchema._zod.def as { type: string; catchall?: unknown };
      if (
        def.type === 'object' &&
        def.catchall === undefined &&
        ctx.jsonSchema.additionalProperties === false
      ) {
        delete ctx.jsonSchema.additionalProperties;
      }
    },
  }).schemas as Record<string, JsonObject>;
  if ('__shared' in converted) {
    throw new Error('tenant-auth-koa: a named schema of the OpenAPI document is missing from its list');
  }
  const out: Record<string, JsonObject> = {};
  for (const [name, schema] of Object.entries(converted)) {
    const { $schema: _schema, $id: _id, ...rest } = schema;
    out[name] = rest;
  }
  return out;
}

/** The properties of an object schema as OpenAPI query parameters. */
function queryParameters(schema: z.ZodObject): JsonObject[] {
  return Object.entries(schema.shape).map(([name, property]) => {
    const field = property as z.ZodType;
    const optional = field instanceof z.ZodOptional;
    const inner = optional ? (field.unwrap() as z.ZodType) : field;
    const description = z.globalRegistry.get(field)?.description ?? z.globalRegistry.get(inner)?.description;
    // A schema with an id is referred to by its component, as everywhere else.
    const named = z.globalRegistry.get(inner)?.id;
    const {
      $schema: _schema,
      description: _description,
      ...json
    } = z.toJSONSchema(inner, {
      io: 'input',
      target: 'draft-2020-12',
    }) as JsonObject;
    return {
      name,
      in: 'query',
      required: !optional,
      ...(description === undefined ? {} : { description }),
      schema: typeof named === 'string' ? REF(named) : json,
    };
  });
}

type Auth = 'none' | 'access' | 'admin' | 'refresh' | 'logout';

interface OperationSpec {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  auth: Auth;
  body?: { schema: string; required: boolean };
  parameters?: JsonObject[];
  responses: Record<string, JsonObject>;
  /**
   * Whether it can answer `503`: it reads the stores, or takes the strict budget (which fails closed when
   * the rate-limit store is down; the general one fails open). Default `true`.
   */
  canBeUnavailable?: boolean;
}

/**
 * @internal The OpenAPI 3.1 document of the routes: request bodies with the limits of the `TenantAuth`,
 * responses and problem details from this package's zod schemas, all through zod 4's JSON Schema output.
 * Every status the middleware can answer is listed per operation, with the headers that come with it.
 */
export function buildOpenApiDocument(options: OpenApiDocumentOptions): JsonObject {
  const { prefix, cookies } = options;
  const setsCookies = cookies.set ?? true;
  const requests = requestSchemas(options.limits);
  const schemas: Record<string, JsonObject> = {
    ...toComponents(RESPONSE_SCHEMAS, 'output'),
    ...toComponents(
      [
        roleSchema,
        requests.register,
        requests.login,
        requests.refresh,
        requests.changeMemberRole,
        requests.createInvitation,
        requests.acceptInvitation,
        requests.forgotPassword,
        requests.resetPassword,
        requests.changePassword,
        requests.verifyEmail,
        requests.changeEmail,
        requests.confirmEmailChange,
        requests.deleteAccount,
      ],
      'input',
    ),
  };

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
  const noStore = {
    'Cache-Control': {
      description: 'Never cached: the answer is about one caller.',
      required: true,
      schema: { type: 'string', const: 'no-store' },
    },
  };
  const retryAfter = {
    'Retry-After': {
      description: 'Seconds to wait before retrying.',
      required: true,
      schema: { type: 'integer', minimum: 1 },
    },
  };
  const tokenCookies = {
    'Set-Cookie': {
      description: `Two cookies: \`${cookies.accessName}\` (HttpOnly; Secure; SameSite=Lax; Path=/) and \`${cookies.refreshName}\` (HttpOnly; Secure; SameSite=Strict; Path=${cookies.refreshPath}), Max-Age from the token lifetimes.${setsCookies ? '' : ' Not sent: this server sets no cookies.'}`,
      required: setsCookies,
      schema: { type: 'string' },
    },
  };
  const clearedCookies = (required: boolean) => ({
    'Set-Cookie': {
      description: `Clears \`${cookies.accessName}\` and \`${cookies.refreshName}\` (same names and paths, Max-Age=0).${required ? '' : ' Sent when the token came from a cookie; on logout, whenever a token was presented.'}`,
      required: required && setsCookies,
      schema: { type: 'string' },
    },
  });
  /** The headers of every answer under the prefix. */
  const common = { ...noStore, ...rateLimitHeaders(false) };

  const json = (schemaName: string, description: string, headers: JsonObject = {}): JsonObject => ({
    description,
    headers: { ...common, ...headers },
    content: { 'application/json': { schema: REF(schemaName) } },
  });
  const empty = (description: string, headers: JsonObject = {}): JsonObject => ({
    description,
    headers: { ...common, ...headers },
  });
  const problem = (description: string, headers: JsonObject = {}): JsonObject => ({
    description,
    headers: { ...common, ...headers },
    content: { 'application/problem+json': { schema: REF('Problem') } },
  });
  const wwwAuthenticate = {
    'WWW-Authenticate': {
      description: '`Bearer`, with `error="invalid_token"` when a token was sent.',
      required: true,
      schema: { type: 'string' },
    },
  };

  const responses: Record<string, JsonObject> = {
    BadRequest: problem(
      '`validation_failed` (with `errors`, one per refused field), or `invalid_json` (a body that is not JSON, holds `__proto__` / `constructor` / `prototype` keys, or text that is not well-formed Unicode).',
    ),
    Unauthorized: problem(
      '`invalid_token`: missing, malformed, expired, wrong-type or revoked token.',
      wwwAuthenticate,
    ),
    CsrfRejected: problem(
      '`csrf_rejected`: a cookie-authenticated unsafe request from an origin outside the whitelist (or with neither `Origin` nor `Referer`).',
    ),
    Forbidden: problem(
      '`forbidden`: the role does not allow it (checked against the current role); or `csrf_rejected` as above.',
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
      { ...rateLimitHeaders(true), ...retryAfter },
    ),
    Unavailable: problem(
      '`unavailable`: the password-hashing queue is full, or the database or the rate-limit store does not answer.',
      { ...noStore, ...retryAfter },
    ),
    InternalError: problem('`internal_error`: nothing internal is disclosed.'),
  };

  const tokenResponse = (status: '200' | '201', schemaName: string, description: string) => ({
    [status]: json(schemaName, description, tokenCookies),
  });

  const security: Record<Auth, JsonObject[]> = {
    none: [],
    access: [{ bearerAuth: [] }, { accessCookie: [] }],
    admin: [{ bearerAuth: [] }, { accessCookie: [] }],
    refresh: [{ bearerAuth: [] }, { refreshCookie: [] }, {}],
    logout: [{ bearerAuth: [] }, { refreshCookie: [] }, { accessCookie: [] }],
  };
  const budgetText = {
    strict: 'Rate limited with the strict budget (login, registration and the other credential routes).',
    general: 'Rate limited with the general budget.',
  };

  const uuidParam = (name: string, description: string) => ({
    name,
    in: 'path',
    required: true,
    description: `${description} Any value that is not the id of one of yours is \`404\`.`,
    schema: { type: 'string', format: 'uuid' },
  });

  /** An operation with every status the middleware can add to what the route itself answers. */
  const operation = (method: string, spec: OperationSpec): JsonObject => {
    const unsafe = method !== 'get';
    // The budget the middleware applies, by the route's name (routes.ts): one list for both.
    const budget = STRICT_ROUTES.has(spec.operationId) ? 'strict' : 'general';
    const all: Record<string, JsonObject> = { ...spec.responses };
    const add = (status: string, response: JsonObject) => {
      all[status] ??= response;
    };
    if (unsafe) {
      // Any unsafe request may carry a body: it must be JSON, small and well-formed.
      add('400', RESPONSE('BadRequest'));
      add('413', RESPONSE('PayloadTooLarge'));
      add('415', RESPONSE('UnsupportedMediaType'));
    }
    if (spec.auth !== 'none') add('401', RESPONSE('Unauthorized'));
    if (spec.auth === 'admin') add('403', RESPONSE('Forbidden'));
    else if (spec.auth !== 'none' && unsafe) add('403', RESPONSE('CsrfRejected'));
    add('405', RESPONSE('MethodNotAllowed'));
    add('429', RESPONSE('RateLimited'));
    add('500', RESPONSE('InternalError'));
    if (spec.canBeUnavailable ?? true) add('503', RESPONSE('Unavailable'));
    const sorted = Object.fromEntries(Object.entries(all).sort(([a], [b]) => a.localeCompare(b)));
    return {
      operationId: spec.operationId,
      summary: spec.summary,
      description: [spec.description, budgetText[budget]].filter(Boolean).join('\n\n'),
      tags: spec.tags,
      security: security[spec.auth],
      ...(spec.parameters ? { parameters: spec.parameters } : {}),
      ...(spec.body
        ? {
            requestBody: {
              required: spec.body.required,
              content: { 'application/json': { schema: REF(spec.body.schema) } },
            },
          }
        : {}),
      responses: sorted,
    };
  };

  const unauthorizedClearing = {
    ...(responses.Unauthorized as JsonObject),
    headers: { ...common, ...wwwAuthenticate, ...clearedCookies(false) },
  };

  const paths: Record<string, JsonObject> = {
    '/auth/register': {
      post: operation('post', {
        operationId: 'register',
        summary: 'Create a tenant and its owner, and log in.',
        description: 'A verification email is sent to the address.',
        tags: ['auth'],
        auth: 'none',
        body: { schema: 'RegisterRequest', required: true },
        responses: tokenResponse('201', 'RegisterResponse', 'Registered and logged in; cookies set.'),
      }),
    },
    '/auth/login': {
      post: operation('post', {
        operationId: 'login',
        summary: 'Log in with email and password.',
        tags: ['auth'],
        auth: 'none',
        body: { schema: 'LoginRequest', required: true },
        responses: {
          ...tokenResponse('200', 'TokenResponse', 'Logged in; cookies set.'),
          '401': problem(
            '`invalid_credentials`: the same answer, in the same time, for an unknown email and a wrong password.',
            wwwAuthenticate,
          ),
        },
      }),
    },
    '/auth/refresh': {
      post: operation('post', {
        operationId: 'refresh',
        summary: 'Rotate a refresh token.',
        description:
          'The refresh token is read from `Authorization: Bearer`, then the `refreshToken` field, then the refresh cookie. Requests presenting the same token within the reuse grace period all receive the same new token; a token presented after that is a replay, and revokes the session.',
        tags: ['auth'],
        auth: 'refresh',
        body: { schema: 'RefreshRequest', required: false },
        responses: {
          ...tokenResponse('200', 'TokenResponse', 'A new token pair; cookies set.'),
          '401': unauthorizedClearing,
        },
      }),
    },
    '/auth/logout': {
      post: operation('post', {
        operationId: 'logout',
        summary: 'Revoke the session of an access or refresh token, and clear the cookies.',
        tags: ['auth'],
        auth: 'logout',
        responses: {
          '204': empty('Logged out; cookies cleared.', clearedCookies(true)),
          '401': unauthorizedClearing,
        },
      }),
    },
    '/tenants/me': {
      get: operation('get', {
        operationId: 'getMyTenant',
        summary: "The caller's tenant.",
        tags: ['tenants'],
        auth: 'access',
        responses: { '200': json('Tenant', 'The tenant.') },
      }),
    },
    '/tenants/{id}': {
      get: operation('get', {
        operationId: 'getTenant',
        summary: "A tenant by id: only the caller's own.",
        tags: ['tenants'],
        auth: 'access',
        parameters: [uuidParam('id', 'Tenant id.')],
        responses: { '200': json('Tenant', 'The tenant.'), '404': RESPONSE('NotFound') },
      }),
    },
    '/sessions': {
      get: operation('get', {
        operationId: 'listSessions',
        summary: "The caller's active sessions.",
        tags: ['sessions'],
        auth: 'access',
        responses: { '200': json('SessionList', "Active sessions, the caller's own marked `current`.") },
      }),
      delete: operation('delete', {
        operationId: 'revokeAllSessions',
        summary: "Revoke all of the caller's sessions.",
        tags: ['sessions'],
        auth: 'access',
        parameters: queryParameters(requests.revokeAllSessionsQuery),
        responses: { '200': json('RevokedCount', 'How many sessions were revoked.') },
      }),
    },
    '/sessions/{id}': {
      delete: operation('delete', {
        operationId: 'revokeSession',
        summary: "Revoke one of the caller's sessions; it can no longer refresh.",
        tags: ['sessions'],
        auth: 'access',
        parameters: [uuidParam('id', 'Session id.')],
        responses: { '204': empty('Revoked.'), '404': RESPONSE('NotFound') },
      }),
    },
    '/tenants/me/members': {
      get: operation('get', {
        operationId: 'listMembers',
        summary: "The members of the caller's tenant.",
        tags: ['members'],
        auth: 'access',
        responses: { '200': json('MemberList', 'Members, oldest first.') },
      }),
    },
    '/tenants/me/members/{userId}': {
      patch: operation('patch', {
        operationId: 'changeMemberRole',
        summary: "Change a member's role.",
        description:
          'Owners and admins; only an owner grants or takes `owner`, and an admin cannot change an owner.',
        tags: ['members'],
        auth: 'admin',
        parameters: [uuidParam('userId', 'User id.')],
        body: { schema: 'ChangeMemberRoleRequest', required: true },
        responses: {
          '200': json('Member', 'The member with its new role.'),
          '404': RESPONSE('NotFound'),
          '409': RESPONSE('LastOwner'),
        },
      }),
      delete: operation('delete', {
        operationId: 'removeMember',
        summary: 'Remove a member: the account and every session of it.',
        description: 'Owners and admins; an admin cannot remove an owner.',
        tags: ['members'],
        auth: 'admin',
        parameters: [uuidParam('userId', 'User id.')],
        responses: {
          '204': empty('Removed.'),
          '404': RESPONSE('NotFound'),
          '409': RESPONSE('LastOwner'),
        },
      }),
    },
    '/tenants/me/invitations': {
      get: operation('get', {
        operationId: 'listInvitations',
        summary: 'Pending invitations.',
        description: 'Owners and admins.',
        tags: ['members'],
        auth: 'admin',
        responses: { '200': json('InvitationList', 'Pending invitations, newest first.') },
      }),
      post: operation('post', {
        operationId: 'createInvitation',
        summary: 'Invite an address with a role; a pending invitation of it is replaced.',
        description: 'Owners and admins; only an owner invites an `owner`.',
        tags: ['members'],
        auth: 'admin',
        body: { schema: 'CreateInvitationRequest', required: true },
        responses: { '201': json('InvitationResponse', 'Invited; the email is on its way.') },
      }),
    },
    '/tenants/me/invitations/{id}': {
      delete: operation('delete', {
        operationId: 'revokeInvitation',
        summary: 'Revoke a pending invitation; its link stops working.',
        description: 'Owners and admins.',
        tags: ['members'],
        auth: 'admin',
        parameters: [uuidParam('id', 'Invitation id.')],
        responses: { '204': empty('Revoked.'), '404': RESPONSE('NotFound') },
      }),
    },
    '/auth/invitations/accept': {
      post: operation('post', {
        operationId: 'acceptInvitation',
        summary: 'Accept an invitation: create the account in the inviting tenant, and log in.',
        tags: ['auth'],
        auth: 'none',
        body: { schema: 'AcceptInvitationRequest', required: true },
        responses: tokenResponse('201', 'TokenResponse', 'Joined and logged in; cookies set.'),
      }),
    },
    '/auth/password/forgot': {
      post: operation('post', {
        operationId: 'forgotPassword',
        summary: 'Ask for a reset link.',
        description: 'The same answer, in the same time, whether or not the address has an account.',
        tags: ['recovery'],
        auth: 'none',
        body: { schema: 'ForgotPasswordRequest', required: true },
        responses: { '202': json('Accepted', '`{}`.') },
      }),
    },
    '/auth/password/reset': {
      post: operation('post', {
        operationId: 'resetPassword',
        summary: 'Set a new password from a reset link; every session is revoked.',
        tags: ['recovery'],
        auth: 'none',
        body: { schema: 'ResetPasswordRequest', required: true },
        responses: { '204': empty('Password set.') },
      }),
    },
    '/auth/password/change': {
      post: operation('post', {
        operationId: 'changePassword',
        summary: "Change the caller's password; every other session is revoked.",
        tags: ['recovery'],
        auth: 'access',
        body: { schema: 'ChangePasswordRequest', required: true },
        responses: { '204': empty('Password changed.') },
      }),
    },
    '/auth/email/verification': {
      post: operation('post', {
        operationId: 'requestEmailVerification',
        summary: 'Send the caller a verification link (nothing when already verified).',
        tags: ['recovery'],
        auth: 'access',
        responses: { '202': json('Accepted', '`{}`.') },
      }),
    },
    '/auth/email/verify': {
      post: operation('post', {
        operationId: 'verifyEmail',
        summary: 'Mark the email verified from its link.',
        tags: ['recovery'],
        auth: 'none',
        body: { schema: 'VerifyEmailRequest', required: true },
        responses: { '204': empty('Verified.') },
      }),
    },
    '/auth/email/change': {
      post: operation('post', {
        operationId: 'changeEmail',
        summary: 'Ask to change the email: a link to the new address, a notice to the old one.',
        tags: ['recovery'],
        auth: 'access',
        body: { schema: 'ChangeEmailRequest', required: true },
        responses: { '202': json('Accepted', '`{}`.') },
      }),
    },
    '/auth/email/change/confirm': {
      post: operation('post', {
        operationId: 'confirmEmailChange',
        summary: 'Confirm an email change from its link; every other session is revoked.',
        tags: ['recovery'],
        auth: 'none',
        body: { schema: 'ConfirmEmailChangeRequest', required: true },
        responses: { '204': empty('Changed.') },
      }),
    },
    '/users/me': {
      delete: operation('delete', {
        operationId: 'deleteAccount',
        summary: "Delete the caller's account; a tenant whose only member leaves goes with it.",
        tags: ['recovery'],
        auth: 'access',
        body: { schema: 'DeleteAccountRequest', required: true },
        responses: {
          '204': empty('Deleted; cookies cleared.', clearedCookies(true)),
          '409': RESPONSE('LastOwner'),
        },
      }),
    },
    '/tenants/me/audit-events': {
      get: operation('get', {
        operationId: 'listAuditEvents',
        summary: "The tenant's audit log, newest first.",
        description: 'Owners and admins.',
        tags: ['audit'],
        auth: 'admin',
        parameters: queryParameters(requests.auditEventQuery),
        responses: {
          '200': json('AuditEventPage', 'A page of events.'),
          '400': RESPONSE('BadRequest'),
        },
      }),
    },
    '/.well-known/jwks.json': {
      get: operation('get', {
        operationId: 'jwks',
        summary: 'Public keys of the access-token signer (empty for HMAC).',
        tags: ['meta'],
        auth: 'none',
        canBeUnavailable: false,
        responses: {
          '200': {
            description: 'The JSON Web Key Set.',
            headers: {
              ...rateLimitHeaders(false),
              'Cache-Control': {
                description: 'Public keys may be cached for five minutes.',
                required: true,
                schema: { type: 'string', const: 'public, max-age=300' },
              },
            },
            content: { 'application/json': { schema: REF('Jwks') } },
          },
        },
      }),
    },
    '/openapi.json': {
      get: operation('get', {
        operationId: 'openapi',
        summary: 'This document.',
        tags: ['meta'],
        auth: 'none',
        canBeUnavailable: false,
        responses: {
          '200': {
            description: 'The OpenAPI 3.1 document.',
            headers: rateLimitHeaders(false),
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    openapi: { type: 'string', pattern: '^3\\.1\\.\\d+$' },
                    info: { type: 'object' },
                    paths: { type: 'object' },
                  },
                  required: ['openapi', 'info', 'paths'],
                  additionalProperties: true,
                },
              },
            },
          },
        },
      }),
    },
  };
  if (options.health) {
    paths['/health'] = {
      get: operation('get', {
        operationId: 'health',
        summary: 'Service and database health.',
        tags: ['meta'],
        auth: 'access',
        responses: {
          '200': json('Health', '`{"status":"ok","database":"ok"}`.'),
          '503': {
            description:
              '`{"status":"degraded","database":"unavailable"}` when the database does not answer; a problem (`unavailable`) when the rate-limit store does not.',
            headers: { ...noStore, ...retryAfter },
            content: {
              'application/json': { schema: REF('Health') },
              'application/problem+json': { schema: REF('Problem') },
            },
          },
        },
      }),
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
        'Multi-tenant authentication: registration, login, rotating refresh tokens, sessions, members and invitations, account recovery, audit log. Errors are RFC 9457 problem details. Response objects may gain fields in later versions: ignore the ones you do not know.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: prefix || '/' }],
    tags: [
      { name: 'auth', description: 'Registration, login, token refresh, logout, joining by invitation.' },
      { name: 'tenants', description: "The caller's tenant." },
      { name: 'sessions', description: "The caller's sessions." },
      { name: 'members', description: 'Members, roles and invitations.' },
      { name: 'recovery', description: 'Passwords, email verification and change, account deletion.' },
      { name: 'audit', description: 'The audit log of the tenant.' },
      { name: 'meta', description: 'Keys, this document and health.' },
    ],
    paths,
    components: {
      schemas,
      responses,
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'An access token (or, on refresh and logout, a refresh token).',
        },
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
  };
}
