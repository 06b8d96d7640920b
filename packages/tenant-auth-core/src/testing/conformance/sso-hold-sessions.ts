import { randomUUID } from 'node:crypto';
import { at, memberOf, sessionFor } from '../fixtures.js';
import { type ConformanceContext, inAnotherTenant } from './context.js';

/**
 * @internal Conformance cases of the optional `sessions.revokeHeldBySso`: the active sessions SSO did not
 * make, of the non-owners whose address is in one of the domains, are revoked, and nothing else. A store
 * without it has nothing to check here (each case says so and stops).
 */
export function revokeHeldBySsoCases({ test, stores, seedUser }: ConformanceContext): void {
  const { describe, it, expect } = test;
  const sessions = () => stores().sessions;
  const domain = () => `d${randomUUID().slice(0, 8)}.example.com`;

  describe('sessions.revokeHeldBySso (optional)', () => {
    it('revokes the active non-SSO sessions of the non-owners in the domains, and counts them', async () => {
      const revokeHeld = sessions().revokeHeldBySso;
      if (!revokeHeld) return;
      const held = domain();
      const owner = await seedUser({ email: `owner-${randomUUID().slice(0, 8)}@${held}` });
      const member = memberOf(owner.tenantId, { email: `m-${randomUUID().slice(0, 8)}@${held}` });
      const admin = memberOf(owner.tenantId, {
        role: 'admin',
        email: `a-${randomUUID().slice(0, 8)}@${held}`,
      });
      const elsewhere = memberOf(owner.tenantId, { email: `e-${randomUUID().slice(0, 8)}@other-${held}` });
      const sub = memberOf(owner.tenantId, { email: `s-${randomUUID().slice(0, 8)}@sub.${held}` });
      for (const u of [member, admin, elsewhere, sub]) await stores().users.create(u);
      const pwd = sessionFor(member);
      const adminPwd = sessionFor(admin, { amr: ['pwd', 'otp', 'mfa'] });
      const sso = sessionFor(member, { amr: ['sso'] });
      const gone = sessionFor(member, { revokedAt: at(5) });
      const expired = sessionFor(member, { expiresAt: at(8) });
      const ownerSession = sessionFor(owner);
      const other = sessionFor(elsewhere);
      const subSession = sessionFor(sub);
      const all = [pwd, adminPwd, sso, gone, expired, ownerSession, other, subSession];
      for (const s of all) await sessions().create(s);

      expect(await revokeHeld.call(sessions(), owner.tenantId, [held], at(10))).toBe(2);
      const revokedAt = async (id: string) => (await sessions().findById(owner.tenantId, id))?.revokedAt;
      expect(await revokedAt(pwd.id)).toEqual(at(10));
      expect(await revokedAt(adminPwd.id)).toEqual(at(10));
      expect(await revokedAt(gone.id)).toEqual(at(5));
      for (const s of [sso, expired, ownerSession, other, subSession])
        expect(await revokedAt(s.id)).toBeNull();
      expect(await revokeHeld.call(sessions(), owner.tenantId, [], at(11))).toBe(0);
    });

    it(inAnotherTenant('revokes nothing'), async () => {
      const revokeHeld = sessions().revokeHeldBySso;
      if (!revokeHeld) return;
      const held = domain();
      const owner = await seedUser({ email: `owner-${randomUUID().slice(0, 8)}@${held}` });
      const other = await seedUser();
      const member = memberOf(owner.tenantId, { email: `m-${randomUUID().slice(0, 8)}@${held}` });
      await stores().users.create(member);
      const s = sessionFor(member);
      await sessions().create(s);
      expect(await revokeHeld.call(sessions(), other.tenantId, [held], at(10))).toBe(0);
      expect((await sessions().findById(owner.tenantId, s.id))?.revokedAt).toBeNull();
    });
  });
}
