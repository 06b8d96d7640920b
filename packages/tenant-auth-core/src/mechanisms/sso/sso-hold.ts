import type { CompleteTransactionStores } from '../../ports/tenant-auth-stores.js';
import { errorOf, type TenantAuthError } from '../../vocabulary/errors.js';
import { authenticationOf, type UserRecord } from '../../vocabulary/records.js';
import { domainOf } from './domain-names.js';

/**
 * @internal Whether a user must sign in through SSO (docs/http-api.md, "Single sign-on (OpenID Connect) per tenant", `enforce`): the tenant's connection
 * enforces it, the user's address is in a verified domain of that tenant, and the user is no owner
 * (owners keep a way back in when the provider is down). Read from the stores now.
 */
export async function heldToSso(
  stores: Pick<CompleteTransactionStores, 'sso'>,
  user: UserRecord,
): Promise<boolean> {
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
  return errorOf('sso_required');
}

/**
 * @internal Refuses with `sso_required` a user held to SSO: what password login, password reset and
 * passkey login call once they know the user.
 */
export async function assertNotHeldToSso(
  stores: Pick<CompleteTransactionStores, 'sso'>,
  user: UserRecord,
): Promise<void> {
  if (await heldToSso(stores, user)) throw ssoRequired();
}

/**
 * @internal Revokes the sessions of `user` that SSO did not make (password and passkey sessions): what a
 * change that holds the user to SSO does in its own transaction (docs/http-api.md, "Rules that change in
 * 1.3": held users stay held). Returns how many.
 */
export async function revokeSessionsSsoDidNotMake(
  tx: Pick<CompleteTransactionStores, 'sessions'>,
  user: Pick<UserRecord, 'tenantId' | 'id'>,
  now: Date,
): Promise<number> {
  let revoked = 0;
  for (const session of await tx.sessions.listActiveForUser(user.tenantId, user.id, now)) {
    if (authenticationOf(session).amr.includes('sso')) continue;
    if (await tx.sessions.revoke(user.tenantId, session.id, now)) revoked += 1;
  }
  return revoked;
}

/**
 * @internal The tenant that has verified the domain of `email` and connected a provider (docs/http-api.md,
 * "Rules that change in 1.3": verified domains belong to their tenant); `null` when none has.
 */
export async function ssoTenantOfAddress(
  stores: Pick<CompleteTransactionStores, 'sso'>,
  email: string,
): Promise<string | null> {
  const domain = domainOf(email);
  const verified = domain === null ? null : await stores.sso.findVerifiedDomain(domain);
  if (!verified) return null;
  return (await stores.sso.findConnection(verified.tenantId)) ? verified.tenantId : null;
}
