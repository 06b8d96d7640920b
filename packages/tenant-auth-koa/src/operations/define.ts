import type { Context } from 'koa';
import type { TenantAuth } from 'tenant-auth-core';
import type { z } from 'zod';
import type { AuthContext, AuthState, PrincipalContext } from '../auth-state.js';
import type { RequestBody } from '../body-rules.js';
import type { ResolvedCookieOptions } from '../cookies.js';
import type { HealthCheck } from '../health.js';
import type { requestSchemas } from '../http-contract.js';

export type { Same } from '../contract-parts.js';

import type { ProblemCode } from '../problem-codes.js';

/** @internal What the handlers need, built once by `createTenantAuthKoa`. */
export interface RouteSettings {
  auth: TenantAuth;
  prefix: string;
  cookies: ResolvedCookieOptions;
  origins: ReadonlySet<string>;
  health: HealthCheck | undefined;
  /** The OpenAPI document, serialised once. */
  openapiJson: string;
  /** The largest JSON body (the `bodyLimitBytes` option), for the operations that set no limit of their own. */
  bodyLimitBytes: number;
  /** SCIM provisioning, when the `scim` option serves it: the base URL its resources live under. */
  scim: { baseUrl: string } | undefined;
}

/** @internal The request schemas of the contract (http-contract.ts), by name. */
export type RequestSchemas = ReturnType<typeof requestSchemas>;

/** @internal The name of a request-body schema. */
export type BodyName = Exclude<keyof RequestSchemas, `${string}Query`>;

/** @internal The name of a query schema. */
export type QueryName = Extract<keyof RequestSchemas, `${string}Query`>;

/**
 * @internal The body a handler gets: the fields its schema names, picked from the JSON body as sent. The
 * type is the schema's input; the values are checked by core (with its own field errors), not by zod.
 */
export type BodyOf<N extends BodyName> = z.input<RequestSchemas[N]>;

/** @internal The query a handler gets: each parameter its schema names, as sent once (or `undefined`). */
export type QueryOf<N extends QueryName> = { [K in keyof z.input<RequestSchemas[N]>]-?: string | undefined };

/** @internal The parameters of a path template: `'/sessions/:id'` gives `{ id: string }`. */
export type ParamsOf<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? { [K in Name]: string } & ParamsOf<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? { [K in Name]: string }
    : Record<never, string>;

/**
 * @internal Who may call an operation:
 * - `none`: anyone;
 * - `access`: an access token (checked before the handler, as `requireAuth()` does);
 * - `admin`: an access token, and core requires the role `admin` or `owner` (`403 forbidden` otherwise);
 * - `refresh`: a refresh token, which the handler reads (header, body field or refresh cookie);
 * - `logout`: an access or a refresh token, which the handler reads;
 * - `setup`: the `mfaToken` of a `mfa_setup_required` in the body, or else an access token, which the
 *   handler reads (enrolling a second factor).
 */
export type Caller = 'none' | 'access' | 'admin' | 'refresh' | 'logout' | 'setup';

/** @internal The OpenAPI tags, one per group of operations in the document. */
export type Tag = 'auth' | 'mfa' | 'tenants' | 'sessions' | 'members' | 'recovery' | 'audit' | 'meta' | 'sso';

/** @internal What the handler of an operation gets. */
export interface OperationInput<P extends string, B, Q, C extends Caller, K = undefined> {
  ctx: Context & { params: Record<string, string>; state: Partial<AuthState> };
  /** The path parameters, decoded. */
  params: ParamsOf<P>;
  /** The caller, when the operation takes an access token (or, where it accepts them, an API key). */
  caller: C extends 'access' | 'admin' ? (K extends true ? PrincipalContext : AuthContext) : undefined;
  body: B extends BodyName ? BodyOf<B> : undefined;
  query: Q extends QueryName ? QueryOf<Q> : undefined;
}

/** @internal Pieces of the OpenAPI document, for the responses an operation states itself. */
export interface DocumentKit {
  /** `{ $ref }` of a named schema. */
  ref(schemaName: string): Record<string, unknown>;
  /** Response headers: `Cache-Control: no-store`, `Retry-After`. */
  headers: { noStore: Record<string, unknown>; retryAfter: Record<string, unknown> };
}

/** @internal The answer of success: its status, body and what the document says of it. */
export interface Success<R extends z.ZodType | undefined> {
  status: 200 | 201 | 202 | 204 | 303;
  /** The JSON body (a named schema of http-contract.ts); none for an empty answer. */
  body?: R;
  /** The body's JSON Schema when it is none of the contract's (the OpenAPI document itself). */
  jsonSchema?: Record<string, unknown>;
  /**
   * The media type of a body that is no JSON (SAML's metadata, `application/samlmetadata+xml`): a
   * document for another party, which the client does not call.
   */
  mediaType?: string;
  description: string;
  /** Token cookies the answer sets or clears (a `Set-Cookie` header in the document). */
  cookies?: 'set' | 'cleared';
}

