import { actingUser } from '../authorization.js';
import type { AccessClaims } from '../claims.js';
import { invalidToken, TenantAuthError } from '../errors.js';
import type { RequestContext } from '../records.js';
import type { Services } from '../services.js';
import { requiredText } from './inputs.js';
import type { ConfirmPassword } from './password-confirmation.js';

/** @internal Deleting one's own account; the tenant goes with its last member. */
export function createAccountDeletion(services: Services, confirmPassword: ConfirmPassword) {
  const { stores, events, cache, clock } = services;

  return async function deleteAccount(
    claims: AccessClaims,
    input: { password: string },
    context: RequestContext = {},
  ): Promise<void> {
    const password = requiredText(input?.password, 'password');
    const user = await actingUser(stores, claims, clock.now());
    await confirmPassword(user, password, 'password', context);
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
      if (me.role === 'owner' && members.filter((m) => m.role === 'owner').length === 1) {
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
