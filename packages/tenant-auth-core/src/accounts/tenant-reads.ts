import type { Principal } from '../claims.js';
import { TenantAuthError } from '../errors.js';
import { normalizeUuid } from '../ids.js';
import type { Tenant } from '../records.js';
import type { TenantStore } from '../stores/tenant-auth-stores.js';

/** @internal Tenant reads, scoped by the verified token: any other id is "not found", never "forbidden". */
export function createTenantReads(tenants: TenantStore) {
  async function getTenant(claims: Principal, rawTenantId: string): Promise<Tenant> {
    const tenantId = normalizeUuid(rawTenantId);
    if (tenantId === null || tenantId !== claims.tenantId)
      throw new TenantAuthError('not_found', 'Not found.');
    const tenant = await tenants.findById(tenantId);
    if (!tenant) throw new TenantAuthError('not_found', 'Not found.');
    const { id, slug, name, createdAt } = tenant;
    return { id, slug, name, createdAt };
  }
  return { getTenant, getMyTenant: (claims: Principal) => getTenant(claims, claims.tenantId) };
}