/**
 * @internal One route of the HTTP contract, stated once: the router, the strict-budget list, the OpenAPI
 * document and (through it) the client's generated contract are derived from these.
 */
export interface Operation<
  P extends string = string,
  B extends BodyName | undefined = BodyName | undefined,
  Q extends QueryName | undefined = QueryName | undefined,
  R extends z.ZodType | undefined = z.ZodType | undefined,
  C extends Caller = Caller,
  S extends true | undefined = true | undefined,
  K extends true | undefined = true | undefined,
> {
  /** The OpenAPI `operationId` (and the client's name of it). */
  id: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Below the prefix, `:name` parameters (`{name}` in the document). */
  path: P;
  caller: C;
  /**
   * Whether an API key may call it (docs/http-api.md, "API keys": the routes about the tenant). Otherwise a
   * request bearing a key is answered `403 forbidden` (`401 invalid_token` when the key does not verify).
   */
  apiKeys?: K;
  /**
   * The rate-limit budget: `strict` for what checks credentials, sends mail or creates accounts (and
   * answers whether an address has an account), `general` for the rest.
   */
  budget: 'strict' | 'general';
  tag: Tag;
  summary: string;
  description?: string;
  /** The description of each path parameter (a UUID: any other value is `404`). */
  params?: { [K in keyof ParamsOf<P>]: string };
  /** The request body's schema; the handler gets the fields it names. */
  body?: B;
  /** The body may be left out (documented, not picked: the handler reads it itself). */
  bodyOptional?: true;
  /**
   * What the body is when not its group's JSON (up to the `bodyLimitBytes` option): other media types, a
   * form, another limit; and, for a form posted by another site on purpose, `crossSite` (see
   * `RequestBody` in body-rules.ts). The document states the media types.
   *
   * @example
   * request: { mediaTypes: [FORM_MEDIA_TYPE], limitBytes: 256 * 1024, crossSite: true },
   */
  request?: RequestBody<C>;
  /** The query's schema; the handler gets each of its parameters as sent. */
  query?: Q;
  success: Success<R>;
  /**
   * The problem codes of the route itself, besides those of the layers in front of it (bad bodies,
   * tokens, CSRF, rate limits, faults: see `problemCodesOf`).
   */
  problems?: readonly ProblemCode[];
  /**
   * The route needs a recent authentication (core checks it: `auth_time` within the maximum age, and `amr`
   * with `mfa` when the user has a factor); `403 reauthentication_required` otherwise.
   */
  recent?: true;
  /** `false` when it can never answer 503: it reads no store and takes the general budget (which fails open). */
  canBeUnavailable?: false;
  /** Only served (and documented) with the `health` option. */
  onlyWith?: 'health';
  /**
   * Whether the router checks an access token before the handler; default: `caller` is `access` or
   * `admin`. (`/health` takes one only when its options say so, though the document always asks for one.)
   */
  guarded?: (settings: RouteSettings) => boolean;
  /** Headers, status and body are the handler's own (the answer is no JSON of a schema, or is cached). */
  answersItself?: S;
  /** `Cache-Control` of success: `no-store` (default), `public` (five minutes) or none. */
  cache?: 'public' | 'none';
  /**
   * Responses of the document this table cannot state (`/health`'s 503 with two bodies), by status,
   * built with the pieces of the document (see `DocumentKit` in openapi.ts).
   */
  moreResponses?: (kit: DocumentKit) => Record<string, Record<string, unknown>>;
  /**
   * Answers the request. It returns the body of success (the framework sets `Cache-Control`, the status
   * and the body), or, with `answersItself`, answers it all itself.
   */
  handler: (
    input: OperationInput<P, B, Q, C, K>,
    settings: RouteSettings,
  ) => S extends true
    ? Promise<void> | void
    : R extends z.ZodType
      ? Promise<z.output<R>> | z.output<R>
      : Promise<void> | void;
}

/**
 * @internal Declares an operation with its types inferred: the handler's body and query from the named
 * schemas, its parameters from the path, its caller from `caller`, its return from the success body.
 *
 * @example
 * const ping = defineOperation({
 *   id: 'ping', method: 'GET', path: '/ping/:id', caller: 'access', budget: 'general', tag: 'meta',
 *   summary: 'Echoes the id.', params: { id: 'Any id.' },
 *   success: { status: 200, body: pingSchema, description: 'The id.' },
 *   handler: ({ caller, params }) => ({ id: params.id, tenantId: caller.tenantId }),
 * });
 */
export function defineOperation<
  const P extends string,
  B extends BodyName | undefined = undefined,
  Q extends QueryName | undefined = undefined,
  R extends z.ZodType | undefined = undefined,
  C extends Caller = Caller,
  S extends true | undefined = undefined,
  K extends true | undefined = undefined,
>(operation: Operation<P, B, Q, R, C, S, K>): Operation {
  return operation as unknown as Operation;
}
