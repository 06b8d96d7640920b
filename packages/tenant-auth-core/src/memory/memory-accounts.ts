import type { CompleteTransactionStores, UserStore } from '../ports/tenant-auth-stores.js';
import { errorOf } from '../vocabulary/errors.js';
import type { UserRecord } from '../vocabulary/records.js';
import type { MemoryState } from './memory-database.js';
import { copy, copyOrNull, type Run } from './memory-run.js';

function userOf(s: MemoryState, tenantId: string, userId: string): UserRecord | undefined {
  const user = s.users.get(userId);
  return user?.tenantId === tenantId ? user : undefined;
}

/** @internal Deletes a user and what belongs to it: sessions, second factors, one-time tokens, SCIM profile and memberships. */
export function deleteUser(s: MemoryState, user: UserRecord): void {
  s.users.delete(user.id);
  s.userIdByEmail.delete(user.email);
  s.totpFactors.delete(user.id);
  s.factorLocks.delete(user.id);
  for (const [key, code] of [...s.recoveryCodes]) if (code.userId === user.id) s.recoveryCodes.delete(key);
  for (const [key, c] of [...s.mfaChallenges]) if (c.userId === user.id) s.mfaChallenges.delete(key);
  for (const [key, p] of [...s.passkeys]) if (p.userId === user.id) s.passkeys.delete(key);
  for (const [key, c] of [...s.webauthnChallenges])
    if (c.userId === user.id) s.webauthnChallenges.delete(key);
  for (const [key, i] of [...s.ssoIdentities]) if (i.userId === user.id) s.ssoIdentities.delete(key);
  s.scimProfiles.delete(user.id);
  for (const [key, m] of [...s.scimMembers]) if (m.userId === user.id) s.scimMembers.delete(key);
  for (const session of [...s.sessions.values()]) {
    if (session.userId !== user.id) continue;
    s.sessions.delete(session.id);
    s.sessionIdByRefreshHash.delete(session.refreshHash);
    if (session.previousRefreshHash !== null) s.sessionIdByRefreshHash.delete(session.previousRefreshHash);
  }
  for (const token of [...s.oneTimeTokens.values()]) {
    if (token.userId === user.id) {
      s.oneTimeTokens.delete(token.id);
      s.oneTimeTokenIdByHash.delete(token.tokenHash);
    } else if (token.createdBy === user.id) {
      // An invitation outlives the administrator who sent it; it just no longer names them.
      s.oneTimeTokens.set(token.id, { ...token, createdBy: null });
    }
  }
  // An API key belongs to the tenant: it outlives its creator, as an invitation does.
  for (const key of [...s.apiKeys.values()]) {
    if (key.createdBy === user.id) s.apiKeys.set(key.id, { ...key, createdBy: null });
  }
}

/** @internal */
export function memoryTenantStore(run: Run): CompleteTransactionStores['tenants'] {
  return {
    create: (tenant) =>
      run((s) => {
        if (s.tenantIdBySlug.has(tenant.slug)) {
          throw errorOf('slug_taken');
        }
        if (s.tenants.has(tenant.id)) throw new TypeError('duplicate tenant id');
        s.tenants.set(tenant.id, copy(tenant));
        s.tenantIdBySlug.set(tenant.slug, tenant.id);
      }),
    findById: (tenantId) => run((s) => copyOrNull(s.tenants.get(tenantId))),
    // One operation or transaction runs at a time: holding the database is holding every lock.
    lock: (tenantId) => run((s) => s.tenants.has(tenantId)),
    delete: (tenantId) =>
      run((s) => {
        const tenant = s.tenants.get(tenantId);
        if (!tenant) return false;
        for (const user of [...s.users.values()]) if (user.tenantId === tenantId) deleteUser(s, user);
        for (const key of [...s.apiKeys.values()]) {
          if (key.tenantId !== tenantId) continue;
          s.apiKeys.delete(key.id);
          s.apiKeyIdBySecretHash.delete(key.secretHash);
        }
        for (const token of [...s.oneTimeTokens.values()]) {
          if (token.tenantId !== tenantId) continue;
          s.oneTimeTokens.delete(token.id);
          s.oneTimeTokenIdByHash.delete(token.tokenHash);
        }
        for (const event of [...s.auditEvents.values()]) {
          if (event.tenantId === tenantId) s.auditEvents.delete(event.id);
        }
        for (const [key, d] of [...s.domains]) if (d.tenantId === tenantId) s.domains.delete(key);
        s.ssoConnections.delete(tenantId);
        for (const e of [...s.webhookEndpoints.values()])
          if (e.tenantId === tenantId) s.webhookEndpoints.delete(e.id);
        for (const d of [...s.webhookDeliveries.values()]) {
          if (d.tenantId === tenantId) s.webhookDeliveries.delete(d.id);
        }
        s.scimTokens.delete(tenantId);
        s.scimGroupRoles.delete(tenantId);
        for (const g of [...s.scimGroups.values()]) if (g.tenantId === tenantId) s.scimGroups.delete(g.id);
        for (const [key, m] of [...s.scimMembers]) if (m.tenantId === tenantId) s.scimMembers.delete(key);
        s.tenants.delete(tenantId);
        s.tenantIdBySlug.delete(tenant.slug);
        return true;
      }),
    setRequireMfa: (tenantId, requireMfa) =>
      run((s) => {
        const tenant = s.tenants.get(tenantId);
        if (!tenant) return false;
        s.tenants.set(tenantId, { ...tenant, requireMfa });
        return true;
      }),
  };
}

