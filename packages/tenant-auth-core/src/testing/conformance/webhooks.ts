import { randomBytes, randomUUID } from 'node:crypto';
import type { WebhookDeliveryRecord, WebhookEndpointRecord } from '../../ports/webhook-store.js';
import type { AuditEventRecord, UserRecord } from '../../store-kit.js';
import { uuidv7 } from '../../vocabulary/ids.js';
import type { AuditEventType } from '../../vocabulary/records.js';
import { webhookDeliveryIdOf, webhookPayloadOf } from '../../vocabulary/webhook-payload.js';
import { at, auditEvent, rotation, sessionFor } from '../fixtures.js';
import { type ConformanceContext, inAnotherTenant } from './context.js';

/** A UUIDv7 of the time `ms` after the fixtures' epoch: ids made later sort after. */
let sequence = 0;
const idAt = (ms: number) => uuidv7({ now: () => at(ms) }, (n) => randomBytes(n));
const nextId = () => idAt(1_000_000 + sequence++);

const endpointOf = (
  owner: UserRecord,
  overrides: Partial<WebhookEndpointRecord> = {},
): WebhookEndpointRecord => ({
  id: nextId(),
  tenantId: owner.tenantId,
  url: 'https://hooks.example.com/tenant-auth',
  events: ['*'],
  description: null,
  sealedSecret: `sealed-${randomUUID()}`,
  enabled: true,
  disabledReason: null,
  createdAt: at(0),
  consecutiveFailures: 0,
  failingSince: null,
  ...overrides,
});

const testDelivery = (endpoint: WebhookEndpointRecord, ms = 0): WebhookDeliveryRecord => ({
  id: idAt(ms),
  tenantId: endpoint.tenantId,
  endpointId: endpoint.id,
  eventId: randomUUID(),
  type: 'webhook.test',
  payload: '{"type":"webhook.test"}',
  attempt: 0,
  status: 'pending',
  responseStatus: null,
  createdAt: at(ms),
  lastAttemptAt: null,
  nextAttemptAt: at(ms),
});

