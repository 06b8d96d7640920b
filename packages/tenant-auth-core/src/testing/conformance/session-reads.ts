import { at, hex64, rotation, sessionFor } from '../fixtures.js';
import { type ConformanceContext, inAnotherTenant } from './context.js';

/** @internal Conformance cases of `sessions.create` and `sessions.findById`. */
export function sessionFindByIdCases({ test, stores, seedUser }: ConformanceContext): void {
  const { describe, it, expect } = test;
  const sessions = () => stores().sessions;

  describe('sessions.findById', () => {
    it('finds a session created in its tenant', async () => {
      const user = await seedUser();
      const s = sessionFor(user);
      await sessions().create(s);
      expect(await sessions().findById(user.tenantId, s.id)).toEqual(s);
    });

    it('keeps null device fields as null', async () => {
      const user = await seedUser();
      const s = sessionFor(user, { ipAddress: null, userAgent: null });
      await sessions().create(s);
      expect(await sessions().findById(user.tenantId, s.id)).toMatchObject({
        ipAddress: null,
        userAgent: null,
      });
    });

    it(inAnotherTenant('null'), async () => {
      const user = await seedUser();
      const other = await seedUser();
      const s = sessionFor(user);
      const bare = sessionFor(user, { ipAddress: null, userAgent: null });
      await sessions().create(s);
      await sessions().create(bare);
      expect(await sessions().findById(other.tenantId, s.id)).toBeNull();
      expect(await sessions().findById(other.tenantId, bare.id)).toBeNull();
    });
  });
}

/** @internal Conformance cases of `sessions.findByRefreshHash`. */
export function sessionFindByRefreshHashCases({ test, stores, seedUser }: ConformanceContext): void {
  const { describe, it, expect } = test;
  const sessions = () => stores().sessions;

  describe('sessions.findByRefreshHash', () => {
    it('finds a session by its refresh hash, with its user; nothing by an unknown hash', async () => {
      const user = await seedUser();
      const s = sessionFor(user);
      await sessions().create(s);
      expect(await sessions().findByRefreshHash(user.tenantId, s.refreshHash)).toEqual({ session: s, user });
      expect(await sessions().findByRefreshHash(user.tenantId, hex64())).toBeNull();
    });

    it('reads the user with the session as the user store has it now', async () => {
      const user = await seedUser();
      const s = sessionFor(user);
      await sessions().create(s);
      expect(await stores().users.setRole(user.tenantId, user.id, 'admin')).toBe(true);
      expect(await stores().users.markEmailVerified(user.tenantId, user.id)).toBe(true);
      const found = await sessions().findByRefreshHash(user.tenantId, s.refreshHash);
      expect(found?.user).toEqual({ ...user, role: 'admin', emailVerified: true });
      expect(found?.user).toEqual(await stores().users.findById(user.tenantId, user.id));
    });

    it('finds revoked and expired sessions too, as they are stored: the caller decides', async () => {
      const user = await seedUser();
      const revoked = sessionFor(user);
      const expired = sessionFor(user, { expiresAt: at(1000) });
      await sessions().create(revoked);
      await sessions().create(expired);
      expect(await sessions().revoke(user.tenantId, revoked.id, at(500))).toBe(true);
      expect((await sessions().findByRefreshHash(user.tenantId, revoked.refreshHash))?.session).toEqual({
        ...revoked,
        revokedAt: at(500),
      });
      expect((await sessions().findByRefreshHash(user.tenantId, expired.refreshHash))?.session).toEqual(
        expired,
      );
    });

    it('finds a session by the hash its last rotation replaced, and by no older one', async () => {
      const user = await seedUser();
      const s = sessionFor(user);
      await sessions().create(s);
      const g1 = rotation(20_000);
      const g2 = rotation(40_000);
      expect(await sessions().rotate(user.tenantId, s.id, s.refreshHash, g1)).toBe(true);
      expect(await sessions().rotate(user.tenantId, s.id, g1.refreshHash, g2)).toBe(true);
      expect((await sessions().findByRefreshHash(user.tenantId, g1.refreshHash))?.session.id).toBe(s.id);
      expect((await sessions().findByRefreshHash(user.tenantId, g2.refreshHash))?.session.id).toBe(s.id);
      // A token two rotations back is an ancestor: it finds nothing (core treats it as a replay).
      expect(await sessions().findByRefreshHash(user.tenantId, s.refreshHash)).toBeNull();
    });

    it(inAnotherTenant('null, also after the user store changed'), async () => {
      const user = await seedUser();
      const other = await seedUser();
      const s = sessionFor(user);
      await sessions().create(s);
      expect(await sessions().findByRefreshHash(other.tenantId, s.refreshHash)).toBeNull();
      expect(await stores().users.setRole(user.tenantId, user.id, 'admin')).toBe(true);
      expect(await sessions().findByRefreshHash(other.tenantId, s.refreshHash)).toBeNull();
    });

    it(inAnotherTenant('never read with a session, even one whose user id points there'), async () => {
      const user = await seedUser();
      const other = await seedUser();
      // A session of this tenant naming the other tenant's user: no store should ever write one, but the
      // user it reads with it must still be one of the session's tenant.
      const s = { ...sessionFor(user), userId: other.id };
      const created = await sessions()
        .create(s)
        .then(
          () => true,
          () => false,
        );
      if (!created) {
        // A store may refuse such a session; then it has none to read back.
        expect(await sessions().findByRefreshHash(user.tenantId, s.refreshHash)).toBeNull();
        return;
      }
      expect(await sessions().findByRefreshHash(user.tenantId, s.refreshHash)).toEqual({
        session: s,
        user: null,
      });
      expect(await sessions().findByRefreshHash(other.tenantId, s.refreshHash)).toBeNull();
    });
  });
}
