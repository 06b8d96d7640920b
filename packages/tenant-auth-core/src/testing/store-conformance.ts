import { createTenantAuth } from '../create-tenant-auth.js';
import type { User } from '../records.js';
import type { SessionRotation, SessionStore, TenantAuthStores } from '../stores/tenant-auth-stores.js';
import { hashRefreshToken } from '../tokens/token-service.js';
import { auditEventCases } from './conformance/audit-events.js';
import { type ConformanceContext, errorCode, Rollback } from './conformance/context.js';
import { listLimitCases } from './conformance/list-limits.js';
import { memberCases } from './conformance/members.js';
import { oneTimeTokenCases } from './conformance/one-time-tokens.js';
import { outboxCases } from './conformance/outbox.js';
import { rotateCurrentCases } from './conformance/rotate-current.js';
import { at, hex64, sessionFor, T0, tenantAndOwner } from './fixtures.js';
import { ManualClock } from './manual-clock.js';
import { resolveTestApi, type TestApi } from './test-api.js';

/**
 * Options of `runStoreConformance`.
 *
 * @example
 * const options: StoreConformanceOptions = { name: 'my store', createStores: () => createMyStores(db) };
 */
export interface StoreConformanceOptions {
  /** Shown in the test names, e.g. `'mikro-orm (PGlite)'`. */
  name: string;
  /** Called before every test: stores over EMPTY storage (truncate or recreate between tests). */
  createStores: () => Promise<TenantAuthStores> | TenantAuthStores;
  /** Called after every test. */
  destroyStores?: (stores: TenantAuthStores) => Promise<void> | void;
  /** vitest's (or Jest's) `describe`, `it`, `expect`, `beforeEach`, `afterEach`; default: the globals. */
  test?: TestApi;
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
 * Registers the store conformance suite. Every implementation of `TenantAuthStores` runs it: transactions
 * (all or nothing, serialised where it matters), uniqueness, compare-and-set rotation under concurrency,
 * tenant isolation of every read and write (each test has an "other tenant cannot see it" case), cleanup,
 * and the refresh grace/replay rules end to end through `createTenantAuth` on the stores.
 *
 * @example
 * // my-stores.test.ts
 * import { afterEach, beforeEach, describe, expect, it } from 'vitest';
 * import { runStoreConformance } from 'tenant-auth-core/testing';
 * runStoreConformance({
 *   name: 'my stores',
 *   createStores: async () => createMyStores(await freshDatabase()),
 *   test: { describe, it, expect, beforeEach, afterEach },
 * });
 */
export function runStoreConformance(options: StoreConformanceOptions): void {
  const { describe, it, expect, beforeEach, afterEach } = resolveTestApi(options.test);
  describe(`store conformance: ${options.name}`, () => {
    let stores: TenantAuthStores;
    let sessions: SessionStore;

    beforeEach(async () => {
      stores = await options.createStores();
      sessions = stores.sessions;
    });
    afterEach(async () => {
      await options.destroyStores?.(stores);
    });

    async function seed(input: ReturnType<typeof tenantAndOwner>): Promise<void> {
      await stores.transaction(async (tx) => {
        await tx.tenants.create(input.tenant);
        await tx.users.create(input.user);
      });
    }

    async function seedUser(overrides: { email?: string; slug?: string } = {}): Promise<User> {
      const input = tenantAndOwner(overrides);
      await seed(input);
      return input.user;
    }

    describe('tenants and users', () => {
      it('creates a tenant and its owner and finds both back, never through another tenant', async () => {
        const input = tenantAndOwner({ email: 'ada@example.com', slug: 'analytical-engines' });
        await seed(input);
        const other = await seedUser();
        expect(await stores.tenants.findById(input.tenant.id)).toEqual(input.tenant);
        expect(await stores.users.findById(input.tenant.id, input.user.id)).toEqual(input.user);
        expect(await stores.users.findByEmail('ada@example.com')).toEqual(input.user);
        expect(await stores.users.findById(other.tenantId, input.user.id)).toBeNull();
        expect(await stores.users.findById(input.tenant.id, other.id)).toBeNull();
      });

      it('answers null for unknown ids and emails, and for ids that are not UUIDs', async () => {
        await seedUser();
        const unknown = tenantAndOwner();
        expect(await stores.tenants.findById(unknown.tenant.id)).toBeNull();
        expect(await stores.users.findById(unknown.tenant.id, unknown.user.id)).toBeNull();
        expect(await stores.users.findByEmail('nobody@example.com')).toBeNull();
        expect(await stores.tenants.findById('not-a-uuid')).toBeNull();
        expect(await stores.users.findById('not-a-uuid', 'nor-this')).toBeNull();
      });

      it('refuses a taken email with email_taken, whatever the tenant, and keeps the first user', async () => {
        const first = await seedUser({ email: 'ada@example.com' });
        const dup = tenantAndOwner({ email: 'ada@example.com' });
        await stores.tenants.create(dup.tenant);
        expect(await errorCode(stores.users.create(dup.user))).toBe('email_taken');
        expect(await stores.users.findByEmail('ada@example.com')).toEqual(first);
        expect(await stores.users.findById(dup.tenant.id, dup.user.id)).toBeNull();
      });

      it('replaces a password hash only for the user of that tenant', async () => {
        const user = await seedUser();
        const other = await seedUser();
        expect(await stores.users.setPasswordHash(other.tenantId, user.id, '$2b$04$other')).toBe(false);
        expect((await stores.users.findById(user.tenantId, user.id))?.passwordHash).toBe(user.passwordHash);
        expect(await stores.users.setPasswordHash(user.tenantId, user.id, '$2b$04$new')).toBe(true);
        expect((await stores.users.findById(user.tenantId, user.id))?.passwordHash).toBe('$2b$04$new');
        expect((await stores.users.findById(other.tenantId, other.id))?.passwordHash).toBe(
          other.passwordHash,
        );
      });

      it('compares emails as given: no second folding of case or Unicode', async () => {
        await seedUser({ email: 'kelvin@example.com' });
        expect(await stores.users.findByEmail('\u212Aelvin@example.com')).toBeNull();
        expect(await stores.users.findByEmail('KELVIN@example.com')).toBeNull();
      });

      it('refuses a taken slug with slug_taken', async () => {
        const first = await seedUser({ slug: 'acme' });
        const dup = tenantAndOwner({ slug: 'acme' });
        expect(await errorCode(stores.tenants.create(dup.tenant))).toBe('slug_taken');
        expect(await stores.tenants.findById(dup.tenant.id)).toBeNull();
        expect((await stores.tenants.findById(first.tenantId))?.slug).toBe('acme');
      });
    });

    describe('transactions', () => {
      it('commit every write together', async () => {
        const input = tenantAndOwner();
        const s = sessionFor(input.user);
        const result = await stores.transaction(async (tx) => {
          await tx.tenants.create(input.tenant);
          await tx.users.create(input.user);
          await tx.sessions.create(s);
          // A transaction reads its own writes.
          expect(await tx.users.findById(input.tenant.id, input.user.id)).toEqual(input.user);
          return 'done';
        });
        expect(result).toBe('done');
        expect(await stores.tenants.findById(input.tenant.id)).toEqual(input.tenant);
        expect(await sessions.findById(input.tenant.id, s.id)).toEqual(s);
      });

      it('roll back every write when the function throws, and rethrow its error', async () => {
        const input = tenantAndOwner();
        const s = sessionFor(input.user);
        const failure = new Rollback('stop');
        await expect(
          stores.transaction(async (tx) => {
            await tx.tenants.create(input.tenant);
            await tx.users.create(input.user);
            await tx.sessions.create(s);
            throw failure;
          }),
        ).rejects.toBe(failure);
        expect(await stores.tenants.findById(input.tenant.id)).toBeNull();
        expect(await stores.users.findByEmail(input.user.email)).toBeNull();
        expect(await sessions.findById(input.tenant.id, s.id)).toBeNull();
      });

      it('roll back the tenant when its owner cannot be created (email taken): no orphan tenant', async () => {
        await seedUser({ email: 'taken@example.com' });
        const dup = tenantAndOwner({ email: 'taken@example.com' });
        const code = await errorCode(
          stores.transaction(async (tx) => {
            await tx.tenants.create(dup.tenant);
            await tx.users.create(dup.user);
          }),
        );
        expect(code).toBe('email_taken');
        expect(await stores.tenants.findById(dup.tenant.id)).toBeNull();
      });

      it('roll back revocations and rotations too', async () => {
        const user = await seedUser();
        const other = await seedUser();
        const s = sessionFor(user);
        const theirs = sessionFor(other);
        await sessions.create(s);
        await sessions.create(theirs);
        await expect(
          stores.transaction(async (tx) => {
            expect(await tx.sessions.rotate(user.tenantId, s.id, s.refreshHash, rotation(1000))).toBe(true);
            expect(await tx.sessions.revokeAllForUser(other.tenantId, other.id, at(2000))).toBe(1);
            throw new Rollback('stop');
          }),
        ).rejects.toBeInstanceOf(Rollback);
        expect(await sessions.findById(user.tenantId, s.id)).toEqual(s);
        expect(await sessions.findById(other.tenantId, theirs.id)).toEqual(theirs);
      });

      it('let exactly one of 20 concurrent registrations of one email win, leaving no orphan tenant', async () => {
        const attempts = Array.from({ length: 20 }, () => tenantAndOwner({ email: 'race@example.com' }));
        const results = await Promise.all(attempts.map((a) => errorCode(seed(a))));
        expect(results.filter((r) => r === 'resolved')).toHaveLength(1);
        expect(results.filter((r) => r === 'email_taken')).toHaveLength(19);
        const winner = attempts[results.indexOf('resolved')]!;
        expect(await stores.users.findByEmail('race@example.com')).toEqual(winner.user);
        const tenants = await Promise.all(attempts.map((a) => stores.tenants.findById(a.tenant.id)));
        expect(tenants.filter((t) => t !== null)).toHaveLength(1);
      });
    });

    describe('sessions', () => {
      it('creates a session and finds it by id and by refresh hash, only in its tenant', async () => {
        const user = await seedUser();
        const other = await seedUser();
        const s = sessionFor(user);
        await sessions.create(s);
        expect(await sessions.findById(user.tenantId, s.id)).toEqual(s);
        expect(await sessions.findByRefreshHash(user.tenantId, s.refreshHash)).toEqual({ session: s, user });
        expect(await sessions.findById(other.tenantId, s.id)).toBeNull();
        expect(await sessions.findByRefreshHash(other.tenantId, s.refreshHash)).toBeNull();
        expect(await sessions.findByRefreshHash(user.tenantId, hex64())).toBeNull();
      });

      it('reads the user with the session by refresh hash as the user store has it now, only in its tenant', async () => {
        const user = await seedUser();
        const other = await seedUser();
        const s = sessionFor(user);
        await sessions.create(s);
        expect(await stores.users.setRole(user.tenantId, user.id, 'admin')).toBe(true);
        expect(await stores.users.markEmailVerified(user.tenantId, user.id)).toBe(true);
        const found = await sessions.findByRefreshHash(user.tenantId, s.refreshHash);
        expect(found?.user).toEqual({ ...user, role: 'admin', emailVerified: true });
        expect(found?.user).toEqual(await stores.users.findById(user.tenantId, user.id));
        expect(await sessions.findByRefreshHash(other.tenantId, s.refreshHash)).toBeNull();
      });

      it('never reads a user of another tenant with a session, even one whose user id points there', async () => {
        const user = await seedUser();
        const other = await seedUser();
        // A session of this tenant naming the other tenant's user: no store should ever write one, but the
        // user it reads with it must still be one of the session's tenant.
        const s = { ...sessionFor(user), userId: other.id };
        const created = await sessions.create(s).then(
          () => true,
          () => false,
        );
        if (!created) {
          // A store may refuse such a session; then it has none to read back.
          expect(await sessions.findByRefreshHash(user.tenantId, s.refreshHash)).toBeNull();
          return;
        }
        expect(await sessions.findByRefreshHash(user.tenantId, s.refreshHash)).toEqual({
          session: s,
          user: null,
        });
        expect(await sessions.findByRefreshHash(other.tenantId, s.refreshHash)).toBeNull();
      });

      it('keeps null device fields as null', async () => {
        const user = await seedUser();
        const other = await seedUser();
        const s = sessionFor(user, { ipAddress: null, userAgent: null });
        await sessions.create(s);
        expect(await sessions.findById(user.tenantId, s.id)).toMatchObject({
          ipAddress: null,
          userAgent: null,
        });
        expect(await sessions.findById(other.tenantId, s.id)).toBeNull();
      });

      it('rotates by compare-and-set: the old hash becomes the previous one and still finds the session', async () => {
        const user = await seedUser();
        const s = sessionFor(user);
        await sessions.create(s);
        const next = rotation(60_000);
        expect(await sessions.rotate(user.tenantId, s.id, s.refreshHash, next)).toBe(true);
        const after = await sessions.findById(user.tenantId, s.id);
        expect(after).toEqual({ ...s, ...next, previousRefreshHash: s.refreshHash });
        expect((await sessions.findByRefreshHash(user.tenantId, s.refreshHash))?.session.id).toBe(s.id);
        expect((await sessions.findByRefreshHash(user.tenantId, next.refreshHash))?.session.id).toBe(s.id);
        expect(await sessions.rotate(user.tenantId, s.id, s.refreshHash, rotation(61_000))).toBe(false);
        const other = await seedUser();
        expect(await sessions.findByRefreshHash(other.tenantId, next.refreshHash)).toBeNull();
        expect(await sessions.findByRefreshHash(other.tenantId, s.refreshHash)).toBeNull();
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
        const other = await seedUser();
        expect(await sessions.findByRefreshHash(other.tenantId, winner.refreshHash)).toBeNull();
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
        const other = await seedUser();
        const keepOthers = sessionFor(other, { expiresAt: at(100_000) });
        await sessions.create(keepOthers);
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
        expect(await sessions.findById(other.tenantId, keepOthers.id)).toEqual(keepOthers);
      });
    });

    describe('refresh rotation through createTenantAuth', () => {
      function service(grace = 10) {
        const clock = new ManualClock(T0);
        const auth = createTenantAuth({
          stores,
          accessToken: { secret: 'conformance-access-secret-0123456789' },
          refreshSecret: 'conformance-refresh-secret-0123456789',
          refreshReuseGraceSeconds: grace,
          passwordHashing: { cost: 4 },
          rateLimit: false,
          logger: { error() {}, warn() {}, info() {} },
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

    const context: ConformanceContext = {
      test: { describe, it, expect, beforeEach, afterEach },
      stores: () => stores,
      seedUser,
    };
    rotateCurrentCases(context);
    memberCases(context);
    oneTimeTokenCases(context);
    outboxCases(context);
    auditEventCases(context);
    listLimitCases(context);
  });
}
