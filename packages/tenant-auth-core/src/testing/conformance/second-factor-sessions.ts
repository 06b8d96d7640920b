import { randomUUID } from 'node:crypto';
import { at, auditEvent, rotation, sessionFor } from '../fixtures.js';
import { type ConformanceContext, inAnotherTenant } from './context.js';

/** @internal Conformance cases of `sessions.reauthenticate`. */
export function reauthenticateCases({ test, stores, seedUser }: ConformanceContext): void {
  const { describe, it, expect } = test;
  const sessions = () => stores().sessions;

  describe('sessions.reauthenticate', () => {
    it('rotates the active session and sets amr and authTime, with the event, atomically', async () => {
      const u = await seedUser();
      const s = sessionFor(u);
      await sessions().create(s);
      const next = {
        ...rotation(60_000),
        amr: ['pwd' as const, 'otp' as const, 'mfa' as const],
        authTime: at(60_000),
      };
      const event = auditEvent(u.tenantId, { type: 'login_succeeded', sessionId: s.id, at: at(60_000) });
      const done = await sessions().reauthenticate(u.tenantId, s.id, u.id, next, event);
      const expected = { ...s, ...next, previousRefreshHash: s.refreshHash };
      expect(done).toEqual(expected);
      expect(await sessions().findById(u.tenantId, s.id)).toEqual(expected);
      expect(await stores().auditEvents.list(u.tenantId, { limit: 10 })).toEqual([event]);
    });

    it('changes nothing for a revoked or expired session, or another user', async () => {
      const u = await seedUser();
      const revoked = sessionFor(u, { revokedAt: at(1) });
      const expired = sessionFor(u, { expiresAt: at(1000) });
      const mine = sessionFor(u);
      for (const s of [revoked, expired, mine]) await sessions().create(s);
      const next = () => ({ ...rotation(60_000), amr: ['pwd' as const], authTime: at(60_000) });
      expect(await sessions().reauthenticate(u.tenantId, revoked.id, u.id, next())).toBeNull();
      expect(await sessions().reauthenticate(u.tenantId, expired.id, u.id, next())).toBeNull();
      expect(await sessions().reauthenticate(u.tenantId, mine.id, randomUUID(), next())).toBeNull();
      expect(await sessions().findById(u.tenantId, mine.id)).toEqual(mine);
    });

    it(inAnotherTenant('changes nothing'), async () => {
      const u = await seedUser();
      const other = await seedUser();
      const s = sessionFor(u);
      await sessions().create(s);
      const event = auditEvent(other.tenantId, { type: 'login_succeeded' });
      const next = { ...rotation(60_000), amr: ['pwd' as const, 'mfa' as const], authTime: at(60_000) };
      expect(await sessions().reauthenticate(other.tenantId, s.id, u.id, next, event)).toBeNull();
      expect(await sessions().findById(u.tenantId, s.id)).toEqual(s);
      expect(await stores().auditEvents.list(other.tenantId, { limit: 10 })).toEqual([]);
    });
  });

  describe('sessions.revokeWithoutStrongAuth', () => {
    it('revokes the sessions of the tenant with neither mfa nor sso, and counts them', async () => {
      const u = await seedUser();
      const pwd = sessionFor(u);
      const mfa = sessionFor(u, { amr: ['pwd', 'otp', 'mfa'] });
      const sso = sessionFor(u, { amr: ['sso'] });
      const gone = sessionFor(u, { revokedAt: at(5) });
      for (const s of [pwd, mfa, sso, gone]) await sessions().create(s);
      expect(await sessions().revokeWithoutStrongAuth(u.tenantId, at(10))).toBe(1);
      expect((await sessions().findById(u.tenantId, pwd.id))?.revokedAt).toEqual(at(10));
      expect((await sessions().findById(u.tenantId, mfa.id))?.revokedAt).toBeNull();
      expect((await sessions().findById(u.tenantId, sso.id))?.revokedAt).toBeNull();
      expect((await sessions().findById(u.tenantId, gone.id))?.revokedAt).toEqual(at(5));
    });

    it(inAnotherTenant('revokes nothing'), async () => {
      const u = await seedUser();
      const other = await seedUser();
      const s = sessionFor(u);
      await sessions().create(s);
      expect(await sessions().revokeWithoutStrongAuth(other.tenantId, at(10))).toBe(0);
      expect((await sessions().findById(u.tenantId, s.id))?.revokedAt).toBeNull();
    });
  });
}

/** @internal Conformance cases of `tenants.setRequireMfa`. */
export function requireMfaCases({ test, stores, seedUser }: ConformanceContext): void {
  const { describe, it, expect } = test;

  describe('tenants.setRequireMfa', () => {
    it('sets and clears the policy of that tenant only', async () => {
      const u = await seedUser();
      const other = await seedUser();
      expect((await stores().tenants.findById(u.tenantId))?.requireMfa).toBe(false);
      expect(await stores().tenants.setRequireMfa(u.tenantId, true)).toBe(true);
      expect((await stores().tenants.findById(u.tenantId))?.requireMfa).toBe(true);
      expect((await stores().tenants.findById(other.tenantId))?.requireMfa).toBe(false);
      expect(await stores().tenants.setRequireMfa(u.tenantId, false)).toBe(true);
      expect((await stores().tenants.findById(u.tenantId))?.requireMfa).toBe(false);
      expect(await stores().tenants.setRequireMfa(randomUUID(), true)).toBe(false);
    });

    it(inAnotherTenant('changes nothing: the policy is set on the named tenant only'), async () => {
      const u = await seedUser();
      const other = await seedUser();
      await stores().tenants.setRequireMfa(other.tenantId, true);
      expect((await stores().tenants.findById(u.tenantId))?.requireMfa).toBe(false);
    });
  });
}
