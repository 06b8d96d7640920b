import { describe, expect, it } from 'vitest';
import { createMemoryStores } from '../memory/memory-stores.js';
import type {
  CompleteTransactionStores,
  SessionStore,
  TenantAuthStores,
  TenantStore,
  TransactionStores,
} from '../ports/tenant-auth-stores.js';
import { code, failure, owner, PASSWORD, setup, verify } from '../testing/test-helpers.js';
import type { SessionRecord } from '../vocabulary/records.js';

/** A session as a 1.1 store reads it back: without `amr` and `authTime`. */
const sessionOf11 = <S extends SessionRecord | null>(session: S): S => {
  if (session === null) return session;
  const { amr: _amr, authTime: _authTime, ...old } = session;
  return old as S;
};

/**
 * What a store set written for 1.1 has: the six stores of 1.1, without the methods 1.2 added to them
 * (`tenants.setRequireMfa`, `sessions.reauthenticate`, `sessions.revokeWithoutStrongAuth`), and records
 * without its fields (`SessionRecord.amr`/`authTime`, `TenantRecord.requireMfa`). Typed as the public
 * `TenantAuthStores`: this file compiling is the proof that such a bundle still does.
 */
function storesOf11(tenants?: (full: TenantStore) => TenantStore): TenantAuthStores {
  const full = createMemoryStores();
  const oldStores = (tx: CompleteTransactionStores): TransactionStores => {
    const { setRequireMfa: _tenants, ...newTenants } = tx.tenants;
    const oldTenants: TenantStore = {
      ...newTenants,
      findById: async (tenantId) => {
        const found = await newTenants.findById(tenantId);
        if (found === null) return null;
        const { requireMfa: _requireMfa, ...old } = found;
        return old;
      },
    };
    const {
      reauthenticate: _r,
      revokeWithoutStrongAuth: _w,
      rotateCurrent: _c,
      ...newSessions
    } = tx.sessions;
    const oldSessions: SessionStore = {
      ...newSessions,
      findById: async (tenantId, id) => sessionOf11(await newSessions.findById(tenantId, id)),
      findByRefreshHash: async (tenantId, hash) => {
        const found = await newSessions.findByRefreshHash(tenantId, hash);
        return found && { ...found, session: sessionOf11(found.session) };
      },
      listActiveForUser: async (...args) => (await newSessions.listActiveForUser(...args)).map(sessionOf11),
    };
    return {
      tenants: tenants ? tenants(oldTenants) : oldTenants,
      users: tx.users,
      sessions: oldSessions,
      oneTimeTokens: tx.oneTimeTokens,
      outbox: tx.outbox,
      auditEvents: {
        ...tx.auditEvents,
        list: async (tenantId, query) =>
          (await tx.auditEvents.list(tenantId, query)).map(({ actorType: _actorType, ...old }) => old),
      },
    };
  };
  return { ...oldStores(full), transaction: (fn) => full.transaction((tx) => fn(oldStores(tx))) };
}

