import type { Context } from 'koa';
import { isTenantAuthError, type ScimClaims, TenantAuthError } from 'tenant-auth-core';
import type { RateBudget } from '../operation-group.js';
import { requestContext } from '../request-context.js';
import { markTokenPresented } from '../request-marks.js';
import { readBearerToken } from '../request-tokens.js';
import type { ScimBudget } from './scim-budget.js';

/** The directory a request was authenticated as (a property: this runs on every SCIM request). */
const DIRECTORY = Symbol('tenant-auth.scimDirectory');

type WithDirectory = Context & { [DIRECTORY]?: ScimClaims };

/** @internal The directory behind the request's SCIM token, once {@link scimAuthentication} checked it. */
export function directoryOf(ctx: Context): ScimClaims {
  const directory = (ctx as WithDirectory)[DIRECTORY];
  // Every SCIM route runs behind scimAuthentication: a missing directory is a bug, not a client's error.
  if (directory === undefined) throw new Error('The SCIM request was not authenticated.');
  return directory;
}

/**
 * @internal The SCIM group's budget step, which authenticates first: every `/scim/v2` request, discovery
 * included, needs its tenant's token (`Authorization: Bearer tas_…`; `401` without, and for a wrong,
 * replaced or revoked one), then counts against its tenant's budget. A request whose token does not
 * verify also counts against its address's `general` budget, so guessing costs a 429 in the end; valid
 * tokens never do (a directory calls for many tenants from one address).
 */
export function scimAuthentication(budget: ScimBudget | undefined): RateBudget {
  return async (ctx, _request, { auth }) => {
    const token = readBearerToken(ctx);
    if (token !== undefined) markTokenPresented(ctx);
    if (typeof token !== 'string') {
      throw new TenantAuthError('invalid_token', 'A SCIM token is required.');
    }
    let directory: ScimClaims;
    try {
      directory = await auth.verifyScimToken(token);
    } catch (err) {
      if (isTenantAuthError(err, 'invalid_token')) await auth.rateLimit('general', requestContext(ctx));
      throw err;
    }
    (ctx as WithDirectory)[DIRECTORY] = directory;
    return budget === undefined ? null : budget.consume(directory.tenantId);
  };
}
