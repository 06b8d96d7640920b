import { randomUUID } from 'node:crypto';
import type { SsoConnectionRecord, SsoStore } from '../../ports/sso-store.js';
import { at } from '../fixtures.js';
import { type ConformanceContext, inAnotherTenant } from './context.js';

const domainName = () => `d${randomUUID().slice(0, 8)}.example.com`;
const domainOf = (tenantId: string, name: string, ms = 0) => ({
  tenantId,
  name,
  token: `t-${randomUUID()}`,
  createdAt: at(ms),
});
const connectionOf = (
  tenantId: string,
  overrides: Partial<SsoConnectionRecord> = {},
): SsoConnectionRecord => ({
  tenantId,
  protocol: 'oidc',
  issuer: 'https://idp.example.com',
  settings: { clientId: 'client' },
  sealedSecret: 'v1.k.iv.body',
  enforce: false,
  defaultRole: 'member',
  createdAt: at(0),
  updatedAt: at(0),
  ...overrides,
});

/** @internal Conformance cases of the domain verbs of `sso`. */
export function domainCases({ test, stores, seedUser }: ConformanceContext): void {
  const { describe, it, expect } = test;
  const sso = () => stores().sso;

  describe('sso.addDomain / findDomain / listDomains / deleteDomain', () => {
    it('adds a domain unverified, keeps the first record of a name, lists oldest first, deletes', async () => {
      const u = await seedUser();
      const [a, b] = [domainName(), domainName()];
      const first = domainOf(u.tenantId, a, 10);
      expect(await sso().addDomain(first)).toEqual({ ...first, verifiedAt: null });
      expect(await sso().addDomain({ ...first, token: 'other' })).toEqual({ ...first, verifiedAt: null });
      await sso().addDomain(domainOf(u.tenantId, b, 5));
      expect((await sso().listDomains(u.tenantId)).map((d) => d.name)).toEqual([b, a]);
      expect(await sso().findDomain(u.tenantId, a)).toEqual({ ...first, verifiedAt: null });
      expect(await sso().deleteDomain(u.tenantId, a)).toBe(true);
      expect(await sso().deleteDomain(u.tenantId, a)).toBe(false);
      expect(await sso().findDomain(u.tenantId, a)).toBeNull();
    });

    it(inAnotherTenant('finds, lists and deletes nothing'), async () => {
      const u = await seedUser();
      const other = await seedUser();
      const name = domainName();
      await sso().addDomain(domainOf(u.tenantId, name));
      expect(await sso().findDomain(other.tenantId, name)).toBeNull();
      expect(await sso().listDomains(other.tenantId)).toEqual([]);
      expect(await sso().deleteDomain(other.tenantId, name)).toBe(false);
      expect(await sso().findDomain(u.tenantId, name)).not.toBeNull();
      // The same name in another tenant is a record of its own.
      await sso().addDomain(domainOf(other.tenantId, name));
      expect(await sso().listDomains(u.tenantId)).toHaveLength(1);
    });
  });

  describe('sso.verifyDomain / findVerifiedDomain', () => {
    it('verifies a domain once, and finds it verified by name', async () => {
      const u = await seedUser();
      const name = domainName();
      expect(await sso().verifyDomain(u.tenantId, name, at(1))).toBe('missing');
      await sso().addDomain(domainOf(u.tenantId, name));
      expect(await sso().findVerifiedDomain(name)).toBeNull();
      expect(await sso().verifyDomain(u.tenantId, name, at(5))).toBe('verified');
      expect(await sso().verifyDomain(u.tenantId, name, at(9))).toBe('verified');
      expect((await sso().findDomain(u.tenantId, name))?.verifiedAt).toEqual(at(5));
      expect((await sso().findVerifiedDomain(name))?.tenantId).toBe(u.tenantId);
      await sso().deleteDomain(u.tenantId, name);
      expect(await sso().findVerifiedDomain(name)).toBeNull();
    });

    it(inAnotherTenant('a name verified by one tenant is taken for every other'), async () => {
      const u = await seedUser();
      const other = await seedUser();
      const name = domainName();
      await sso().addDomain(domainOf(u.tenantId, name));
      await sso().addDomain(domainOf(other.tenantId, name));
      expect(await sso().verifyDomain(u.tenantId, name, at(1))).toBe('verified');
      expect(await sso().verifyDomain(other.tenantId, name, at(2))).toBe('taken');
      expect((await sso().findDomain(other.tenantId, name))?.verifiedAt).toBeNull();
      expect(await sso().verifyDomain(other.tenantId, domainName(), at(2))).toBe('missing');
    });

    it('of tenants verifying one name concurrently, exactly one wins', async () => {
      const users = await Promise.all([seedUser(), seedUser(), seedUser(), seedUser()]);
      const name = domainName();
      for (const u of users) await sso().addDomain(domainOf(u.tenantId, name));
      const outcomes = await Promise.all(users.map((u) => sso().verifyDomain(u.tenantId, name, at(1))));
      expect(outcomes.filter((o) => o === 'verified')).toHaveLength(1);
      expect(outcomes.filter((o) => o === 'taken')).toHaveLength(users.length - 1);
      const winner = users[outcomes.indexOf('verified')];
      expect((await sso().findVerifiedDomain(name))?.tenantId).toBe(winner?.tenantId);
    });
  });
}

