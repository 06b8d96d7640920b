/**
 * What the registry says of one error code.
 *
 * - `status`: the HTTP status an adapter answers it with.
 * - `message`: its default message, for the errors that say nothing more specific.
 * - `reachesClients: false`: a code no client ever receives: a store raises it and core turns it into
 *   `validation_failed` (`email_taken`, `slug_taken`), or a factory throws it at creation time, before any
 *   I/O (`invalid_configuration`).
 */
interface ErrorDefinition {
  readonly code: string;
  readonly status: number;
  readonly message: string;
  readonly reachesClients?: false;
}

/**
 * @internal Every error code of tenant-auth, once, in order, with its status and default message: the
 * registry {@link ERROR_CODES}, {@link ERROR_STATUS} and the default messages are derived from.
 * `docs/http-api.md`'s error tables list the codes that reach clients (error-registry.test.ts checks both
 * ways). An ordered list rather than an object keyed by code, so that `ERROR_CODES` keeps its order and
 * its literal tuple type.
 */
export const ERROR_REGISTRY = [
  { code: 'validation_failed', status: 400, message: 'The request is invalid.' },
  { code: 'invalid_json', status: 400, message: 'The request body is not valid JSON.' },
  { code: 'invalid_credentials', status: 401, message: 'The email or password is incorrect.' },
  { code: 'invalid_token', status: 401, message: 'The token is missing, invalid or expired.' },
  { code: 'csrf_rejected', status: 403, message: 'The request origin is not allowed.' },
  { code: 'forbidden', status: 403, message: 'Your role does not allow this.' },
  { code: 'email_not_verified', status: 403, message: 'Verify your email address first.' },
  { code: 'not_found', status: 404, message: 'Not found.' },
  {
    code: 'last_owner',
    status: 409,
    message: 'The tenant would be left without an owner; make someone else an owner first.',
  },
  { code: 'mfa_required', status: 401, message: 'A second factor is needed to sign in.' },
  {
    code: 'mfa_setup_required',
    status: 401,
    message: 'Your organisation requires a second factor: set one up to sign in.',
  },
  {
    code: 'reauthentication_required',
    status: 403,
    message: 'Confirm who you are again (POST /auth/reauthenticate), then retry.',
  },
  {
    code: 'mfa_required_by_tenant',
    status: 409,
    message: 'Your organisation requires a second factor: this is your last one.',
  },
  { code: 'already_enabled', status: 409, message: 'A TOTP factor is already active for this account.' },
  { code: 'mfa_not_enabled', status: 409, message: 'Turn on a second factor for your own account first.' },
  { code: 'email_taken', status: 409, message: 'This email is already registered.', reachesClients: false },
  { code: 'slug_taken', status: 409, message: 'This tenant slug is already taken.', reachesClients: false },
  { code: 'payload_too_large', status: 413, message: 'The request body is too large.' },
  { code: 'unsupported_media_type', status: 415, message: 'The request body must be application/json.' },
  { code: 'rate_limited', status: 429, message: 'Too many requests. Retry later.' },
  { code: 'internal_error', status: 500, message: 'An unexpected error occurred.' },
  {
    code: 'invalid_configuration',
    status: 500,
    message: 'The configuration is invalid.',
    reachesClients: false,
  },
  { code: 'unavailable', status: 503, message: 'The service is temporarily unavailable.' },
  { code: 'sso_required', status: 403, message: 'Your organisation signs you in through single sign-on.' },
  { code: 'domain_taken', status: 409, message: 'Another organisation has verified this domain.' },
  {
    code: 'domain_not_verified',
    status: 409,
    message: "The domain's TXT record does not hold the expected value (yet).",
  },
  // Last: the codes a 1.1 consumer knows keep their places in ERROR_CODES.
  {
    code: 'feature_unavailable',
    status: 501,
    message: 'This server does not offer this feature (its storage has no place for it).',
  },
  // 1.3, after every code of 1.2: each keeps its place in ERROR_CODES.
  { code: 'account_disabled', status: 403, message: 'This account has been deactivated.' },
] as const satisfies readonly ErrorDefinition[];

/** The codes of a registry, as a tuple in its order. */
function codesOf<const R extends readonly ErrorDefinition[]>(
  registry: R,
): { readonly [I in keyof R]: R[I]['code'] } {
  return registry.map((entry) => entry.code) as never;
}

type CodeOf<E> = E extends { code: infer C extends string } ? C : never;
type StatusOf<E> = E extends { status: infer S extends number } ? S : never;

/** A registry's status of each code, in its order. */
function statusesOf<const R extends readonly ErrorDefinition[]>(
  registry: R,
): {
  readonly [I in keyof R as I extends `${number}` ? CodeOf<R[I]> : never]: StatusOf<R[I]>;
} {
  return Object.fromEntries(registry.map((entry) => [entry.code, entry.status])) as never;
}

/**
 * Every error code of tenant-auth, in the order of the registry (core's `vocabulary/error-registry.ts`),
 * from which {@link TenantAuthErrorCode}, the HTTP contract's problem codes and the status map are
 * derived. Callers switch on `code`, never on messages or on `instanceof` across packages.
 *
 * - The codes a client can receive are the ones of the HTTP contract (`docs/http-api.md`, "Errors" and
 *   the "Errors added in" sections).
 * - `email_taken` and `slug_taken` are raised by stores and turned into `validation_failed` by core.
 * - `invalid_configuration` is thrown by factories (`createTenantAuth`, `createTenantAuthKoa`, ...) at
 *   creation time, before any I/O; its `option` names the offending option.
 *
 * @example
 * const known = (ERROR_CODES as readonly string[]).includes(body.code);
 */
export const ERROR_CODES = codesOf(ERROR_REGISTRY);

/**
 * A stable error code (one of {@link ERROR_CODES}).
 *
 * @example
 * const code: TenantAuthErrorCode = 'invalid_credentials';
 */
export type TenantAuthErrorCode = (typeof ERROR_CODES)[number];

/**
 * The HTTP status an adapter answers each error code with (every code of {@link ERROR_CODES}, no
 * other: both come from one registry).
 *
 * @example
 * ERROR_STATUS.invalid_token; // 401
 */
export const ERROR_STATUS = statusesOf(ERROR_REGISTRY);

/** @internal The default message of each code. */
export const ERROR_MESSAGES = Object.fromEntries(
  ERROR_REGISTRY.map((entry) => [entry.code, entry.message]),
) as Record<TenantAuthErrorCode, string>;

/** @internal The codes no client ever receives (see `reachesClients` in the registry). */
export const SERVER_ONLY_ERROR_CODES: readonly TenantAuthErrorCode[] = ERROR_REGISTRY.filter(
  (entry) => 'reachesClients' in entry,
).map((entry) => entry.code);
