import { TenantAuthError } from '../errors.js';
import type { UserRecord } from '../records.js';
import type { TransactionStores } from '../stores/tenant-auth-stores.js';
import { domainOf } from './domain-names.js';

/**
 * @internal Whether a user must sign in through SSO (API.md 1.2, `enforce`): the tenant's connection
 * enforces it, the user's address is in a verified domain of that tenant, and the user is no owner
 * (owners keep a way back in when the provider is down). Read from the stores now.
 */
export async function heldToSso(stores: Pick<TransactionStores, 'sso'>, user: UserRecord): Promise<boolean> {
  if (user.role === 'owner') return false;
  const connection = await stores.sso.findConnection(user.tenantId);
  if (!connection?.enforce) return false;
  const domain = domainOf(user.email);
  if (domain === null) return false;
  const record = await stores.sso.findDomain(user.tenantId, domain);
  return record?.verifiedAt != null;
}

/** @internal The one refusal of a password or passkey sign-in (or reset) of a user held to SSO. */
export function ssoRequired(): TenantAuthError {
  return new TenantAuthError('sso_required', 'Your organisation signs you in through single sign-on.');
}

/**
 * @internal Refuses with `sso_required` a user held to SSO: what password login, password reset and
 * passkey login call once they know the user.
 */
export async function assertNotHeldToSso(
  stores: Pick<TransactionStores, 'sso'>,
  user: UserRecord,
): Promise<void> {
  if (await heldToSso(stores, user)) throw ssoRequired();
}