/** @internal Conformance cases of the connection and identity verbs of `sso`. */
export function ssoConnectionCases({ test, stores, seedUser }: ConformanceContext): void {
  const { describe, it, expect } = test;
  const sso = () => stores().sso;

  describe('sso.saveConnection / findConnection / deleteConnection', () => {
    it('saves, replaces, finds and deletes the one connection of a tenant', async () => {
      const u = await seedUser();
      expect(await sso().findConnection(u.tenantId)).toBeNull();
      await sso().saveConnection(connectionOf(u.tenantId));
      const replaced = connectionOf(u.tenantId, {
        settings: { clientId: 'second' },
        enforce: true,
        defaultRole: 'admin',
        updatedAt: at(9),
      });
      await sso().saveConnection(replaced);
      expect(await sso().findConnection(u.tenantId)).toEqual(replaced);
      expect(await sso().deleteConnection(u.tenantId)).toBe(true);
      expect(await sso().deleteConnection(u.tenantId)).toBe(false);
      expect(await sso().findConnection(u.tenantId)).toBeNull();
    });

    it('keeps any protocol with its own settings as given, and a connection without a secret', async () => {
      const u = await seedUser();
      await sso().saveConnection(connectionOf(u.tenantId));
      // Another protocol replaces it: its settings nest, list and mix JSON types; no secret to seal.
      const other = connectionOf(u.tenantId, {
        protocol: 'saml',
        issuer: 'https://idp.example.com/metadata',
        settings: {
          ssoUrl: 'https://idp.example.com/sso',
          certificates: [{ pem: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----', bits: 2048 }],
          signed: true,
          note: null,
          'odd key "quoted"': 'ünïcödé',
        },
        sealedSecret: null,
        updatedAt: at(7),
      });
      await sso().saveConnection(other);
      expect(await sso().findConnection(u.tenantId)).toEqual(other);
    });

    it(inAnotherTenant('finds, replaces and deletes nothing'), async () => {
      const u = await seedUser();
      const other = await seedUser();
      const mine = connectionOf(u.tenantId);
      await sso().saveConnection(mine);
      expect(await sso().findConnection(other.tenantId)).toBeNull();
      expect(await sso().deleteConnection(other.tenantId)).toBe(false);
      await sso().saveConnection(
        connectionOf(other.tenantId, { protocol: 'saml', settings: {}, sealedSecret: null }),
      );
      expect(await sso().findConnection(u.tenantId)).toEqual(mine);
    });
  });

  describe('sso.linkIdentity / findIdentity / findIdentityOfUser', () => {
    const identity = (tenantId: string, userId: string, subject: string = randomUUID()) => ({
      tenantId,
      userId,
      issuer: 'https://idp.example.com',
      subject,
      createdAt: at(3),
    });

    it('links one subject per user and issuer, and one user per subject', async () => {
      const u = await seedUser();
      const linked = identity(u.tenantId, u.id, 'sub-1');
      expect(await sso().linkIdentity(linked)).toBe(true);
      expect(await sso().findIdentity(u.tenantId, linked.issuer, 'sub-1')).toEqual(linked);
      expect(await sso().findIdentityOfUser(u.tenantId, u.id, linked.issuer)).toEqual(linked);
      expect(await sso().linkIdentity(identity(u.tenantId, u.id, 'sub-2'))).toBe(false);
      expect(await sso().findIdentity(u.tenantId, linked.issuer, 'sub-2')).toBeNull();
      expect(await sso().findIdentityOfUser(u.tenantId, u.id, 'https://other.example.com')).toBeNull();
    });

    it('of concurrent links of one user, one wins', async () => {
      const u = await seedUser();
      const won = await Promise.all([
        sso().linkIdentity(identity(u.tenantId, u.id)),
        sso().linkIdentity(identity(u.tenantId, u.id)),
        sso().linkIdentity(identity(u.tenantId, u.id)),
      ]);
      expect(won.filter(Boolean)).toHaveLength(1);
    });

    it('goes with its user', async () => {
      const u = await seedUser();
      await sso().linkIdentity(identity(u.tenantId, u.id, 'gone'));
      await stores().users.delete(u.tenantId, u.id);
      expect(await sso().findIdentity(u.tenantId, 'https://idp.example.com', 'gone')).toBeNull();
    });

    it(inAnotherTenant('links, finds nothing'), async () => {
      const u = await seedUser();
      const other = await seedUser();
      expect(await sso().linkIdentity(identity(other.tenantId, u.id))).toBe(false);
      await sso().linkIdentity(identity(u.tenantId, u.id, 'sub-x'));
      expect(await sso().findIdentity(other.tenantId, 'https://idp.example.com', 'sub-x')).toBeNull();
      expect(await sso().findIdentityOfUser(other.tenantId, u.id, 'https://idp.example.com')).toBeNull();
    });
  });

  describe('tenants.delete (single sign-on)', () => {
    it('deletes the tenant with its domains and connection', async () => {
      const u = await seedUser();
      const name = domainName();
      await sso().addDomain(domainOf(u.tenantId, name));
      await sso().verifyDomain(u.tenantId, name, at(1));
      await sso().saveConnection(connectionOf(u.tenantId));
      await stores().tenants.delete(u.tenantId);
      expect(await sso().findVerifiedDomain(name)).toBeNull();
      expect(await sso().findConnection(u.tenantId)).toBeNull();
    });
  });
}

/** @internal Conformance cases of `sso.useOnce` and `sso.deleteExpiredUsedOnce` (optional verbs: skipped when absent). */
export function ssoUseOnceCases({ test, stores, seedUser }: ConformanceContext): void {
  const { describe, it, expect } = test;
  const sso = () => stores().sso;
  const useOnce = (...args: Parameters<NonNullable<SsoStore['useOnce']>>) => {
    const verb = sso().useOnce;
    return verb ? verb.call(sso(), ...args) : Promise.resolve(null);
  };
  const id = () => `state-${randomUUID()}`;

  describe('sso.useOnce / deleteExpiredUsedOnce', () => {
    it('is true the first time only, per kind', async () => {
      if (!sso().useOnce) return;
      const u = await seedUser();
      const key = { tenantId: u.tenantId, kind: 'state' as const, id: id() };
      expect(await useOnce(key, at(60_000))).toBe(true);
      expect(await useOnce(key, at(60_000))).toBe(false);
      expect(await useOnce({ ...key, kind: 'assertion' }, at(60_000))).toBe(true);
      expect(await useOnce({ ...key, id: `${key.id}x` }, at(60_000))).toBe(true);
    });

    it('of concurrent uses of one key, exactly one is true', async () => {
      if (!sso().useOnce) return;
      const u = await seedUser();
      const key = { tenantId: u.tenantId, kind: 'assertion' as const, id: id() };
      const results = await Promise.all(Array.from({ length: 5 }, () => useOnce(key, at(60_000))));
      expect(results.filter((r) => r === true)).toHaveLength(1);
    });

    it('deletes expired marks only, in batches; a deleted mark can be used again', async () => {
      const verb = sso().deleteExpiredUsedOnce;
      if (!sso().useOnce || !verb) return;
      const u = await seedUser();
      const expired = [id(), id(), id()];
      for (const e of expired) await useOnce({ tenantId: u.tenantId, kind: 'state', id: e }, at(1_000));
      const live = { tenantId: u.tenantId, kind: 'state' as const, id: id() };
      await useOnce(live, at(9_000_000_000_000));
      const deleteExpired = (batchSize: number) => verb.call(sso(), { expiredBefore: at(2_000), batchSize });
      expect(await deleteExpired(2)).toBe(2);
      // Other tests' marks may expire before at(2_000) too: at least ours are gone after enough batches.
      while ((await deleteExpired(100)) > 0);
      expect(await useOnce(live, at(9_000_000_000_000))).toBe(false);
      expect(
        await useOnce({ tenantId: u.tenantId, kind: 'state', id: expired[0] as string }, at(1_000)),
      ).toBe(true);
    });

    it(inAnotherTenant('the same id is a key of its own'), async () => {
      if (!sso().useOnce) return;
      const u = await seedUser();
      const other = await seedUser();
      const shared = id();
      expect(await useOnce({ tenantId: u.tenantId, kind: 'state', id: shared }, at(60_000))).toBe(true);
      expect(await useOnce({ tenantId: other.tenantId, kind: 'state', id: shared }, at(60_000))).toBe(true);
      expect(await useOnce({ tenantId: other.tenantId, kind: 'state', id: shared }, at(60_000))).toBe(false);
    });
  });
}
