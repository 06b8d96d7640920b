import { randomBytes } from 'node:crypto';
import type { AuditEventRecord } from '../../store-kit.js';
import { uuidv7 } from '../../store-kit.js';
import { at, auditEvent, hex64, rotation, sessionFor } from '../fixtures.js';
import { type ConformanceContext, inAnotherTenant, Rollback } from './context.js';

/** Events at increasing times, with time-ordered ids as core makes them. */
const eventAt = (tenantId: string, ms: number, overrides: Partial<AuditEventRecord> = {}) =>
  auditEvent(tenantId, {
    id: uuidv7({ now: () => at(ms) }, (n) => randomBytes(n)),
    at: at(ms),
    ...overrides,
  });

/** @internal Conformance cases of `auditEvents.list`. */
export function auditListCases({ test, stores, seedUser }: ConformanceContext): void {
  const { describe, it, expect } = test;
  const audit = () => stores().auditEvents;

  describe('auditEvents.list', () => {
    it('lists the events of a tenant newest first, up to the limit', async () => {
      const owner = await seedUser();
      const events = [1, 2, 3].map((ms) => eventAt(owner.tenantId, ms, { actorId: owner.id }));
      for (const e of events) await audit().append(e);
      expect(await audit().list(owner.tenantId, { limit: 10 })).toEqual([...events].reverse());
      expect(await audit().list(owner.tenantId, { limit: 2 })).toEqual([events[2], events[1]]);
      expect(await audit().list('not-a-uuid', { limit: 10 })).toEqual([]);
    });

    it('keeps every field, nulls included', async () => {
      const owner = await seedUser();
      const full = eventAt(owner.tenantId, 1, {
        type: 'member_role_changed',
        actorId: owner.id,
        subjectId: owner.id,
        sessionId: '0192f1c4-5f3a-7c1e-9a4b-3d2f1e0c9b8a',
        ipAddress: '2001:db8::1',
        userAgent: 'curl/8.5.0',
        requestId: 'f3b2c1d0',
      });
      const bare = eventAt(owner.tenantId, 2, {
        type: 'login_failed',
        actorId: null,
        subjectId: null,
        sessionId: null,
        ipAddress: null,
        userAgent: null,
        requestId: null,
      });
      await audit().append(full);
      await audit().append(bare);
      expect(await audit().list(owner.tenantId, { limit: 10 })).toEqual([bare, full]);
    });

    it('pages by the id of the last event without duplicates or gaps while events keep arriving', async () => {
      const owner = await seedUser();
      const other = await seedUser();
      const before = Array.from({ length: 25 }, (_, i) => eventAt(owner.tenantId, 1_000 + i));
      for (const e of before) await audit().append(e);
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 10; page++) {
        const events = await audit().list(owner.tenantId, { limit: 7, before: cursor });
        seen.push(...events.map((e) => e.id));
        // Newer events, and another tenant's, arrive between pages.
        await audit().append(eventAt(owner.tenantId, 5_000 + page));
        await audit().append(eventAt(other.tenantId, 1_010 + page));
        if (events.length < 7) break;
        cursor = events.at(-1)?.id;
      }
      expect(seen).toEqual(before.map((e) => e.id).reverse());
    });

    it('filters by type and by user (as actor or subject)', async () => {
      const owner = await seedUser();
      const memberId = '0192f1c4-5f3a-7c1e-9a4b-3d2f1e0c9b8a';
      const login = eventAt(owner.tenantId, 1, {
        type: 'login_succeeded',
        actorId: owner.id,
        subjectId: owner.id,
      });
      const change = eventAt(owner.tenantId, 2, {
        type: 'member_role_changed',
        actorId: owner.id,
        subjectId: memberId,
      });
      const failed = eventAt(owner.tenantId, 3, { type: 'login_failed', actorId: null, subjectId: memberId });
      for (const e of [login, change, failed]) await audit().append(e);
      expect(await audit().list(owner.tenantId, { limit: 10, type: 'login_failed' })).toEqual([failed]);
      expect(await audit().list(owner.tenantId, { limit: 10, userId: memberId })).toEqual([failed, change]);
      expect(await audit().list(owner.tenantId, { limit: 10, userId: owner.id })).toEqual([change, login]);
      expect(
        await audit().list(owner.tenantId, { limit: 10, userId: memberId, type: 'member_role_changed' }),
      ).toEqual([change]);
      expect(await audit().list(owner.tenantId, { limit: 10, userId: memberId, before: failed.id })).toEqual([
        change,
      ]);
    });

    it(inAnotherTenant("lists that tenant's events only, with or without filters"), async () => {
      const owner = await seedUser();
      const other = await seedUser();
      const memberId = '0192f1c4-5f3a-7c1e-9a4b-3d2f1e0c9b8a';
      const failed = eventAt(owner.tenantId, 3, { type: 'login_failed', actorId: null, subjectId: memberId });
      const foreign = eventAt(other.tenantId, 4, {
        type: 'login_failed',
        actorId: null,
        subjectId: memberId,
      });
      for (const e of [eventAt(owner.tenantId, 1, { actorId: owner.id }), failed, foreign]) {
        await audit().append(e);
      }
      expect(await audit().list(other.tenantId, { limit: 10 })).toHaveLength(1);
      expect(await audit().list(owner.tenantId, { limit: 10, userId: memberId })).toEqual([failed]);
      expect(await audit().list(other.tenantId, { limit: 10, type: 'login_failed' })).toEqual([foreign]);
      expect(await audit().list(other.tenantId, { limit: 10, userId: memberId })).toEqual([foreign]);
      expect(await audit().list(other.tenantId, { limit: 10, before: foreign.id })).toEqual([]);
    });
  });
}