/** @internal */
export function memoryUserStore(
  run: Run,
): UserStore & Required<Pick<UserStore, 'setActive' | 'countActiveByRole'>> {
  const update = (tenantId: string, userId: string, changes: Partial<UserRecord>) =>
    run((s) => {
      const user = userOf(s, tenantId, userId);
      if (!user) return false;
      s.users.set(userId, { ...user, ...changes });
      return true;
    });
  return {
    create: (user) =>
      run((s) => {
        if (s.userIdByEmail.has(user.email)) {
          throw errorOf('email_taken');
        }
        if (s.users.has(user.id)) throw new TypeError('duplicate user id');
        if (!s.tenants.has(user.tenantId)) throw new TypeError('the tenant of the user does not exist');
        s.users.set(user.id, copy(user));
        s.userIdByEmail.set(user.email, user.id);
      }),
    findByEmail: (email) =>
      run((s) => {
        const id = s.userIdByEmail.get(email);
        return copyOrNull(id === undefined ? undefined : s.users.get(id));
      }),
    findById: (tenantId, userId) => run((s) => copyOrNull(userOf(s, tenantId, userId))),
    setPasswordHash: (tenantId, userId, passwordHash) => update(tenantId, userId, { passwordHash }),
    listByTenant: (tenantId, options) =>
      run((s) =>
        [...s.users.values()]
          .filter((u) => u.tenantId === tenantId)
          .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1))
          .slice(0, options?.limit)
          .map(copy),
      ),
    countByRole: (tenantId, role) =>
      run((s) => [...s.users.values()].filter((u) => u.tenantId === tenantId && u.role === role).length),
    setRole: (tenantId, userId, role) => update(tenantId, userId, { role }),
    setActive: (tenantId, userId, active) => update(tenantId, userId, { active }),
    countActiveByRole: (tenantId, role) =>
      run(
        (s) =>
          [...s.users.values()].filter(
            (u) => u.tenantId === tenantId && u.role === role && u.active !== false,
          ).length,
      ),
    markEmailVerified: (tenantId, userId) => update(tenantId, userId, { emailVerified: true }),
    changeEmail: (tenantId, userId, email) =>
      run((s) => {
        const user = userOf(s, tenantId, userId);
        if (!user) return false;
        const holder = s.userIdByEmail.get(email);
        if (holder !== undefined && holder !== userId) {
          throw errorOf('email_taken');
        }
        s.userIdByEmail.delete(user.email);
        s.userIdByEmail.set(email, userId);
        s.users.set(userId, { ...user, email, emailVerified: true });
        return true;
      }),
    delete: (tenantId, userId) =>
      run((s) => {
        const user = userOf(s, tenantId, userId);
        if (!user) return false;
        deleteUser(s, user);
        return true;
      }),
  };
}
