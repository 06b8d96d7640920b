import { isActive } from '../../mechanisms/deactivation.js';
import { requiredText } from '../../mechanisms/inputs/inputs.js';
import type { Services } from '../../mechanisms/services.js';
import { hasNoPassword } from '../../mechanisms/sso/no-password.js';
import type { AccessClaims } from '../../vocabulary/claims.js';
import { invalidToken, TenantAuthError } from '../../vocabulary/errors.js';
import type { RequestContext } from '../../vocabulary/records.js';
import type { ConfirmPassword } from './password-confirmation.js';

/** @internal Deleting one's own account; the tenant goes with its last member. */
export function createAccountDeletion(services: Services, confirmPassword: ConfirmPassword) {
  const { events, cache } = services;

  /**
   * A recent authentication (docs/http-api.md, "Rules that change in 1.3"), then the password. A user SSO
   * provisioned has none: its recent SSO authentication (a re-authentication at the provider) stands for it.
   */
  async function confirmedUser(claims: AccessClaims, password: unknown, context: RequestContext) {
    if (password === undefined && claims.amr.includes('sso')) {
      const user = await services.requireRecent(claims);
      if (hasNoPassword(user)) return user;
    }
    const text = requiredText(password, 'password');
    const user = await services.requireRecent(claims);
    await confirmPassword(user, text, 'password', context);
    return user;
  }

  return async function deleteAccount(
    claims: AccessClaims,
    input: { password?: string | undefined } | undefined,
    context: RequestContext = {},
  ): Promise<void> {
    const user = await confirmedUser(claims, input?.password, context);
    const parties = {
      tenantId: user.tenantId,
      actorId: user.id,
      subjectId: user.id,
      sessionId: claims.sessionId,
    };
    const tenantDeleted = await events.transaction(async (tx, record) => {
      await tx.tenants.lock(user.tenantId);
      const me = await tx.users.findById(user.tenantId, user.id);
      if (!me) throw invalidToken();
      const members = await tx.users.listByTenant(user.tenantId);
      if (members.length === 1) {
        // The only member leaves: the tenant, its audit log included, goes too.
        await tx.tenants.delete(user.tenantId);
        return true;
      }
      // The last *active* owner (docs/http-api.md, "Errors added in 1.3"): deactivated owners cannot act.
      const activeOwners = members.filter((m) => m.role === 'owner' && isActive(m)).length;
      if (me.role === 'owner' && isActive(me) && activeOwners === 1) {
        throw new TenantAuthError(
          'last_owner',
          'You are the only owner and others remain; make someone else an owner first.',
        );
      }
      await tx.users.delete(user.tenantId, user.id);
      await record({ type: 'account_deleted', ...events.base(parties, context) });
      return false;
    });
    // No audit log is left to keep it in; the hook still hears of it.
    if (tenantDeleted) events.emit({ type: 'account_deleted', ...events.base(parties, context) });
    cache.forgetAll();
  };
}
