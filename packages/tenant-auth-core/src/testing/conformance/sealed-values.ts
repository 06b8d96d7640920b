import type { SsoConnectionRecord } from '../../store-kit.js';
import { at, outboxMessage } from '../fixtures.js';
import { type ConformanceContext, inAnotherTenant } from './context.js';

const connectionOf = (tenantId: string, sealedSecret: string | null): SsoConnectionRecord => ({
  tenantId,
  protocol: 'oidc',
  issuer: 'https://idp.example.com',
  settings: { clientId: 'client' },
  sealedSecret,
  enforce: false,
  defaultRole: 'member',
  createdAt: at(0),
  updatedAt: at(0),
});

/** Every page of a keyset listing, `limit` rows at a time, as the re-seal reads them. */
async function allPages<T>(
  list: (page: { after: string | null; limit: number }) => Promise<T[]>,
  keyOf: (row: T) => string,
  limit: number,
): Promise<T[][]> {
  const pages: T[][] = [];
  let after: string | null = null;
  for (;;) {
    const rows = await list({ after, limit });
    pages.push(rows);
    const last = rows[rows.length - 1];
    if (rows.length < limit || last === undefined) return pages;
    after = keyOf(last);
  }
}

/**
 * @internal Conformance cases of the optional re-seal verbs (`factors.listSealedTotpSecrets` /
 * `resealTotpSecret`, `sso.listSealedSecrets` / `resealSecret`, `outbox.listSealedPayloads` /
 * `resealPayload`): keyset pages across tenants in key order, and a compare-and-set that changes the
 * sealed value only. A store without them has nothing to check here (each case says so and stops).
 */
export function sealedValueCases({ test, stores, seedUser }: ConformanceContext): void {
  const { describe, it, expect } = test;

  describe('factors.listSealedTotpSecrets / resealTotpSecret (optional)', () => {
    it('pages through every tenant by user id, and re-seals only the value it was given', async () => {
      const { factors } = stores();
      if (!factors.listSealedTotpSecrets || !factors.resealTotpSecret) return;
      const users = [await seedUser(), await seedUser(), await seedUser()];
      for (const [i, u] of users.entries())
        await factors.saveTotpSetup(u.tenantId, u.id, { sealedSecret: `v1.k.${i}`, createdAt: at(i) });
      await factors.confirmTotp(users[0]!.tenantId, users[0]!.id, 7, at(10));
      const pages = await allPages(factors.listSealedTotpSecrets.bind(factors), (r) => r.userId, 2);
      expect(pages.map((p) => p.length)).toEqual([2, 1]);
      const sorted = [...users].sort((a, b) => (a.id < b.id ? -1 : 1));
      expect(pages.flat()).toEqual(
        sorted.map((u) => ({ tenantId: u.tenantId, userId: u.id, sealedSecret: `v1.k.${users.indexOf(u)}` })),
      );
      const u = users[0]!;
      expect(await factors.resealTotpSecret(u.tenantId, u.id, 'v1.k.stale', 'v1.k2.x')).toBe(false);
      expect(await factors.resealTotpSecret(u.tenantId, u.id, 'v1.k.0', 'v1.k2.x')).toBe(true);
      expect(await factors.findTotp(u.tenantId, u.id)).toEqual({
        sealedSecret: 'v1.k2.x',
        createdAt: at(0),
        confirmedAt: at(10),
        lastStep: 7,
      });
    });

    it(inAnotherTenant('re-seals nothing'), async () => {
      const { factors } = stores();
      if (!factors.resealTotpSecret) return;
      const u = await seedUser();
      const other = await seedUser();
      await factors.saveTotpSetup(u.tenantId, u.id, { sealedSecret: 'v1.k.mine', createdAt: at(0) });
      expect(await factors.resealTotpSecret(other.tenantId, u.id, 'v1.k.mine', 'v1.k.mallory')).toBe(false);
      expect((await factors.findTotp(u.tenantId, u.id))?.sealedSecret).toBe('v1.k.mine');
    });
  });

  describe('sso.listSealedSecrets / resealSecret (optional)', () => {
    it('pages through the connections that have a secret by tenant id, and re-seals only the value it was given', async () => {
      const { sso } = stores();
      if (!sso.listSealedSecrets || !sso.resealSecret) return;
      const tenants = [(await seedUser()).tenantId, (await seedUser()).tenantId, (await seedUser()).tenantId];
      const none = (await seedUser()).tenantId;
      for (const [i, t] of tenants.entries()) await sso.saveConnection(connectionOf(t, `v1.k.${i}`));
      await sso.saveConnection(connectionOf(none, null));
      const pages = await allPages(sso.listSealedSecrets.bind(sso), (r) => r.tenantId, 2);
      expect(pages.map((p) => p.length)).toEqual([2, 1]);
      expect(pages.flat()).toEqual(
        [...tenants].sort().map((t) => ({ tenantId: t, sealedSecret: `v1.k.${tenants.indexOf(t)}` })),
      );
      const t = tenants[1]!;
      expect(await sso.resealSecret(t, 'v1.k.stale', 'v1.k2.x')).toBe(false);
      expect(await sso.resealSecret(t, 'v1.k.1', 'v1.k2.x')).toBe(true);
      expect(await sso.findConnection(t)).toEqual({ ...connectionOf(t, 'v1.k2.x') });
    });

    it(inAnotherTenant('re-seals nothing'), async () => {
      const { sso } = stores();
      if (!sso.resealSecret) return;
      const mine = (await seedUser()).tenantId;
      const other = (await seedUser()).tenantId;
      await sso.saveConnection(connectionOf(mine, 'v1.k.mine'));
      expect(await sso.resealSecret(other, 'v1.k.mine', 'v1.k.mallory')).toBe(false);
      expect((await sso.findConnection(mine))?.sealedSecret).toBe('v1.k.mine');
      expect(await sso.findConnection(other)).toBeNull();
    });
  });

  describe('outbox.listSealedPayloads / resealPayload (optional)', () => {
    it('pages through the messages that hold a payload by id, and re-seals only the value it was given', async () => {
      const { outbox } = stores();
      if (!outbox.listSealedPayloads || !outbox.resealPayload) return;
      const live = [outboxMessage(), outboxMessage(), outboxMessage()];
      const dead = outboxMessage();
      for (const m of [...live, dead]) await outbox.enqueue(m);
      await outbox.bury(dead.id, { at: at(1), error: 'gave up' });
      const pages = await allPages(outbox.listSealedPayloads.bind(outbox), (r) => r.id, 2);
      expect(pages.map((p) => p.length)).toEqual([2, 1]);
      expect(pages.flat()).toEqual(
        [...live]
          .sort((a, b) => (a.id < b.id ? -1 : 1))
          .map(({ id, template, to, payload }) => ({ id, template, to, payload })),
      );
      const m = live[0]!;
      expect(await outbox.resealPayload(m.id, 'stale', 'v1.k2.x')).toBe(false);
      expect(await outbox.resealPayload(m.id, m.payload, 'v1.k2.x')).toBe(true);
      expect(await outbox.resealPayload(dead.id, '', 'v1.k2.x')).toBe(false);
      const [claimed] = await outbox
        .claim({ now: at(0), limit: 10, leaseSeconds: 60 })
        .then((all) => all.filter((c) => c.id === m.id));
      expect(claimed).toEqual({ ...m, payload: 'v1.k2.x', attempts: 1, lockedUntil: at(60_000) });
    });
  });
}
