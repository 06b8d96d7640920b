import { actingUser, currentUser } from '../../mechanisms/authorization.js';
import { storeNewRecoveryCodes } from '../../mechanisms/second-factor/recovery-codes.js';
import { factorMethods } from '../../mechanisms/second-factor/second-factor-gate.js';
import type { Services } from '../../mechanisms/services.js';
import type { AccessClaims } from '../../vocabulary/claims.js';
import { errorOf, notFound, validationError } from '../../vocabulary/errors.js';
import type { Me, SecurityPolicy } from '../../vocabulary/mfa-types.js';
import type { RequestContext, UserRecord } from '../../vocabulary/records.js';

const mfaNotEnabled = () => errorOf('mfa_not_enabled');

/**
 * @internal What a user does with their factors once enrolled (`disableTotp`, `regenerateRecoveryCodes`),
 * what they see of them (`getMe`), and the tenant's policy (`getSecurityPolicy`, `setSecurityPolicy`).
 */
export function createFactorManagement(services: Services) {
  const { stores, clock, events, requireRecent } = services;
  const partiesOf = (user: UserRecord, claims: AccessClaims) => ({
    tenantId: user.tenantId,
    actorId: user.id,
    subjectId: user.id,
    sessionId: claims.sessionId,
  });

  async function disableTotp(claims: AccessClaims, context: RequestContext = {}): Promise<void> {
    const user = await requireRecent(claims);
    await events.transaction(async (tx, record) => {
      if (!(await tx.tenants.lock(user.tenantId))) throw notFound();
      const last = (await tx.passkeys.countForUser(user.tenantId, user.id)) === 0;
      if (last && (await tx.tenants.findById(user.tenantId))?.requireMfa)
        throw errorOf('mfa_required_by_tenant');
      if (!(await tx.factors.deleteTotp(user.tenantId, user.id))) throw notFound();
      // When no passkey remains, the recovery codes go with the last factor.
      if (last) await tx.factors.deleteRecoveryCodes(user.tenantId, user.id);
      await record({ type: 'mfa_disabled', ...events.base(partiesOf(user, claims), context) });
    });
  }

  async function regenerateRecoveryCodes(
    claims: AccessClaims,
    context: RequestContext = {},
  ): Promise<{ recoveryCodes: string[] }> {
    const user = await requireRecent(claims);
    if ((await factorMethods(stores, user)).length === 0) throw mfaNotEnabled();
    const recoveryCodes = await events.transaction(async (tx, record) => {
      const codes = await storeNewRecoveryCodes(services, tx, user);
      await record({ type: 'recovery_codes_regenerated', ...events.base(partiesOf(user, claims), context) });
      return codes;
    });
    return { recoveryCodes };
  }

  async function getSecurityPolicy(claims: AccessClaims): Promise<SecurityPolicy> {
    await actingUser(stores, claims, clock.now(), 'admin');
    const tenant = await stores.tenants.findById(claims.tenantId);
    if (!tenant) throw notFound();
    return { requireMfa: tenant.requireMfa === true };
  }

  async function setSecurityPolicy(
    claims: AccessClaims,
    input: SecurityPolicy,
    context: RequestContext = {},
  ): Promise<SecurityPolicy> {
    if (typeof input?.requireMfa !== 'boolean') {
      throw validationError([
        { field: 'requireMfa', code: 'invalid_type', message: 'requireMfa must be a boolean.' },
      ]);
    }
    await actingUser(stores, claims, clock.now(), 'owner');
    const user = await requireRecent(claims);
    if (input.requireMfa && (await factorMethods(stores, user)).length === 0) throw mfaNotEnabled();
    await events.transaction(async (tx, record) => {
      // The tenant lock orders the switch with logins, which take it before they create a session.
      if (!(await tx.tenants.lock(user.tenantId))) throw notFound();
      if (!(await tx.tenants.setRequireMfa(user.tenantId, input.requireMfa))) throw notFound();
      // Every session that a second factor (or SSO) did not make goes at once.
      if (input.requireMfa) await tx.sessions.revokeWithoutStrongAuth(user.tenantId, clock.now());
      await record({ type: 'security_policy_changed', ...events.base(partiesOf(user, claims), context) });
    });
    if (input.requireMfa) services.cache.forgetAll();
    return { requireMfa: input.requireMfa };
  }

  async function getMe(claims: AccessClaims): Promise<Me> {
    const user = await currentUser(stores, claims);
    const totp = await stores.factors.findTotp(user.tenantId, user.id);
    const recoveryCodesRemaining = await stores.factors.countRecoveryCodes(user.tenantId, user.id);
    const passkeys = await stores.passkeys.countForUser(user.tenantId, user.id);
    return {
      id: user.id,
      email: user.email,
      tenantId: user.tenantId,
      role: user.role,
      emailVerified: user.emailVerified,
      createdAt: user.createdAt,
      mfa: { totp: totp?.confirmedAt != null, passkeys, recoveryCodesRemaining },
    };
  }

  return { disableTotp, regenerateRecoveryCodes, getSecurityPolicy, setSecurityPolicy, getMe };
}
