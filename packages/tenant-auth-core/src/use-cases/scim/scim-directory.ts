import type { EventLog } from '../../mechanisms/events/event-log.js';
import type { CompleteTransactionStores } from '../../ports/tenant-auth-stores.js';
import { invalidToken } from '../../vocabulary/errors.js';
import type { ScimClaims } from '../../vocabulary/scim.js';

/** @internal What a directory's write gets: the transaction, its audit, the tenant. */
export type DirectoryWrite<T> = (
  tx: CompleteTransactionStores,
  record: Parameters<Parameters<EventLog['transaction']>[0]>[1],
  tenantId: string,
) => Promise<T>;

/** @internal The tenant of a directory's claims (`invalid_token` for anything that is not a directory's). */
export function tenantOf(directory: ScimClaims): string {
  if (directory?.actorType !== 'scim' || typeof directory.tenantId !== 'string') throw invalidToken();
  return directory.tenantId;
}

/**
 * @internal Runs a directory's write as every one runs (docs/http-api.md, "SCIM 2.0 provisioning per
 * tenant"): one transaction, under the tenant lock (serialised per tenant), its events recorded in it. A
 * tenant deleted meanwhile is `invalid_token`, as its token is gone with it; so is a token revoked or
 * replaced since it was verified (the revocation takes the same lock: a write queued behind it stops too).
 */
export function directoryWrite<T>(
  events: EventLog,
  directory: ScimClaims,
  fn: DirectoryWrite<T>,
): Promise<T> {
  const tenantId = tenantOf(directory);
  return events.transaction(async (tx, record) => {
    if (!(await tx.tenants.lock(tenantId))) throw invalidToken();
    const current = await tx.scim.findToken(tenantId);
    if (!current || current.tokenHash !== directory.tokenHash) throw invalidToken();
    return fn(tx, record, tenantId);
  });
}
