import type { Services } from '../../mechanisms/services.js';
import { createScimGroups } from './scim-groups.js';
import { createScimConnection } from './scim-token.js';
import type { TenantAuthScim } from './scim-types.js';
import { createScimUsers } from './scim-users.js';

/**
 * @internal SCIM's part of `TenantAuth` (docs/http-api.md, "SCIM 2.0 provisioning per tenant"): the token
 * and mapping its owners manage, and the users and groups its directory writes.
 */
export function createScim(services: Services): TenantAuthScim {
  return { ...createScimConnection(services), ...createScimUsers(services), ...createScimGroups(services) };
}
