import type { Context } from 'koa';
import { isTenantAuthError } from 'tenant-auth-core';
import { type ErrorWriter, type Problem, problemOf, writeErrorHeaders } from '../problem.js';
import { ScimError, type ScimType, scimErrorBody } from './scim-error.js';
import { SCIM_MEDIA_TYPE } from './scim-protocol.js';

/**
 * How `/scim/v2` answers (RFC 7644 3.12): every failure in SCIM's error form, `application/scim+json`,
 * with the headers every error of tenant-auth-koa carries (`WWW-Authenticate` on a 401, `Retry-After` on
 * a 429 or 503, `Cache-Control: no-store`). Core's codes become SCIM's statuses and `scimType`s:
 *
 * | core code | status | scimType |
 * |---|---|---|
 * | `validation_failed` | 400 | `invalidValue` |
 * | `invalid_json` | 400 | `invalidSyntax` |
 * | `email_taken` | 409 | `uniqueness` (never saying where the address is in use) |
 * | `last_owner` | 409 | `mutability` |
 * | `not_found` | 404 | |
 * | `invalid_token` | 401 | |
 * | `rate_limited` | 429 | |
 * | `feature_unavailable` | 501 | (the application's stores have no SCIM store) |
 *
 * and the parsers' own {@link ScimError}s keep theirs.
 */

/** The codes whose status SCIM answers differently from problem+json, and their `scimType`. */
const SCIM_OF_CODE: Readonly<Record<string, { status?: number; scimType: ScimType; detail?: string }>> = {
  validation_failed: { scimType: 'invalidValue' },
  invalid_json: { scimType: 'invalidSyntax' },
  email_taken: { status: 409, scimType: 'uniqueness', detail: 'The address is already in use.' },
  last_owner: {
    status: 409,
    scimType: 'mutability',
    detail: "The tenant's last active owner cannot be deactivated or removed.",
  },
};

const FIXED_DETAIL: Readonly<Record<number, string>> = {
  401: 'A valid SCIM token is required (Authorization: Bearer tas_…).',
  404: 'The resource was not found.',
  501: 'SCIM provisioning is not available on this server.',
};

/**
 * @internal What an error becomes under `/scim/v2`: problemOf's, with the statuses of {@link SCIM_OF_CODE}
 * (core's `email_taken` is a 409 here, not a fault), and a {@link ScimError}'s own status and detail.
 */
export function scimProblemOf(err: unknown): Problem {
  if (err instanceof ScimError) {
    const problem: Problem = {
      status: err.status,
      code: 'http_error',
      detail: err.message,
      unexpected: false,
    };
    return problem;
  }
  const problem = problemOf(err);
  if (isTenantAuthError(err)) {
    const mapped = SCIM_OF_CODE[err.code];
    if (mapped?.status !== undefined) {
      return {
        status: mapped.status,
        code: 'http_error',
        detail: mapped.detail ?? err.message,
        unexpected: false,
      };
    }
    if (err.code === 'validation_failed' && err.errors !== undefined && err.errors.length > 0) {
      return { ...problem, detail: err.errors.map((e) => `${e.field}: ${e.message}`).join(' ') };
    }
  }
  return problem;
}

/** The `scimType` of an error, when SCIM has one for it. */
function scimTypeOf(err: unknown): ScimType | undefined {
  if (err instanceof ScimError) return err.scimType;
  if (isTenantAuthError(err)) return SCIM_OF_CODE[err.code]?.scimType;
  return undefined;
}

/** @internal Writes an error answer in SCIM's form (the `writeError` of the SCIM group). */
export const writeScimError: ErrorWriter = (ctx, problem, err) => {
  writeErrorHeaders(ctx, problem);
  ctx.type = SCIM_MEDIA_TYPE;
  ctx.body = JSON.stringify(
    scimErrorBody({
      status: problem.status,
      scimType: scimTypeOf(err),
      detail: FIXED_DETAIL[problem.status] ?? problem.detail,
    }),
  );
};

/**
 * @internal Answers a SCIM resource or list: `application/scim+json`, never cached; `location` (a 201's)
 * is set as `Location`.
 */
export function answerScim(ctx: Context, status: number, body: unknown, location?: string): void {
  ctx.set('Cache-Control', 'no-store');
  if (location !== undefined) ctx.set('Location', location);
  ctx.status = status;
  if (body === undefined) return;
  ctx.type = SCIM_MEDIA_TYPE;
  ctx.body = JSON.stringify(body);
}
