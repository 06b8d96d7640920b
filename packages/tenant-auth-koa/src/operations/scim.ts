import { TenantAuthError } from 'tenant-auth-core';
import { requestContext } from '../request-context.js';
import {
  createdScimTokenSchema,
  type ScimGroupRoleJson,
  scimGroupRolesSchema,
  scimResponseSchema,
} from '../scim-contract.js';
import { defineOperation, type RouteSettings } from './define.js';

/** The SCIM base URL of the `scim` option; `501 feature_unavailable` when SCIM is not served. */
function baseUrlOf(settings: RouteSettings): string {
  if (settings.scim === undefined) {
    throw new TenantAuthError('feature_unavailable', 'SCIM provisioning is not served by this server.');
  }
  return settings.scim.baseUrl;
}

/**
 * @internal The SCIM token and the group-to-role mapping of the caller's tenant (docs/http-api.md, "SCIM
 * 2.0 provisioning per tenant"). The directory itself speaks to `/scim/v2` (scim/scim-group.ts).
 */
export const SCIM_OPERATIONS = [
  defineOperation({
    id: 'createScimToken',
    method: 'POST',
    path: '/tenants/me/scim/token',
    caller: 'access',
    budget: 'general',
    tag: 'tenants',
    summary: "Create the tenant's SCIM token (owner); it is in this answer only.",
    description:
      'Owners, with a recent authentication. Replaces the previous token, which stops at once. The directory sends it as `Authorization: Bearer` to `baseUrl`.',
    recent: true,
    success: {
      status: 201,
      body: createdScimTokenSchema,
      description: 'The token (shown once) and the base URL.',
    },
    problems: ['forbidden'],
    handler: async ({ ctx, caller }, settings) => {
      const baseUrl = baseUrlOf(settings);
      const { token, createdAt } = await settings.auth.createScimToken(caller, requestContext(ctx));
      return { token, createdAt: createdAt.toISOString(), baseUrl };
    },
  }),
  defineOperation({
    id: 'getScim',
    method: 'GET',
    path: '/tenants/me/scim',
    caller: 'admin',
    budget: 'general',
    tag: 'tenants',
    summary: "The tenant's SCIM connection (never the token).",
    description: 'Owners and admins.',
    success: { status: 200, body: scimResponseSchema, description: 'The connection.' },
    handler: async ({ caller }, settings) => {
      const baseUrl = baseUrlOf(settings);
      const scim = await settings.auth.getScimSettings(caller);
      return {
        scim: {
          enabled: scim.enabled,
          baseUrl,
          createdAt: scim.createdAt?.toISOString() ?? null,
          lastUsedAt: scim.lastUsedAt?.toISOString() ?? null,
          groupRoles: scim.groupRoles.map(({ group, role }) => ({ group, role })),
        },
      };
    },
  }),
  defineOperation({
    id: 'revokeScimToken',
    method: 'DELETE',
    path: '/tenants/me/scim/token',
    caller: 'access',
    budget: 'general',
    tag: 'tenants',
    summary: "Delete the tenant's SCIM token (owner): requests with it are refused at once.",
    description: 'Owners, with a recent authentication.',
    recent: true,
    success: { status: 204, description: 'Deleted.' },
    problems: ['forbidden', 'not_found'],
    handler: async ({ ctx, caller }, settings) => {
      baseUrlOf(settings);
      await settings.auth.revokeScimToken(caller, requestContext(ctx));
    },
  }),
  defineOperation({
    id: 'setScimGroupRoles',
    method: 'PUT',
    path: '/tenants/me/scim/group-roles',
    caller: 'access',
    budget: 'general',
    tag: 'tenants',
    summary: "Replace the tenant's group-to-role mapping (owner); every provisioned user's role follows.",
    description:
      'Owners, with a recent authentication. A user the directory manages (never an owner) gets the highest role its groups give, else `member`. `role` is `admin` or `member` (`invalid_role` otherwise, `owner` included).',
    body: 'setScimGroupRoles',
    recent: true,
    success: { status: 200, body: scimGroupRolesSchema, description: 'The mapping as stored.' },
    problems: ['forbidden', 'validation_failed'],
    handler: async ({ ctx, caller, body }, settings) => {
      baseUrlOf(settings);
      const groupRoles = await settings.auth.setScimGroupRoles(
        caller,
        { groupRoles: body.groupRoles as ScimGroupRoleJson[] },
        requestContext(ctx),
      );
      return { groupRoles: groupRoles.map(({ group, role }) => ({ group, role })) };
    },
  }),
];
