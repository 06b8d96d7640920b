import { randomBytes } from 'node:crypto';
import type { SessionRecord, SessionRotation, SessionStore, UserRecord } from '../../store-kit.js';
import { uuidv7 } from '../../store-kit.js';
import { at, auditEvent, hex64, memberOf, sessionFor } from '../fixtures.js';
import { type ConformanceContext, inAnotherTenant } from './context.js';

const DAY = 86_400_000;

/** A rotation at `ms`, sliding 7 days. */
const rotationAt = (ms: number): SessionRotation => ({
  refreshHash: hex64(),
  refreshJti: `jti-${ms}`,
  refreshIssuedAt: at(ms),
  refreshExpiresAt: at(ms + 7 * DAY),
  expiresAt: at(ms + 7 * DAY),
  lastUsedAt: at(ms),
  rotatedAt: at(ms),
});

/** The store's `rotateCurrent` and what its cases build their calls from. */
function helpersOf({ stores }: ConformanceContext) {
  const sessions = (): SessionStore => stores().sessions;
  /** The store's rotateCurrent, or undefined when it has none. */
  const rotateCurrent = () => {
    const store = sessions();
    return store.rotateCurrent?.bind(store);
  };
  const expected = (
    s: SessionRecord,
    overrides: Partial<{ userId: string; refreshHash: string; ms: number }> = {},
  ) => ({
    sessionId: s.id,
    userId: overrides.userId ?? s.userId,
    refreshHash: overrides.refreshHash ?? s.refreshHash,
    activeAt: at(overrides.ms ?? 60_000),
  });
  const refreshedEvent = (user: UserRecord, s: SessionRecord, ms: number) =>
    auditEvent(user.tenantId, {
      id: uuidv7({ now: () => at(ms) }, (n) => randomBytes(n)),
      at: at(ms),
      type: 'refreshed',
      actorId: user.id,
      subjectId: user.id,
      sessionId: s.id,
    });
  return { sessions, rotateCurrent, expected, refreshedEvent };
}

/**
 * @internal Conformance cases of the optional `sessions.rotateCurrent`: a store that has it rotates the
 * current token of an active session of an existing user in one call, and refuses everything else without
 * changing anything. A store without it has nothing to check here (each case says so and stops).
 */
export function rotateCurrentCases(context: ConformanceContext): void {
  context.test.describe('sessions.rotateCurrent (optional)', () => {
    rotatingCases(context);
    refusingCases(context);
    isolationCases(context);
  });
}

function rotatingCases(context: ConformanceContext): void {
  const { test, stores, seedUser } = context;
  const { it, expect } = test;
  const { sessions, rotateCurrent, expected, refreshedEvent } = helpersOf(context);

  it('rotates the current token and returns the session as rotated with its user, and its audit event', async () => {
    const rotate = rotateCurrent();
    if (!rotate) return;
    const user = await seedUser();
    const s = sessionFor(user);
    await sessions().create(s);
    await stores().users.setRole(user.tenantId, user.id, 'admin');
    const next = rotationAt(60_000);
    const event = refreshedEvent(user, s, 60_000);
    const rotated = await rotate(user.tenantId, expected(s), next, event);
    const after = { ...s, ...next, previousRefreshHash: s.refreshHash };
    expect(rotated).toEqual({ session: after, user: { ...user, role: 'admin' } });
    expect(await sessions().findById(user.tenantId, s.id)).toEqual(after);
    expect(await stores().auditEvents.list(user.tenantId, { limit: 10 })).toEqual([event]);
    // The token it replaced is the previous one now: it no longer rotates in one call.
    expect(await rotate(user.tenantId, expected(s), rotationAt(61_000))).toBeNull();
  });

  it('lets exactly one of 30 concurrent calls with the same hash win, with one audit event', async () => {
    const rotate = rotateCurrent();
    if (!rotate) return;
    const user = await seedUser();
    const s = sessionFor(user);
    await sessions().create(s);
    const candidates = Array.from({ length: 30 }, (_, i) => rotationAt(60_000 + i));
    const results = await Promise.all(
      candidates.map((c, i) => rotate(user.tenantId, expected(s), c, refreshedEvent(user, s, 60_000 + i))),
    );
    const winners = results.filter((r) => r !== null);
    expect(winners).toHaveLength(1);
    const after = await sessions().findById(user.tenantId, s.id);
    expect(after).toEqual(winners[0]?.session);
    expect(after?.previousRefreshHash).toBe(s.refreshHash);
    expect(await stores().auditEvents.list(user.tenantId, { limit: 50 })).toHaveLength(1);
  });
}