describe('a store set written for 1.1 (no factor, passkey, SSO or API-key store)', () => {
  it('warns once at start-up naming the stores it leaves out; a complete bundle gets no such line', async () => {
    const warnings: string[] = [];
    const logger = {
      error: () => {},
      info: () => {},
      warn: (_obj: object, msg: string) => warnings.push(msg),
    };
    setup({ stores: storesOf11(), logger });
    expect(warnings.filter((w) => w.includes('the stores leave out'))).toEqual([
      expect.stringContaining('the stores leave out factors, passkeys, sso, apiKeys'),
    ]);
    warnings.length = 0;
    setup({ logger });
    expect(warnings.filter((w) => w.includes('the stores leave out'))).toEqual([]);
  });
  it('registers, logs in (no second factor to ask for), refreshes, reads the caller and the audit log, cleans up', async () => {
    const t = setup({ stores: storesOf11() });
    const registered = await owner(t.auth, 'ada@example.com');
    const login = await t.auth.login({ email: 'ada@example.com', password: PASSWORD });
    expect(login.session.amr).toEqual(['pwd']);
    const refreshed = await t.auth.refresh(login.refreshToken);
    // The session as read back has no `amr`/`authTime`: a password session authenticated at its creation.
    expect(refreshed.session.amr).toEqual(['pwd']);
    expect(refreshed.session.authTime.getTime()).toBe(login.session.authTime.getTime());
    const claims = await t.auth.verifyAccessToken(refreshed.accessToken);
    expect(claims.amr).toEqual(['pwd']);
    expect(claims.userId).toBe(registered.claims.userId);
    expect((await t.auth.getMe(claims)).mfa).toEqual({ totp: false, passkeys: 0, recoveryCodesRemaining: 0 });
    expect(await t.auth.listSessions(claims)).toHaveLength(2);
    expect(await t.auth.getSecurityPolicy(claims)).toEqual({ requireMfa: false });
    // Audit records read back without `actorType` (1.1 kept none) are a user's.
    const { events } = await t.auth.listAuditEvents(claims);
    expect(events.map((e) => [e.type, e.actorType])).toContainEqual(['registered', 'user']);
    expect(events.every((e) => e.actorType === 'user')).toBe(true);
    await expect(t.auth.cleanup()).resolves.toBeDefined();
  });

  it('answers feature_unavailable (501) for second factors, passkeys, SSO and API keys', async () => {
    const t = setup({ stores: storesOf11() });
    const { claims } = await owner(t.auth, 'ada@example.com');
    await verify(t, 'ada@example.com');
    const attempts = {
      setupTotp: t.auth.setupTotp({ claims }),
      listPasskeys: t.auth.listPasskeys(claims),
      addDomain: t.auth.addDomain(claims, { domain: 'acme.example' }),
      listDomains: t.auth.listDomains(claims),
      createApiKey: t.auth.createApiKey(claims, { name: 'CI', role: 'member' }),
      listApiKeys: t.auth.listApiKeys(claims),
      revokeApiKey: t.auth.revokeApiKey(claims, '01900000-0000-7000-8000-000000000000'),
      setSecurityPolicy: t.auth.setSecurityPolicy(claims, { requireMfa: false }),
      reauthenticate: t.auth.reauthenticate(claims, { password: PASSWORD }),
    };
    const codes = Object.fromEntries(
      await Promise.all(Object.entries(attempts).map(async ([name, attempt]) => [name, await code(attempt)])),
    );
    expect(codes).toEqual(
      Object.fromEntries(Object.keys(attempts).map((name) => [name, 'feature_unavailable'])),
    );
    const err = await failure(t.auth.createApiKey(claims, { name: 'CI', role: 'member' }));
    expect(err.status).toBe(501);
    expect(err.message).toMatch(/API keys \(stores\.apiKeys\)/);
  });

  it("calls a store's own methods on the store: a class with private fields works", async () => {
    class PrivateTenants implements TenantStore {
      readonly #inner: TenantStore;
      constructor(inner: TenantStore) {
        this.#inner = inner;
      }
      create(...args: Parameters<TenantStore['create']>) {
        return this.#inner.create(...args);
      }
      findById(tenantId: string) {
        return this.#inner.findById(tenantId);
      }
      lock(tenantId: string) {
        return this.#inner.lock(tenantId);
      }
      delete(tenantId: string) {
        return this.#inner.delete(tenantId);
      }
    }
    const t = setup({ stores: storesOf11((full) => new PrivateTenants(full)) });
    const { claims } = await owner(t.auth, 'ada@example.com');
    expect((await t.auth.getMyTenant(claims)).id).toBe(claims.tenantId);
    expect(await code(t.auth.setSecurityPolicy(claims, { requireMfa: false }))).toBe('feature_unavailable');
  });
});