/** @internal Conformance cases of `auditEvents.append` and `auditEvents.deleteOlderThan`. */
export function auditWriteCases({ test, stores, seedUser }: ConformanceContext): void {
  const { describe, it, expect } = test;
  const audit = () => stores().auditEvents;

  describe('auditEvents.append', () => {
    it('records nothing for a change that rolled back', async () => {
      const owner = await seedUser();
      await expect(
        stores().transaction(async (tx) => {
          await tx.users.setRole(owner.tenantId, owner.id, 'admin');
          await tx.auditEvents.append(eventAt(owner.tenantId, 1, { type: 'member_role_changed' }));
          throw new Rollback('last owner');
        }),
      ).rejects.toBeInstanceOf(Rollback);
      expect(await audit().list(owner.tenantId, { limit: 10 })).toEqual([]);
      expect((await stores().users.findById(owner.tenantId, owner.id))?.role).toBe('owner');
    });
  });

  describe('auditEvents.deleteOlderThan', () => {
    it('deletes events older than the retention, across tenants, in bounded batches', async () => {
      const owner = await seedUser();
      const other = await seedUser();
      for (let i = 0; i < 5; i++) await audit().append(eventAt(i % 2 ? owner.tenantId : other.tenantId, i));
      const kept = eventAt(owner.tenantId, 100);
      await audit().append(kept);
      expect(await audit().deleteOlderThan({ before: at(50), batchSize: 2 })).toBe(2);
      expect(await audit().deleteOlderThan({ before: at(50), batchSize: 2 })).toBe(2);
      expect(await audit().deleteOlderThan({ before: at(50), batchSize: 2 })).toBe(1);
      expect(await audit().deleteOlderThan({ before: at(50), batchSize: 2 })).toBe(0);
      expect(await audit().list(owner.tenantId, { limit: 10 })).toEqual([kept]);
      expect(await audit().list(other.tenantId, { limit: 10 })).toEqual([]);
    });
  });
}

/** @internal Conformance cases of the audit event `sessions.rotate` appends when it wins. */
export function rotationEventCases({ test, stores, seedUser }: ConformanceContext): void {
  const { describe, it, expect } = test;
  const audit = () => stores().auditEvents;
  const next = (ms: number) => rotation(ms, hex64(), 1);

  describe('sessions.rotate with an audit event', () => {
    it('appends the event if and only if the rotation wins, of 20 concurrent ones once', async () => {
      const owner = await seedUser();
      const session = sessionFor(owner);
      await stores().sessions.create(session);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          stores().sessions.rotate(
            owner.tenantId,
            session.id,
            session.refreshHash,
            next(1_000 + i),
            eventAt(owner.tenantId, 1_000 + i, {
              type: 'refreshed',
              sessionId: session.id,
              actorId: owner.id,
            }),
          ),
        ),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      const events = await audit().list(owner.tenantId, { limit: 50 });
      expect(events.map((e) => e.type)).toEqual(['refreshed']);
      expect(events[0]).toMatchObject({ sessionId: session.id, actorId: owner.id, tenantId: owner.tenantId });
      // A rotation that loses (a stale hash) appends nothing.
      expect(
        await stores().sessions.rotate(
          owner.tenantId,
          session.id,
          session.refreshHash,
          next(5_000),
          eventAt(owner.tenantId, 5_000),
        ),
      ).toBe(false);
      expect(await audit().list(owner.tenantId, { limit: 50 })).toHaveLength(1);
    });

    it(inAnotherTenant('the rotation is refused and appends nothing, there or here'), async () => {
      const owner = await seedUser();
      const other = await seedUser();
      const session = sessionFor(owner);
      await stores().sessions.create(session);
      expect(
        await stores().sessions.rotate(
          other.tenantId,
          session.id,
          session.refreshHash,
          next(6_000),
          eventAt(other.tenantId, 6_000),
        ),
      ).toBe(false);
      expect(await audit().list(owner.tenantId, { limit: 50 })).toEqual([]);
      expect(await audit().list(other.tenantId, { limit: 50 })).toEqual([]);
    });
  });
}
