import { tenantSchema } from '../http-contract.js';
import { toTenantJson } from '../serialize.js';
import { defineOperation } from './define.js';

/** @internal The caller's tenant. */
export const TENANT_OPERATIONS = [
  defineOperation({
    id: 'getMyTenant',
    method: 'GET',
    path: '/tenants/me',
    caller: 'access',
    apiKeys: true,
    budget: 'general',
    tag: 'tenants',
    summary: "The caller's tenant.",
    success: { status: 200, body: tenantSchema, description: 'The tenant.' },
    handler: async ({ caller }, { auth }) => toTenantJson(await auth.getMyTenant(caller)),
  }),
  // After `/tenants/me`, which it would match too.
  defineOperation({
    id: 'getTenant',
    method: 'GET',
    path: '/tenants/:id',
    caller: 'access',
    apiKeys: true,
    budget: 'general',
    tag: 'tenants',
    summary: "A tenant by id: only the caller's own.",
    params: { id: 'Tenant id.' },
    success: { status: 200, body: tenantSchema, description: 'The tenant.' },
    problems: ['not_found'],
    handler: async ({ caller, params }, { auth }) => toTenantJson(await auth.getTenant(caller, params.id)),
  }),
];
