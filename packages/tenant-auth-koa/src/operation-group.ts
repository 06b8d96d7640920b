import type { Context } from 'koa';
import type { ApiKeyClaims, RateLimitResult } from 'tenant-auth-core';
import type { JsonMediaType } from './body-rules.js';
import type { Operation, RouteSettings } from './operations/define.js';
import { OPERATIONS } from './operations/index.js';
import { type ErrorWriter, type Problem, writeProblem } from './problem.js';
import { requestContext } from './request-context.js';

/** @internal What a request is counted as against a group's rate budget. */
export interface BudgetRequest {
  /** Whether a route of the path and method takes the strict budget (`budget: 'strict'`). */
  strict: boolean;
  /** The request's API key, when this process verified it recently (a key has a budget of its own). */
  apiKey: ApiKeyClaims | undefined;
}

/**
 * @internal Counts a request against its group's rate budget, before its body is read: the budget's state
 * for the `RateLimit-*` headers, or `null` when no budget applies. Throws `rate_limited` (answered in the
 * group's error form) when the budget is spent.
 */
export type RateBudget = (
  ctx: Context,
  request: BudgetRequest,
  settings: RouteSettings,
) => Promise<RateLimitResult | null>;

/**
 * @internal A group of operations served together at one mount path, by the one middleware of
 * `createTenantAuthKoa`: the API group under the prefix (documented in the OpenAPI document), and groups
 * that speak another protocol at a path of their own, outside it (SCIM at `/scim/v2`: see
 * docs/http-api.md, "SCIM 2.0 provisioning per tenant"). Under its mount path a group gets the pipeline
 * of the prefix (request id, security headers, its error form for every failure, CORS where it says so,
 * its rate budget, its body rules, its routes, then the application's routes under the path, then 404);
 * nothing of it applies outside.
 */
export interface OperationGroup {
  /** Its operations, in the order the router tries them. */
  operations: readonly Operation[];
  /**
   * The media types of its JSON bodies (each operation may say otherwise: `request`); the first is the
   * `Content-Type` of its JSON answers.
   */
  mediaTypes: readonly [JsonMediaType, ...JsonMediaType[]];
  /** Writes its error answers (problem+json for the API group). */
  writeError: ErrorWriter;
  /**
   * What a thrown value becomes (its status, for the answer and the log), when the group's protocol says
   * otherwise than problem+json does (SCIM answers core's `email_taken` with `409`). Default: `problemOf`.
   */
  problemOf?: (err: unknown) => Problem;
  /** Counts its requests (the per-client `strict` and `general` budgets for the API group). */
  rateLimit: RateBudget;
  /** Whether browsers call it (CORS over the `origins`, with the `cors` option); else no CORS headers. */
  cors: boolean;
}

/** @internal A group and the path it is mounted at (validated as the `prefix` is). */
export interface Mount {
  path: string;
  group: OperationGroup;
  /** The option the path comes from (`'scim.path'`), named by a configuration error. Default `mounts`. */
  option?: string;
}

/** The per-client budgets of the HTTP contract: `strict` on the credential routes, `general` elsewhere. */
const clientBudget: RateBudget = (ctx, { strict, apiKey }, { auth }) =>
  auth.rateLimit(strict ? 'strict' : 'general', requestContext(ctx), apiKey);

/** @internal The routes of the HTTP contract (docs/http-api.md), served under the prefix. */
export const API_GROUP: OperationGroup = Object.freeze<OperationGroup>({
  operations: OPERATIONS,
  mediaTypes: ['application/json'],
  writeError: writeProblem,
  rateLimit: clientBudget,
  cors: true,
});
