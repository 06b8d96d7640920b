import { ManualClock } from '../clock.js';
import { createTenantAuth } from '../create-tenant-auth.js';
import { isTenantAuthError, type TenantAuthErrorCode } from '../errors.js';
import type { SessionRotation, SessionStore, TenantAuthStore } from '../stores/types.js';
import { hashRefreshToken } from '../tokens/token-service.js';
import type { User } from '../types.js';
import { at, hex64, sessionFor, T0, tenantAndOwner } from './fixtures.js';
import { resolveTestApi, type TestApi } from './test-api.js';

/** The stores under test, over empty storage. */
export interface ConformanceStores {
  tenantAuthStore: TenantAuthStore;
  sessionStore: SessionStore;
}

export interface StoreConformanceOptions {
  /** Shown in the test names, e.g. `'mikro-orm (PGlite)'`. */
  name: string;
  /** Called before every test: stores over EMPTY storage (truncate or recreate between tests). */
  createStores: () => Promise<ConformanceStores> | ConformanceStores;
  /** Called after every test. */
  destroyStores?: (stores: ConformanceStores) => Promise<void> | void;
  /** vitest's (or Jest's) `describe`, `it`, `expect`, `beforeEach`, `afterEach`; default: the globals. */
  test?: TestApi;
}

async function errorCode(promise: Promise<unknown>): Promise<TenantAuthErrorCode | 'resolved' | 'other'> {
  try {
    await promise;
    return 'resolved';
  } catch (err) {
    return isTenantAuthError(err) ? err.code : 'other';
  }
}

const rotation = (ms: number, refreshHash = hex64()): SessionRotation => ({
  refreshHash,
  refreshJti: `jti-${refreshHash.slice(0, 8)}`,
  refreshIssuedAt: at(ms),
  refreshExpiresAt: at(ms + 7 * 86_400_000),
  expiresAt: at(ms + 7 * 86_400_000),
  lastUsedAt: at(ms),
  rotatedAt: at(ms),
});

const PASSWORD = 'Tr1cky-Harbour-Lantern';

/**
 * Registers the store conformance suite with vitest. Every store implementation runs it: atomicity,
 * uniqueness, compare-and-set rotation under concurrency, tenant isolation of every read, cleanup, and
 * the refresh grace/replay rules end to end through `createTenantAuth` on the stores.
 *
 * @example
 * // my-store.test.ts
 * import { afterEach, beforeEach, describe, expect, it } from 'vitest';
 * import { runStoreConformance } from 'tenant-auth-core/testing';
 * runStoreConformance({
 *   name: 'my store',
 *   createStores: async () => ({ tenantAuthStore, sessionStore }),
 *   test: { describe, it, expect, beforeEach, afterEach },
 * });
 */
