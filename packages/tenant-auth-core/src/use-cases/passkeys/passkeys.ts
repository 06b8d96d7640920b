import { currentUser } from '../../mechanisms/authorization.js';
import type { Services } from '../../mechanisms/services.js';
import type { AccessClaims } from '../../vocabulary/claims.js';
import { errorOf, notFound } from '../../vocabulary/errors.js';
import { isUuid } from '../../vocabulary/ids.js';
import type { RequestContext } from '../../vocabulary/records.js';
import { createPasskeyLogin } from './passkey-login.js';
import { createPasskeyRegistration, passkeyInfo } from './passkey-registration.js';
import type { PasskeyInfo, TenantAuthPasskeys } from './passkey-types.js';

/**
 * @internal The passkey use cases (docs/http-api.md, "Passkeys (WebAuthn)"): registration, passwordless
 * login, listing and removal. The passkey as a second factor and in re-authentication is the MFA use
 * case's.
 */
export function createPasskeys(services: Services): TenantAuthPasskeys {
  const { stores, events, requireRecent } = services;

  async function listPasskeys(claims: AccessClaims): Promise<PasskeyInfo[]> {
    const user = await currentUser(stores, claims);
    return (await stores.passkeys.listForUser(user.tenantId, user.id)).map(passkeyInfo);
  }

  async function removePasskey(
    claims: AccessClaims,
    id: string,
    context: RequestContext = {},
  ): Promise<void> {
    const user = await requireRecent(claims);
    if (!isUuid(id)) throw notFound();
    await events.transaction(async (tx, record) => {
      // The tenant lock orders this with a policy change, as removing a TOTP factor does.
      if (!(await tx.tenants.lock(user.tenantId))) throw notFound();
      const passkeys = await tx.passkeys.listForUser(user.tenantId, user.id);
      if (!passkeys.some((p) => p.id === id)) throw notFound();
      const totp = await tx.factors.findTotp(user.tenantId, user.id);
      const last = passkeys.length === 1 && !totp?.confirmedAt;
      if (last && (await tx.tenants.findById(user.tenantId))?.requireMfa)
        throw errorOf('mfa_required_by_tenant');
      if (!(await tx.passkeys.delete(user.tenantId, user.id, id))) throw notFound();
      // The recovery codes go with the last factor.
      if (last) await tx.factors.deleteRecoveryCodes(user.tenantId, user.id);
      const parties = {
        tenantId: user.tenantId,
        actorId: user.id,
        subjectId: user.id,
        sessionId: claims.sessionId,
      };
      await record({ type: 'passkey_removed', ...events.base(parties, context) });
    });
  }

  return {
    ...createPasskeyRegistration(services),
    ...createPasskeyLogin(services),
    listPasskeys,
    removePasskey,
  };
}