/** @internal Conformance cases of `webhooks`: endpoints, queued deliveries, claims and attempts. */
export function webhookCases({ test, stores, seedUser }: ConformanceContext): void {
  const { describe, it, expect } = test;
  const webhooks = () => stores().webhooks;
  const list = (e: WebhookEndpointRecord) => webhooks().listDeliveries(e.tenantId, e.id, { limit: 50 });

  describe('webhooks.createEndpoint / findEndpoint / listEndpoints', () => {
    it('stores an endpoint and finds and lists it as written, oldest first', async () => {
      const owner = await seedUser();
      const first = endpointOf(owner, { events: ['login_failed', 'member_removed'], description: 'SIEM' });
      const second = endpointOf(owner, { createdAt: at(1000) });
      await webhooks().createEndpoint(second);
      await webhooks().createEndpoint(first);
      expect(await webhooks().findEndpoint(owner.tenantId, first.id)).toEqual(first);
      expect(await webhooks().listEndpoints(owner.tenantId, { limit: 10 })).toEqual([first, second]);
      expect(await webhooks().listEndpoints(owner.tenantId, { limit: 1 })).toEqual([first]);
      expect(await webhooks().findEndpoint(owner.tenantId, randomUUID())).toBeNull();
    });

    it(inAnotherTenant('finds and lists nothing'), async () => {
      const owner = await seedUser();
      const other = await seedUser();
      const endpoint = endpointOf(owner);
      await webhooks().createEndpoint(endpoint);
      expect(await webhooks().findEndpoint(other.tenantId, endpoint.id)).toBeNull();
      expect(await webhooks().listEndpoints(other.tenantId, { limit: 10 })).toEqual([]);
    });
  });

  describe('webhooks.updateEndpoint / disableEndpoint / deleteEndpoint', () => {
    it('changes the fields given; enabling clears the reason and the failure counts', async () => {
      const owner = await seedUser();
      const endpoint = endpointOf(owner, {
        enabled: false,
        disabledReason: 'failing',
        consecutiveFailures: 50,
        failingSince: at(5),
      });
      await webhooks().createEndpoint(endpoint);
      const changed = await webhooks().updateEndpoint(owner.tenantId, endpoint.id, {
        url: 'https://other.example.com/h',
        events: ['login_failed'],
        description: 'x',
      });
      expect(changed).toEqual({
        ...endpoint,
        url: 'https://other.example.com/h',
        events: ['login_failed'],
        description: 'x',
      });
      const enabled = await webhooks().updateEndpoint(owner.tenantId, endpoint.id, { enabled: true });
      expect(enabled).toEqual({
        ...endpoint,
        url: 'https://other.example.com/h',
        events: ['login_failed'],
        description: 'x',
        enabled: true,
        disabledReason: null,
        consecutiveFailures: 0,
        failingSince: null,
      });
      expect(await webhooks().findEndpoint(owner.tenantId, endpoint.id)).toEqual(enabled);
    });

    it('disables an enabled endpoint once, and stops its pending deliveries', async () => {
      const owner = await seedUser();
      const endpoint = endpointOf(owner);
      await webhooks().createEndpoint(endpoint);
      await webhooks().queueDelivery(testDelivery(endpoint));
      expect(await webhooks().disableEndpoint(owner.tenantId, endpoint.id, 'failing', at(9))).toBe(true);
      expect(await webhooks().disableEndpoint(owner.tenantId, endpoint.id, 'again', at(9))).toBe(false);
      expect(await webhooks().findEndpoint(owner.tenantId, endpoint.id)).toMatchObject({
        enabled: false,
        disabledReason: 'failing',
      });
      expect((await list(endpoint)).map((d) => [d.status, d.nextAttemptAt])).toEqual([['failed', null]]);
      expect(await webhooks().claimDeliveries({ now: at(100_000), limit: 10, leaseSeconds: 30 })).toEqual([]);
    });

    it('disabling by update stops the pending deliveries too', async () => {
      const owner = await seedUser();
      const endpoint = endpointOf(owner);
      await webhooks().createEndpoint(endpoint);
      await webhooks().queueDelivery(testDelivery(endpoint));
      await webhooks().updateEndpoint(owner.tenantId, endpoint.id, { enabled: false });
      expect((await list(endpoint)).map((d) => d.status)).toEqual(['failed']);
    });

    it('deletes an endpoint with its deliveries', async () => {
      const owner = await seedUser();
      const endpoint = endpointOf(owner);
      await webhooks().createEndpoint(endpoint);
      await webhooks().queueDelivery(testDelivery(endpoint));
      expect(await webhooks().deleteEndpoint(owner.tenantId, endpoint.id)).toBe(true);
      expect(await webhooks().deleteEndpoint(owner.tenantId, endpoint.id)).toBe(false);
      expect(await webhooks().findEndpoint(owner.tenantId, endpoint.id)).toBeNull();
      expect(await list(endpoint)).toEqual([]);
      expect(await webhooks().countPending()).toEqual({ pending: 0, oldestPendingAt: null });
    });

    it(inAnotherTenant('changes, disables and deletes nothing'), async () => {
      const owner = await seedUser();
      const other = await seedUser();
      const endpoint = endpointOf(owner);
      await webhooks().createEndpoint(endpoint);
      expect(
        await webhooks().updateEndpoint(other.tenantId, endpoint.id, { url: 'https://x.example/' }),
      ).toBeNull();
      expect(await webhooks().disableEndpoint(other.tenantId, endpoint.id, 'no', at(1))).toBe(false);
      expect(await webhooks().deleteEndpoint(other.tenantId, endpoint.id)).toBe(false);
      expect(await webhooks().findEndpoint(owner.tenantId, endpoint.id)).toEqual(endpoint);
    });

    it('goes with its tenant', async () => {
      const owner = await seedUser();
      const endpoint = endpointOf(owner);
      await webhooks().createEndpoint(endpoint);
      await webhooks().queueDelivery(testDelivery(endpoint));
      expect(await stores().tenants.delete(owner.tenantId)).toBe(true);
      expect(await webhooks().countPending()).toEqual({ pending: 0, oldestPendingAt: null });
    });
  });

  describe('webhooks.queueDeliveries', () => {
    it("queues the event for the tenant's enabled endpoints that subscribe to its type", async () => {
      const owner = await seedUser();
      const other = await seedUser();
      const all = endpointOf(owner);
      const failed = endpointOf(owner, { events: ['login_failed', 'logout'] });
      const roles = endpointOf(owner, { events: ['member_role_changed'] });
      const disabled = endpointOf(owner, { enabled: false, disabledReason: 'failing' });
      const elsewhere = endpointOf(other);
      for (const e of [all, failed, roles, disabled, elsewhere]) await webhooks().createEndpoint(e);
      const event = auditEvent(owner.tenantId, { type: 'login_failed', at: at(500) });
      const ids = [idAt(600), idAt(601), idAt(602)];
      expect(await webhooks().queueDeliveries(event, '{"a":1}', () => ids.shift() as string)).toBe(2);
      for (const e of [all, failed]) {
        const [delivery, ...rest] = await list(e);
        expect(rest).toEqual([]);
        expect(delivery).toMatchObject({
          tenantId: owner.tenantId,
          endpointId: e.id,
          eventId: event.id,
          type: 'login_failed',
          payload: '{"a":1}',
          attempt: 0,
          status: 'pending',
          responseStatus: null,
          createdAt: at(500),
          lastAttemptAt: null,
          nextAttemptAt: at(500),
        });
      }
      for (const e of [roles, disabled, elsewhere]) expect(await list(e)).toEqual([]);
      expect(await webhooks().countPending()).toEqual({ pending: 2, oldestPendingAt: at(500) });
    });

    it('commits and rolls back with the transaction it runs in', async () => {
      const owner = await seedUser();
      const endpoint = endpointOf(owner);
      await webhooks().createEndpoint(endpoint);
      const event = auditEvent(owner.tenantId);
      await expect(
        stores().transaction(async (tx) => {
          await tx.auditEvents.append(event);
          await tx.webhooks.queueDeliveries(event, '{}', () => idAt(1));
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect(await list(endpoint)).toEqual([]);
    });
  });

  describe('sessions.rotate / rotateCurrent / reauthenticate with an event queue its deliveries', () => {
    /** Endpoints of `owner` subscribed to `refreshed`, to everything, to something else, disabled; and elsewhere. */
    async function endpointsOf(owner: UserRecord, other: UserRecord) {
      const subscribed = [endpointOf(owner, { events: ['refreshed', 'reauthenticated'] }), endpointOf(owner)];
      const not = [
        endpointOf(owner, { events: ['login_failed'] }),
        endpointOf(owner, { enabled: false, disabledReason: 'failing' }),
        endpointOf(other),
      ];
      for (const e of [...subscribed, ...not]) await webhooks().createEndpoint(e);
      return { subscribed, not };
    }
    const eventOf = (owner: UserRecord, sessionId: string, ms: number, type: AuditEventType = 'refreshed') =>
      auditEvent(owner.tenantId, { id: idAt(ms), at: at(ms), type, sessionId, actorId: owner.id });
    async function expectQueued(
      { subscribed, not }: Awaited<ReturnType<typeof endpointsOf>>,
      events: AuditEventRecord[],
    ) {
      for (const e of subscribed) {
        const queued = await list(e);
        expect(queued.map((d) => d.eventId).sort()).toEqual(events.map((v) => v.id).sort());
        for (const event of events) {
          expect(queued.find((d) => d.eventId === event.id)).toMatchObject({
            id: webhookDeliveryIdOf(event.id, e.id),
            tenantId: event.tenantId,
            endpointId: e.id,
            type: event.type,
            payload: webhookPayloadOf(event),
            attempt: 0,
            status: 'pending',
            nextAttemptAt: event.at,
          });
        }
      }
      for (const e of not) expect(await list(e)).toEqual([]);
    }

    it('rotate queues the event for the subscribed endpoints if and only if it wins', async () => {
      const owner = await seedUser();
      const { subscribed, not } = await endpointsOf(owner, await seedUser());
      const session = sessionFor(owner);
      await stores().sessions.create(session);
      const won = eventOf(owner, session.id, 2000);
      expect(
        await stores().sessions.rotate(owner.tenantId, session.id, session.refreshHash, rotation(2000), won),
      ).toBe(true);
      const lost = eventOf(owner, session.id, 3000);
      expect(
        await stores().sessions.rotate(owner.tenantId, session.id, session.refreshHash, rotation(3000), lost),
      ).toBe(false);
      await expectQueued({ subscribed, not }, [won]);
    });

    it('rotateCurrent, where the store has it, queues the event if and only if it rotates', async () => {
      const store = stores().sessions;
      if (!store.rotateCurrent) return;
      const owner = await seedUser();
      const endpoints = await endpointsOf(owner, await seedUser());
      const session = sessionFor(owner);
      await store.create(session);
      const expected = {
        sessionId: session.id,
        userId: owner.id,
        refreshHash: session.refreshHash,
        activeAt: at(2000),
      };
      const won = eventOf(owner, session.id, 2000);
      expect(await store.rotateCurrent(owner.tenantId, expected, rotation(2000), won)).not.toBeNull();
      const lost = eventOf(owner, session.id, 3000);
      expect(await store.rotateCurrent(owner.tenantId, expected, rotation(3000), lost)).toBeNull();
      await expectQueued(endpoints, [won]);
    });

    it('reauthenticate, where the store has it, queues the event if and only if it happens', async () => {
      const store = stores().sessions;
      if (!store.reauthenticate) return;
      const owner = await seedUser();
      const endpoints = await endpointsOf(owner, await seedUser());
      const session = sessionFor(owner);
      await store.create(session);
      const next = { ...rotation(2000), amr: ['pwd' as const], authTime: at(2000) };
      const done = eventOf(owner, session.id, 2000, 'reauthenticated');
      expect(await store.reauthenticate(owner.tenantId, session.id, owner.id, next, done)).not.toBeNull();
      const refused = eventOf(owner, session.id, 3000, 'reauthenticated');
      expect(await store.reauthenticate(owner.tenantId, session.id, randomUUID(), next, refused)).toBeNull();
      await expectQueued(endpoints, [done]);
    });
  });

  describe('webhooks.claimDeliveries / recordAttempt', () => {
    it('claims due deliveries once per lease, oldest due first', async () => {
      const owner = await seedUser();
      const endpoint = endpointOf(owner);
      await webhooks().createEndpoint(endpoint);
      const early = testDelivery(endpoint, 10);
      const late = testDelivery(endpoint, 20);
      const future = testDelivery(endpoint, 50_000);
      for (const d of [late, future, early]) await webhooks().queueDelivery(d);
      const claimed = await webhooks().claimDeliveries({ now: at(1000), limit: 10, leaseSeconds: 30 });
      expect(claimed.map((c) => c.delivery.id)).toEqual([early.id, late.id]);
      expect(claimed[0]).toEqual({ delivery: early, url: endpoint.url, sealedSecret: endpoint.sealedSecret });
      expect(await webhooks().claimDeliveries({ now: at(2000), limit: 10, leaseSeconds: 30 })).toEqual([]);
      const again = await webhooks().claimDeliveries({ now: at(31_000), limit: 1, leaseSeconds: 30 });
      expect(again.map((c) => c.delivery.id)).toEqual([early.id]);
    });

    it('never hands the same delivery to two concurrent claims', async () => {
      const owner = await seedUser();
      const endpoint = endpointOf(owner);
      await webhooks().createEndpoint(endpoint);
      for (let i = 0; i < 6; i++) await webhooks().queueDelivery(testDelivery(endpoint, i));
      const claims = await Promise.all(
        [0, 1, 2].map(() => webhooks().claimDeliveries({ now: at(1000), limit: 4, leaseSeconds: 30 })),
      );
      const ids = claims.flat().map((c) => c.delivery.id);
      expect(ids).toHaveLength(6);
      expect(new Set(ids).size).toBe(6);
    });

    it('records failures, retries and a success, with the endpoint counts', async () => {
      const owner = await seedUser();
      const endpoint = endpointOf(owner);
      await webhooks().createEndpoint(endpoint);
      const first = testDelivery(endpoint, 1);
      const second = testDelivery(endpoint, 2);
      await webhooks().queueDelivery(first);
      await webhooks().queueDelivery(second);
      const failed = await webhooks().recordAttempt(first.id, {
        at: at(100),
        succeeded: false,
        responseStatus: 500,
        nextAttemptAt: at(5100),
      });
      expect(failed).toEqual({
        tenantId: owner.tenantId,
        endpointId: endpoint.id,
        consecutiveFailures: 1,
        failingSince: at(100),
      });
      const refused = await webhooks().recordAttempt(second.id, {
        at: at(200),
        succeeded: false,
        responseStatus: null,
        nextAttemptAt: null,
      });
      expect(refused).toMatchObject({ consecutiveFailures: 2, failingSince: at(100) });
      const [secondNow, firstNow] = await list(endpoint);
      expect(firstNow).toMatchObject({
        attempt: 1,
        status: 'pending',
        responseStatus: 500,
        lastAttemptAt: at(100),
        nextAttemptAt: at(5100),
      });
      expect(secondNow).toMatchObject({
        attempt: 1,
        status: 'failed',
        responseStatus: null,
        nextAttemptAt: null,
      });
      expect(
        await webhooks().recordAttempt(second.id, {
          at: at(300),
          succeeded: true,
          responseStatus: 200,
          nextAttemptAt: null,
        }),
      ).toBeNull();
      const ok = await webhooks().recordAttempt(first.id, {
        at: at(6000),
        succeeded: true,
        responseStatus: 204,
        nextAttemptAt: null,
      });
      expect(ok).toEqual({
        tenantId: owner.tenantId,
        endpointId: endpoint.id,
        consecutiveFailures: 0,
        failingSince: null,
      });
      expect((await list(endpoint))[1]).toMatchObject({
        attempt: 2,
        status: 'succeeded',
        responseStatus: 204,
        nextAttemptAt: null,
      });
      expect(await webhooks().countPending()).toEqual({ pending: 0, oldestPendingAt: null });
    });
  });

  describe('webhooks.listDeliveries', () => {
    it('lists newest first, a page before an id', async () => {
      const owner = await seedUser();
      const endpoint = endpointOf(owner);
      await webhooks().createEndpoint(endpoint);
      const deliveries = [1, 2, 3].map((ms) => testDelivery(endpoint, ms));
      for (const d of deliveries) await webhooks().queueDelivery(d);
      const ids = deliveries.map((d) => d.id).reverse();
      expect((await list(endpoint)).map((d) => d.id)).toEqual(ids);
      const page = await webhooks().listDeliveries(owner.tenantId, endpoint.id, { limit: 5, before: ids[0] });
      expect(page.map((d) => d.id)).toEqual(ids.slice(1));
      expect(await webhooks().listDeliveries(owner.tenantId, endpoint.id, { limit: 1 })).toEqual([
        deliveries[2],
      ]);
    });

    it(inAnotherTenant('lists nothing'), async () => {
      const owner = await seedUser();
      const other = await seedUser();
      const endpoint = endpointOf(owner);
      await webhooks().createEndpoint(endpoint);
      await webhooks().queueDelivery(testDelivery(endpoint));
      expect(await webhooks().listDeliveries(other.tenantId, endpoint.id, { limit: 5 })).toEqual([]);
    });
  });

  describe('webhooks.deleteDeliveriesOlderThan', () => {
    it('deletes at most batchSize finished deliveries created before the date, never a pending one', async () => {
      const owner = await seedUser();
      const endpoint = endpointOf(owner);
      await webhooks().createEndpoint(endpoint);
      const old = [1, 2].map((ms) => testDelivery(endpoint, ms));
      const pending = testDelivery(endpoint, 3);
      const recent = testDelivery(endpoint, 9000);
      for (const d of [...old, pending, recent]) await webhooks().queueDelivery(d);
      for (const d of [...old, recent]) {
        await webhooks().recordAttempt(d.id, {
          at: at(9500),
          succeeded: true,
          responseStatus: 200,
          nextAttemptAt: null,
        });
      }
      const run = (batchSize: number) =>
        webhooks().deleteDeliveriesOlderThan({ before: at(5000), batchSize });
      expect(await run(1)).toBe(1);
      expect(await run(10)).toBe(1);
      expect(await run(10)).toBe(0);
      expect((await list(endpoint)).map((d) => d.id)).toEqual([recent.id, pending.id]);
    });
  });

  describe('webhooks.listSealedSecrets / resealSecret', () => {
    it('pages the sealed secrets by id and replaces one only while it is the expected value', async () => {
      const owner = await seedUser();
      const other = await seedUser();
      const a = endpointOf(owner);
      const b = endpointOf(other);
      await webhooks().createEndpoint(a);
      await webhooks().createEndpoint(b);
      const first = await webhooks().listSealedSecrets({ after: null, limit: 1 });
      expect(first).toEqual([{ tenantId: a.tenantId, id: a.id, sealedSecret: a.sealedSecret }]);
      expect(await webhooks().listSealedSecrets({ after: a.id, limit: 5 })).toEqual([
        { tenantId: b.tenantId, id: b.id, sealedSecret: b.sealedSecret },
      ]);
      expect(await webhooks().resealSecret(other.tenantId, a.id, a.sealedSecret, 'new')).toBe(false);
      expect(await webhooks().resealSecret(owner.tenantId, a.id, 'stale', 'new')).toBe(false);
      expect(await webhooks().resealSecret(owner.tenantId, a.id, a.sealedSecret, 'new')).toBe(true);
      expect((await webhooks().findEndpoint(owner.tenantId, a.id))?.sealedSecret).toBe('new');
    });
  });
}
