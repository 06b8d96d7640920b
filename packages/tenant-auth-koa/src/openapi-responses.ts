// The responses of the OpenAPI document: the headers every answer carries, the shared responses
// (`components.responses`) and the response of each problem code.
import { type JsonObject, REF, RESPONSE } from './openapi-components.js';
import type { ProblemCode } from './problem-codes.js';

const integer = (description: string, required: boolean) => ({
  description,
  required,
  schema: { type: 'integer', minimum: 0 },
});

/** @internal The `RateLimit-*` headers: required on a 429 (the refusing budget's), else when limiting is on. */
export const rateLimitHeaders = (required: boolean) => ({
  'RateLimit-Limit': integer(
    required
      ? 'Requests the refusing budget allows per window.'
      : 'Requests allowed per window (when rate limiting is on).',
    required,
  ),
  'RateLimit-Remaining': integer('Requests left in the window.', required),
  'RateLimit-Reset': integer('Seconds until the window frees a slot.', required),
});

/** @internal `Cache-Control: no-store`. */
export const NO_STORE = {
  'Cache-Control': {
    description: 'Never cached: the answer is about one caller.',
    required: true,
    schema: { type: 'string', const: 'no-store' },
  },
};

/** @internal `Retry-After` of a 429 or 503. */
export const RETRY_AFTER = {
  'Retry-After': {
    description: 'Seconds to wait before retrying.',
    required: true,
    schema: { type: 'integer', minimum: 1 },
  },
};

/** @internal `WWW-Authenticate` of a 401. */
export const WWW_AUTHENTICATE = {
  'WWW-Authenticate': {
    description: '`Bearer`, with `error="invalid_token"` when a token was sent.',
    required: true,
    schema: { type: 'string' },
  },
};

/** @internal The `Cache-Control` of the public keys. */
export const PUBLIC_CACHE = {
  'Cache-Control': {
    description: 'Public keys may be cached for five minutes.',
    required: true,
    schema: { type: 'string', const: 'public, max-age=300' },
  },
};

/** @internal The headers of every answer under the prefix. */
export const COMMON = { ...NO_STORE, ...rateLimitHeaders(false) };

/** @internal A JSON answer of a named schema, with the headers of every answer. */
export const json = (schemaName: string, description: string, headers: JsonObject = {}): JsonObject => ({
  description,
  headers: { ...COMMON, ...headers },
  content: { 'application/json': { schema: REF(schemaName) } },
});
/** @internal An answer without a body, with the headers of every answer. */
export const empty = (description: string, headers: JsonObject = {}): JsonObject => ({
  description,
  headers: { ...COMMON, ...headers },
});
const problem = (description: string, headers: JsonObject = {}): JsonObject => ({
  description,
  headers: { ...COMMON, ...headers },
  content: { 'application/problem+json': { schema: REF('Problem') } },
});

/** @internal The responses every operation may refer to (`components.responses`). */
export const SHARED_RESPONSES: Record<string, JsonObject> = {
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
  FeatureUnavailable: problem(
    "`feature_unavailable`: the server's stores have no place for this feature (a store set written for 1.1).",
  ),
  MfaRequired: problem(
    '`mfa_required`: the password was right, a second factor is needed (`mfaToken`, `methods`, `expiresIn`; no session, no cookie); `mfa_setup_required`: the tenant requires a second factor and the user has none (`mfaToken`, `expiresIn`: enrol with it). On login also `invalid_credentials`: the same answer for an unknown email and a wrong password.',
    WWW_AUTHENTICATE,
  ),
  MfaConflict: problem(
    '`already_enabled` (a TOTP factor is active), `mfa_not_enabled` (the caller has no factor), or `mfa_required_by_tenant` (the tenant requires a factor and this is the last one).',
  ),
  SsoRequired: problem(
    '`sso_required`: this address signs in through its tenant’s SSO only; `account_disabled`: the account was deactivated (by an admin or the tenant’s directory), the credential was right.',
  ),
  DomainConflict: problem('`domain_taken` (another tenant has it) or `domain_not_verified` (no TXT yet).'),
};

/** @internal The response of each problem code, by status (the first code of a status in `problemCodesOf` wins). */
export const PROBLEM_RESPONSES: Record<ProblemCode, [status: string, response: JsonObject] | undefined> = {
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
  feature_unavailable: ['501', RESPONSE('FeatureUnavailable')],
  // A host route's HTTP error: never one of ours.
  http_error: undefined,
  sso_required: ['403', RESPONSE('SsoRequired')],
  domain_taken: ['409', RESPONSE('DomainConflict')],
  domain_not_verified: ['409', RESPONSE('DomainConflict')],
  account_disabled: ['403', RESPONSE('SsoRequired')],
};