export function runStoreConformance(options: StoreConformanceOptions): void {
  const { describe, it, expect, beforeEach, afterEach } = resolveTestApi(options.test);
  describe(`store conformance: ${options.name}`, () => {
    let stores: ConformanceStores;
    let users: TenantAuthStore;
    let sessions: SessionStore;

    beforeEach(async () => {
      stores = await options.createStores();
      users = stores.tenantAuthStore;
      sessions = stores.sessionStore;
    });
    afterEach(async () => {
      await options.destroyStores?.(stores);
    });

    async function seedUser(overrides: { email?: string; slug?: string } = {}): Promise<User> {
      return (await users.createTenantWithOwner(tenantAndOwner(overrides))).user;
    }

    describe('tenants and users', () => {
      it('creates a tenant with its owner and finds both back', async () => {
        const input = tenantAndOwner({ email: 'ada@example.com', slug: 'analytical-engines' });
        const created = await users.createTenantWithOwner(input);
        expect(created).toEqual(input);
        expect(await users.findTenantById(input.tenant.id)).toEqual(input.tenant);
        expect(await users.findUserById(input.tenant.id, input.user.id)).toEqual(input.user);
        expect(await users.findUserByEmail('ada@example.com')).toEqual(input.user);
      });

      it('answers null for unknown ids and emails', async () => {
        await seedUser();
        const other = tenantAndOwner();
        expect(await users.findTenantById(other.tenant.id)).toBeNull();
        expect(await users.findUserById(other.tenant.id, other.user.id)).toBeNull();
        expect(await users.findUserByEmail('nobody@example.com')).toBeNull();
      });

      it('never finds a user through another tenant', async () => {
        const a = await seedUser();
        const b = await seedUser();
        expect(await users.findUserById(b.tenantId, a.id)).toBeNull();
        expect(await users.findUserById(a.tenantId, b.id)).toBeNull();
      });

      it('refuses a taken email with email_taken and leaves no orphan tenant', async () => {
        await seedUser({ email: 'ada@example.com' });
        const dup = tenantAndOwner({ email: 'ada@example.com' });
        expect(await errorCode(users.createTenantWithOwner(dup))).toBe('email_taken');
        expect(await users.findTenantById(dup.tenant.id)).toBeNull();
      });

      it('refuses a taken slug with slug_taken and leaves no user behind', async () => {
        await seedUser({ slug: 'acme' });
        const dup = tenantAndOwner({ slug: 'acme', email: 'new@example.com' });
        expect(await errorCode(users.createTenantWithOwner(dup))).toBe('slug_taken');
        expect(await users.findUserByEmail('new@example.com')).toBeNull();
        expect(await users.findTenantById(dup.tenant.id)).toBeNull();
      });

      it('lets exactly one of 20 concurrent registrations of one email win, leaving no orphan tenant', async () => {
        const attempts = Array.from({ length: 20 }, () => tenantAndOwner({ email: 'race@example.com' }));
        const results = await Promise.all(attempts.map((a) => errorCode(users.createTenantWithOwner(a))));
        expect(results.filter((r) => r === 'resolved')).toHaveLength(1);
        expect(results.filter((r) => r === 'email_taken')).toHaveLength(19);
        const winner = attempts[results.indexOf('resolved')]!;
        expect(await users.findUserByEmail('race@example.com')).toEqual(winner.user);
        const tenants = await Promise.all(attempts.map((a) => users.findTenantById(a.tenant.id)));
        expect(tenants.filter((t) => t !== null)).toHaveLength(1);
      });
    });

    describe('sessions', () => {
      it('creates a session and finds it by id and by refresh hash, only in its tenant', async () => {
        const user = await seedUser();
        const other = await seedUser();
        const s = sessionFor(user);
        expect(await sessions.create(s)).toEqual(s);
        expect(await sessions.findById(user.tenantId, s.id)).toEqual(s);
        expect(await sessions.findByRefreshHash(user.tenantId, s.refreshHash)).toEqual(s);
        expect(await sessions.findById(other.tenantId, s.id)).toBeNull();
        expect(await sessions.findByRefreshHash(other.tenantId, s.refreshHash)).toBeNull();
        expect(await sessions.findByRefreshHash(user.tenantId, hex64())).toBeNull();
      });

      it('keeps null device fields as null', async () => {
        const user = await seedUser();
        const s = sessionFor(user, { ipAddress: null, userAgent: null });
        await sessions.create(s);
        expect(await sessions.findById(user.tenantId, s.id)).toMatchObject({
          ipAddress: null,
          userAgent: null,
        });
      });

      it('rotates by compare-and-set: the old hash becomes the previous one and still finds the session', async () => {
        const user = await seedUser();
        const s = sessionFor(user);
        await sessions.create(s);
        const next = rotation(60_000);
        expect(await sessions.rotate(user.tenantId, s.id, s.refreshHash, next)).toBe(true);
        const after = await sessions.findById(user.tenantId, s.id);
        expect(after).toEqual({ ...s, ...next, previousRefreshHash: s.refreshHash });
        expect((await sessions.findByRefreshHash(user.tenantId, s.refreshHash))?.id).toBe(s.id);
        expect((await sessions.findByRefreshHash(user.tenantId, next.refreshHash))?.id).toBe(s.id);
        expect(await sessions.rotate(user.tenantId, s.id, s.refreshHash, rotation(61_000))).toBe(false);
      });

      it('lets exactly one of 50 concurrent rotations with the same hash win', async () => {
        const user = await seedUser();
        const s = sessionFor(user);
        await sessions.create(s);
        const candidates = Array.from({ length: 50 }, () => rotation(60_000));
        const won = await Promise.all(
          candidates.map((c) => sessions.rotate(user.tenantId, s.id, s.refreshHash, c)),
        );
        expect(won.filter(Boolean)).toHaveLength(1);
        const winner = candidates[won.indexOf(true)]!;
        const after = await sessions.findById(user.tenantId, s.id);
        expect(after?.refreshHash).toBe(winner.refreshHash);
        expect(after?.previousRefreshHash).toBe(s.refreshHash);
      });

      it('does not rotate a revoked session, nor one of another tenant', async () => {
        const user = await seedUser();
        const other = await seedUser();
        const s = sessionFor(user);
        await sessions.create(s);
        expect(await sessions.rotate(other.tenantId, s.id, s.refreshHash, rotation(1000))).toBe(false);
        expect(await sessions.revoke(user.tenantId, s.id, at(500))).toBe(true);
        expect(await sessions.rotate(user.tenantId, s.id, s.refreshHash, rotation(1000))).toBe(false);
        expect((await sessions.findById(user.tenantId, s.id))?.refreshHash).toBe(s.refreshHash);
      });

      it('revokes one session only for its owner and only in its tenant', async () => {
        const user = await seedUser();
        const intruder = await seedUser();
        const s = sessionFor(user);
        await sessions.create(s);
        expect(await sessions.revoke(user.tenantId, s.id, at(1000), { userId: intruder.id })).toBe(false);
        expect(await sessions.revoke(intruder.tenantId, s.id, at(1000))).toBe(false);
        expect((await sessions.findById(user.tenantId, s.id))?.revokedAt).toBeNull();
        expect(await sessions.revoke(user.tenantId, s.id, at(1000), { userId: user.id })).toBe(true);
        expect((await sessions.findById(user.tenantId, s.id))?.revokedAt).toEqual(at(1000));
        expect(await sessions.revoke(user.tenantId, s.id, at(2000), { userId: user.id })).toBe(false);
        expect((await sessions.findById(user.tenantId, s.id))?.revokedAt).toEqual(at(1000));
      });

      it("revokes all of a user's sessions, optionally but one, and nobody else's", async () => {
        const user = await seedUser();
        const neighbour = await seedUser();
        const mine = [sessionFor(user), sessionFor(user), sessionFor(user)];
        const theirs = sessionFor(neighbour);
        for (const s of [...mine, theirs]) await sessions.create(s);
        expect(
          await sessions.revokeAllForUser(user.tenantId, user.id, at(1000), { exceptSessionId: mine[0]!.id }),
        ).toBe(2);
        expect((await sessions.listActiveForUser(user.tenantId, user.id, at(2000))).map((s) => s.id)).toEqual(
          [mine[0]!.id],
        );
        expect(await sessions.revokeAllForUser(user.tenantId, user.id, at(3000))).toBe(1);
        expect(await sessions.revokeAllForUser(user.tenantId, user.id, at(4000))).toBe(0);
        expect(await sessions.revokeAllForUser(neighbour.tenantId, user.id, at(4000))).toBe(0);
        expect((await sessions.findById(neighbour.tenantId, theirs.id))?.revokedAt).toBeNull();
      });

      it("lists only the user's active sessions, newest first", async () => {
        const user = await seedUser();
        const neighbour = await seedUser();
        const older = sessionFor(user, { createdAt: at(0) });
        const newer = sessionFor(user, { createdAt: at(60_000) });
        const revoked = sessionFor(user, { revokedAt: at(1000) });
        const expired = sessionFor(user, { expiresAt: at(5000) });
        const theirs = sessionFor(neighbour);
        for (const s of [older, newer, revoked, expired, theirs]) await sessions.create(s);
        const listed = await sessions.listActiveForUser(user.tenantId, user.id, at(10_000));
        expect(listed.map((s) => s.id)).toEqual([newer.id, older.id]);
        expect(listed[0]).toEqual(newer);
        expect(await sessions.listActiveForUser(neighbour.tenantId, user.id, at(10_000))).toEqual([]);
      });

      it('deletes exactly the expired sessions and those revoked before retention, in bounded batches', async () => {
        const user = await seedUser();
        const keepActive = sessionFor(user, { expiresAt: at(100_000) });
        const keepRecentlyRevoked = sessionFor(user, { revokedAt: at(90_000) });
        const doomed = [
          sessionFor(user, { expiresAt: at(1000) }),
          sessionFor(user, { expiresAt: at(2000) }),
          sessionFor(user, { expiresAt: at(3000) }),
          sessionFor(user, { revokedAt: at(4000) }),
          sessionFor(user, { revokedAt: at(5000), expiresAt: at(6000) }),
        ];
        for (const s of [keepActive, keepRecentlyRevoked, ...doomed]) await sessions.create(s);
        const opts = { expiredBefore: at(50_000), revokedBefore: at(50_000), batchSize: 2 };
        expect(await sessions.deleteExpired(opts)).toBe(2);
        expect(await sessions.deleteExpired(opts)).toBe(2);
        expect(await sessions.deleteExpired(opts)).toBe(1);
        expect(await sessions.deleteExpired(opts)).toBe(0);
        for (const s of doomed) expect(await sessions.findById(user.tenantId, s.id)).toBeNull();
        expect(await sessions.findById(user.tenantId, keepActive.id)).not.toBeNull();
        expect(await sessions.findById(user.tenantId, keepRecentlyRevoked.id)).not.toBeNull();
      });
    });

    describe('refresh rotation through createTenantAuth', () => {
      function service(grace = 10) {
        const clock = new ManualClock(T0);
        const auth = createTenantAuth({
          store: users,
          sessionStore: sessions,
          accessToken: { secret: 'conformance-access-secret-0123456789' },
          refreshSecret: 'conformance-refresh-secret-0123456789',
          refreshReuseGraceSeconds: grace,
          passwordHashing: { cost: 4 },
          clock,
        });
        return { auth, clock };
      }

      it('gives every racing refresh within the grace period the identical new token, rotating once', async () => {
        const { auth, clock } = service();
        const first = await auth.register({ email: 'race@example.com', password: PASSWORD });
        clock.advance(60_000);
        const results = await Promise.all(Array.from({ length: 20 }, () => auth.refresh(first.refreshToken)));
        const children = new Set(results.map((r) => r.refreshToken));
        expect(children.size).toBe(1);
        const [child] = children;
        expect(child).not.toBe(first.refreshToken);
        const stored = await sessions.findById(first.user.tenantId, first.session.id);
        expect(stored?.refreshHash).toBe(hashRefreshToken(child!));
        expect(stored?.previousRefreshHash).toBe(hashRefreshToken(first.refreshToken));
        clock.advance(9_000);
        expect((await auth.refresh(first.refreshToken)).refreshToken).toBe(child);
        expect((await auth.refresh(child!)).refreshToken).not.toBe(child);
      });

      it('treats the previous token after the grace period as a replay and revokes the session', async () => {
        const { auth, clock } = service();
        const first = await auth.register({ email: 'replay@example.com', password: PASSWORD });
        const second = await auth.refresh(first.refreshToken);
        clock.advance(10_001);
        expect(await errorCode(auth.refresh(first.refreshToken))).toBe('invalid_token');
        expect((await sessions.findById(first.user.tenantId, first.session.id))?.revokedAt).not.toBeNull();
        expect(await errorCode(auth.refresh(second.refreshToken))).toBe('invalid_token');
      });

      it('treats any older ancestor as a replay, even within the grace period of a later rotation', async () => {
        const { auth, clock } = service();
        const g0 = await auth.register({ email: 'ancestor@example.com', password: PASSWORD });
        clock.advance(20_000);
        const g1 = await auth.refresh(g0.refreshToken);
        clock.advance(20_000);
        const g2 = await auth.refresh(g1.refreshToken);
        clock.advance(1_000);
        expect(await errorCode(auth.refresh(g0.refreshToken))).toBe('invalid_token');
        expect(await errorCode(auth.refresh(g2.refreshToken))).toBe('invalid_token');
        expect(await auth.listSessions(await auth.verifyAccessToken(g2.accessToken))).toEqual([]);
      });

      it('with a grace period of 0, any reuse of the previous token is a replay', async () => {
        const { auth } = service(0);
        const first = await auth.register({ email: 'nograce@example.com', password: PASSWORD });
        const second = await auth.refresh(first.refreshToken);
        expect(await errorCode(auth.refresh(first.refreshToken))).toBe('invalid_token');
        expect(await errorCode(auth.refresh(second.refreshToken))).toBe('invalid_token');
      });

      it('stops refreshes after logout and after revoking the session', async () => {
        const { auth } = service();
        const a = await auth.register({ email: 'logout@example.com', password: PASSWORD });
        await auth.logout(a.accessToken);
        expect(await errorCode(auth.refresh(a.refreshToken))).toBe('invalid_token');
        const b = await auth.login({ email: 'logout@example.com', password: PASSWORD });
        const c = await auth.login({ email: 'logout@example.com', password: PASSWORD });
        await auth.revokeSession(await auth.verifyAccessToken(c.accessToken), b.session.id);
        expect(await errorCode(auth.refresh(b.refreshToken))).toBe('invalid_token');
        expect(await errorCode(auth.refresh(c.refreshToken))).toBe('resolved');
      });

      it("cannot revoke or see another user's session, nor another tenant", async () => {
        const { auth } = service();
        const alice = await auth.register({
          email: 'alice@example.com',
          password: PASSWORD,
          tenantName: 'Alice Co',
        });
        const bob = await auth.register({
          email: 'bob@example.com',
          password: PASSWORD,
          tenantName: 'Bob Co',
        });
        const bobClaims = await auth.verifyAccessToken(bob.accessToken);
        expect(await errorCode(auth.revokeSession(bobClaims, alice.session.id))).toBe('not_found');
        expect(await errorCode(auth.refresh(alice.refreshToken))).toBe('resolved');
        expect((await auth.listSessions(bobClaims)).map((s) => s.id)).toEqual([bob.session.id]);
        expect(await errorCode(auth.getTenant(bobClaims, alice.tenant.id))).toBe('not_found');
        expect((await auth.getMyTenant(bobClaims)).id).toBe(bob.tenant.id);
      });
    });
  });
}
