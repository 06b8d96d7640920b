import { takesForm } from '../body-rules.js';
import type { ProblemCode } from '../problem-codes.js';
import type { Operation } from './define.js';

/**
 * @internal Every problem code an operation may answer: the codes of the layers in front of its route
 * (an unsafe request's body; the token of a caller, and the CSRF rule for cookies on unsafe requests; the
 * role; rate limits, faults, unavailable stores), then the ones of the route itself. The document lists
 * the response of each; the tests check every answer against them.
 *
 * @example
 * problemCodesOf(operation).includes('not_found');
 */
export function problemCodesOf(operation: Operation): ProblemCode[] {
  const { caller } = operation;
  const unsafe = operation.method !== 'GET';
  const codes: ProblemCode[] = [...(operation.problems ?? [])];
  if (unsafe) codes.push('validation_failed', 'invalid_json', 'payload_too_large', 'unsupported_media_type');
  if (caller !== 'none') codes.push('invalid_token');
  // `forbidden`: a role below the route's, or an API key where keys are not accepted (docs/http-api.md, "API keys").
  if (
    caller === 'admin' ||
    (!operation.apiKeys && (caller !== 'none' || operation.path.startsWith('/auth/')))
  )
    codes.push('forbidden');
  if (operation.recent) codes.push('reauthentication_required');
  // The same-origin rule: for a cookie on an unsafe request, and for a form that is not `crossSite`.
  const sameOriginForm = takesForm(operation.request) && operation.request?.crossSite !== true;
  if (unsafe && (caller !== 'none' || sameOriginForm)) codes.push('csrf_rejected');
  codes.push('method_not_allowed', 'rate_limited', 'internal_error');
  if (operation.canBeUnavailable ?? true) codes.push('unavailable');
  return [...new Set(codes)];
}