function refusingCases(context: ConformanceContext): void {
  const { test, stores, seedUser } = context;
  const { it, expect } = test;
  const { sessions, rotateCurrent, expected, refreshedEvent } = helpersOf(context);

  it('changes nothing and records nothing unless every condition holds', async () => {
    const rotate = rotateCurrent();
    if (!rotate) return;
    const user = await seedUser();
    const other = await seedUser();
    const s = sessionFor(user, { absoluteExpiresAt: at(10 * DAY) });
    await sessions().create(s);
    const refused: [string, Promise<unknown>][] = [
      ['another user', rotate(user.tenantId, expected(s, { userId: other.id }), rotationAt(60_000))],
      [
        'a hash that is not current',
        rotate(user.tenantId, expected(s, { refreshHash: hex64() }), rotationAt(60_000)),
      ],
      // Expired at `activeAt` (the session's expiry is 7 days), with a new expiry inside the absolute one.
      ['an expired session', rotate(user.tenantId, expected(s, { ms: 7 * DAY }), rotationAt(60_000))],
      // The sliding expiry would pass the absolute one (10 days).
      ['past the absolute expiry', rotate(user.tenantId, expected(s, { ms: 4 * DAY }), rotationAt(4 * DAY))],
      [
        'a session id that is not a UUID',
        rotate(user.tenantId, { ...expected(s), sessionId: 'not-a-uuid' }, rotationAt(60_000)),
      ],
    ];
    for (const [why, answer] of refused) expect(await answer, why).toBeNull();
    expect(await sessions().findById(user.tenantId, s.id)).toEqual(s);
    // Revoked: refused too.
    expect(await sessions().revoke(user.tenantId, s.id, at(1_000))).toBe(true);
    expect(
      await rotate(user.tenantId, expected(s), rotationAt(60_000), refreshedEvent(user, s, 2)),
    ).toBeNull();
    expect((await sessions().findById(user.tenantId, s.id))?.refreshHash).toBe(s.refreshHash);
    expect(await stores().auditEvents.list(user.tenantId, { limit: 10 })).toEqual([]);
  });

  it('refuses a session whose user is gone; rotates one at the edges of its expiries', async () => {
    const rotate = rotateCurrent();
    if (!rotate) return;
    const owner = await seedUser();
    // A store that keeps the sessions of a deleted user must not rotate them (ours delete them).
    const member = memberOf(owner.tenantId);
    await stores().users.create(member);
    const gone = sessionFor(member);
    await sessions().create(gone);
    expect(await stores().users.delete(owner.tenantId, member.id)).toBe(true);
    const stillThere = await sessions().findById(owner.tenantId, gone.id);
    if (stillThere) {
      expect(await rotate(owner.tenantId, expected(gone), rotationAt(60_000))).toBeNull();
      expect(await sessions().findById(owner.tenantId, gone.id)).toEqual(stillThere);
    }
    // The new expiry may reach the absolute expiry, not pass it.
    const edge = sessionFor(owner, { absoluteExpiresAt: at(60_000 + 7 * DAY) });
    await sessions().create(edge);
    expect(await rotate(owner.tenantId, expected(edge), rotationAt(60_000))).not.toBeNull();
    // A millisecond before the session expires, it is still active.
    const late = sessionFor(owner);
    await sessions().create(late);
    expect(
      await rotate(owner.tenantId, expected(late, { ms: 7 * DAY - 1 }), rotationAt(60_000)),
    ).not.toBeNull();
  });
}

function isolationCases(context: ConformanceContext): void {
  const { test, stores, seedUser } = context;
  const { it, expect } = test;
  const { sessions, rotateCurrent, expected, refreshedEvent } = helpersOf(context);

  it(
    inAnotherTenant('null: nothing rotated, nothing recorded, the rotated session not found there'),
    async () => {
      const rotate = rotateCurrent();
      if (!rotate) return;
      const user = await seedUser();
      const other = await seedUser();
      const s = sessionFor(user);
      await sessions().create(s);
      expect(
        await rotate(other.tenantId, expected(s), rotationAt(60_000), refreshedEvent(other, s, 1)),
        'another tenant',
      ).toBeNull();
      expect(await sessions().findById(user.tenantId, s.id)).toEqual(s);
      const next = rotationAt(60_000);
      expect(await rotate(user.tenantId, expected(s), next, refreshedEvent(user, s, 60_000))).not.toBeNull();
      const after = { ...s, ...next, previousRefreshHash: s.refreshHash };
      expect(await rotate(other.tenantId, expected(after), rotationAt(62_000))).toBeNull();
      expect(await stores().auditEvents.list(other.tenantId, { limit: 10 })).toEqual([]);
      expect(await sessions().findById(user.tenantId, s.id)).toEqual(after);
      expect(await sessions().findById(other.tenantId, s.id)).toBeNull();
    },
  );

  it(inAnotherTenant('a session naming a user there is never rotated'), async () => {
    const rotate = rotateCurrent();
    if (!rotate) return;
    const owner = await seedUser();
    const other = await seedUser();
    // A session of this tenant naming the other tenant's user (no store should write one; a store may
    // refuse it): never rotated, since its user is not one of the session's tenant.
    const foreign = { ...sessionFor(owner), userId: other.id };
    const created = await sessions()
      .create(foreign)
      .then(
        () => true,
        () => false,
      );
    if (!created) return;
    expect(await rotate(owner.tenantId, expected(foreign), rotationAt(60_000))).toBeNull();
    expect(await sessions().findById(owner.tenantId, foreign.id)).toEqual(foreign);
  });
}
