import type { Logger } from 'tenant-auth-core';
import type { OperationGroup } from '../operation-group.js';
import type { Operation } from '../operations/define.js';
import { resourceTypes, schemas, serviceProviderConfig } from './discovery.js';
import { answerScim, scimProblemOf, writeScimError } from './scim-answers.js';
import { createScimBudget, type ScimBudgetSettings } from './scim-budget.js';
import { scimAuthentication } from './scim-directory.js';
import { SCIM_GROUP_ROUTES } from './scim-group-routes.js';
import { SCIM_MEDIA_TYPE } from './scim-protocol.js';
import { scimOperation } from './scim-route-kit.js';
import { SCIM_USER_ROUTES } from './scim-user-routes.js';

/** @internal The discovery documents (RFC 7644 4): they need the token too. */
const SCIM_DISCOVERY_ROUTES: readonly Operation[] = [
  scimOperation({
    id: 'scimServiceProviderConfig',
    method: 'GET',
    path: '/ServiceProviderConfig',
    summary: 'What this server supports.',
    status: 200,
    handle: async ({ ctx, baseUrl }) => answerScim(ctx, 200, serviceProviderConfig(baseUrl)),
  }),
  scimOperation({
    id: 'scimResourceTypes',
    method: 'GET',
    path: '/ResourceTypes',
    summary: 'User and Group.',
    status: 200,
    handle: async ({ ctx, baseUrl }) => answerScim(ctx, 200, resourceTypes(baseUrl)),
  }),
  scimOperation({
    id: 'scimSchemas',
    method: 'GET',
    path: '/Schemas',
    summary: 'The User and Group schemas.',
    status: 200,
    handle: async ({ ctx, baseUrl }) => answerScim(ctx, 200, schemas(baseUrl)),
  }),
];

/**
 * @internal SCIM 2.0 (RFC 7643, RFC 7644) as a group of operations mounted outside the prefix
 * (docs/http-api.md, "SCIM 2.0 provisioning per tenant"): `application/scim+json` (and `application/json`)
 * bodies up to `bodyLimitBytes`, SCIM's error form for every failure, no CORS (directories are servers),
 * and a step before each route that authenticates the tenant's token and counts the tenant's budget
 * (`undefined`: no budget).
 */
export function scimOperationGroup(options: {
  bodyLimitBytes: number;
  budget: ScimBudgetSettings | undefined;
  logger: Logger;
}): OperationGroup {
  const request = {
    mediaTypes: [SCIM_MEDIA_TYPE, 'application/json'],
    limitBytes: options.bodyLimitBytes,
  } as const;
  const operations = [...SCIM_DISCOVERY_ROUTES, ...SCIM_USER_ROUTES, ...SCIM_GROUP_ROUTES].map(
    (operation) => ({
      ...operation,
      request,
    }),
  );
  return {
    operations,
    mediaTypes: [SCIM_MEDIA_TYPE, 'application/json'],
    writeError: writeScimError,
    problemOf: scimProblemOf,
    rateLimit: scimAuthentication(
      options.budget === undefined ? undefined : createScimBudget(options.budget, options.logger),
    ),
    cors: false,
  };
}
