/**
 * The codes of {@link ProblemCode}, in one list (for documents and exhaustive checks).
 *
 * @example
 * if (!PROBLEM_CODES.includes(body.code)) throw new Error(`unknown problem code ${body.code}`);
 */
// Core's ERROR_CODES that reach a client, then the HTTP layer's own two: written out because the contract
// loads nothing but zod at run time; contract-parts.ts and contract.test.ts tie it to core's list.
export const PROBLEM_CODES = [
  'validation_failed',
  'invalid_json',
  'invalid_credentials',
  'invalid_token',
  'csrf_rejected',
  'forbidden',
  'email_not_verified',
  'not_found',
  'last_owner',
  'mfa_required',
  'mfa_setup_required',
  'reauthentication_required',
  'mfa_required_by_tenant',
  'already_enabled',
  'mfa_not_enabled',
  'method_not_allowed',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limited',
  'internal_error',
  'unavailable',
  'http_error',
  'sso_required',
  'domain_taken',
  'domain_not_verified',
  'feature_unavailable',
  'account_disabled',
] as const;

/**
 * Every `code` a problem response of tenant-auth can carry: the codes of the HTTP contract, plus
 * `method_not_allowed` (a known path with another method) and `http_error` (an HTTP error thrown by a host
 * route under the prefix, which keeps its status).
 *
 * @example
 * const code: ProblemCode = 'invalid_token';
 */
export type ProblemCode = (typeof PROBLEM_CODES)[number];

/** @internal Largest token accepted from a header, cookie or body; longer values are refused unparsed. */
export const MAX_TOKEN_LENGTH = 8192;
