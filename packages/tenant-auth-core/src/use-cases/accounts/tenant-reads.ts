import type { TenantStore } from '../../ports/tenant-auth-stores.js';
import type { Principal } from '../../vocabulary/claims.js';
import { notFound } from '../../vocabulary/errors.js';
import { normalizeUuid } from '../../vocabulary/ids.js';
import type { Tenant } from '../../vocabulary/records.js';

/** @internal Tenant reads, scoped by the verified token: any other id is "not found", never "forbidden". */
export function createTenantReads(tenants: TenantStore) {
  async function getTenant(claims: Principal, rawTenantId: string): Promise<Tenant> {
    const tenantId = normalizeUuid(rawTenantId);
    if (tenantId === null || tenantId !== claims.tenantId) throw notFound();
    const tenant = await tenants.findById(tenantId);
    if (!tenant) throw notFound();
    const { id, slug, name, createdAt } = tenant;
    return { id, slug, name, createdAt };
  }
  return { getTenant, getMyTenant: (claims: Principal) => getTenant(claims, claims.tenantId) };
}
