import { randomUUID } from 'node:crypto';
import type { ApiKeyRecord } from '../../ports/api-key-store.js';
import type { UserRecord } from '../../store-kit.js';
import { at, auditEvent, hex64 } from '../fixtures.js';
import { type ConformanceContext, inAnotherTenant } from './context.js';

/** A key of `owner`'s tenant, created by it. */
const keyOf = (owner: UserRecord, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
  id: randomUUID(),
  tenantId: owner.tenantId,
  name: 'CI deploys',
  role: 'member',
  prefix: 'tak_abcdefgh',
  secretHash: hex64(),
  createdAt: at(0),
  createdBy: owner.id,
  expiresAt: null,
  lastUsedAt: null,
  revokedAt: null,
  ...overrides,
});

/** @internal Conformance cases of `apiKeys`, and of audit events' `actorType`. */
export function apiKeyCases({ test, stores, seedUser }: ConformanceContext): void {
  const { describe, it, expect } = test;
  const apiKeys = () => stores().apiKeys;

  describe('apiKeys.deleteRetired (optional)', () => {
    it('deletes at most batchSize keys revoked or expired before the date, oldest first, across tenants', async () => {
      const deleteRetired = apiKeys().deleteRetired;
      if (!deleteRetired) return;
      const owner = await seedUser();
      const other = await seedUser();
      const revokedEarly = keyOf(owner, { revokedAt: at(1000) });
      const expiredLater = keyOf(other, { expiresAt: at(2000) });
      const recent = keyOf(owner, { revokedAt: at(9000) });
      const expiring = keyOf(owner, { expiresAt: at(86_400_000) });
      const active = keyOf(owner);
      for (const key of [revokedEarly, expiredLater, recent, expiring, active]) await apiKeys().create(key);
      const run = (batchSize: number) => deleteRetired.call(apiKeys(), { before: at(5000), batchSize });
      expect(await run(1)).toBe(1);
      expect(await apiKeys().findById(owner.tenantId, revokedEarly.id)).toBeNull();
      expect(await apiKeys().findBySecretHash(revokedEarly.secretHash)).toBeNull();
      expect(await apiKeys().findById(other.tenantId, expiredLater.id)).not.toBeNull();
      expect(await run(10)).toBe(1);
      expect(await apiKeys().findById(other.tenantId, expiredLater.id)).toBeNull();
      expect(await run(10)).toBe(0);
      for (const key of [recent, expiring, active])
        expect(await apiKeys().findById(owner.tenantId, key.id)).toEqual(key);
    });
  });

  describe('apiKeys.create / findBySecretHash / findById', () => {
    it('stores a key and finds it by the hash of its secret and by id, as written', async () => {
      const owner = await seedUser();
      const key = keyOf(owner, { role: 'admin', expiresAt: at(86_400_000) });
      await apiKeys().create(key);
      expect(await apiKeys().findBySecretHash(key.secretHash)).toEqual(key);
      expect(await apiKeys().findById(owner.tenantId, key.id)).toEqual(key);
      expect(await apiKeys().findBySecretHash(hex64())).toBeNull();
      expect(await apiKeys().findById(owner.tenantId, randomUUID())).toBeNull();
    });

    it('refuses a second key with the same secret hash', async () => {
      const owner = await seedUser();
      const key = keyOf(owner);
      await apiKeys().create(key);
      await expect(apiKeys().create(keyOf(owner, { secretHash: key.secretHash }))).rejects.toThrow();
      expect((await apiKeys().findBySecretHash(key.secretHash))?.id).toBe(key.id);
    });

    it(inAnotherTenant('finds nothing by id'), async () => {
      const owner = await seedUser();
      const other = await seedUser();
      const key = keyOf(owner);
      await apiKeys().create(key);
      expect(await apiKeys().findById(other.tenantId, key.id)).toBeNull();
    });
  });

  describe('apiKeys.listByTenant', () => {
    it('lists the keys not revoked, oldest first, at most `limit`', async () => {
      const owner = await seedUser();
      const first = keyOf(owner, { createdAt: at(0) });
      const second = keyOf(owner, { createdAt: at(1000), expiresAt: at(2000) });
      const revoked = keyOf(owner, { createdAt: at(500), revokedAt: at(600) });
      for (const key of [second, revoked, first]) await apiKeys().create(key);
      expect(await apiKeys().listByTenant(owner.tenantId, { limit: 10 })).toEqual([first, second]);
      expect(await apiKeys().listByTenant(owner.tenantId, { limit: 1 })).toEqual([first]);
    });

    it(inAnotherTenant('lists none of them'), async () => {
      const owner = await seedUser();
      const other = await seedUser();
      await apiKeys().create(keyOf(owner));
      expect(await apiKeys().listByTenant(other.tenantId, { limit: 10 })).toEqual([]);
    });
  });

  describe('apiKeys.revoke', () => {
    it('revokes once; of two concurrent revocations exactly one wins', async () => {
      const owner = await seedUser();
      const key = keyOf(owner);
      await apiKeys().create(key);
      const won = await Promise.all([
        apiKeys().revoke(owner.tenantId, key.id, at(5000)),
        apiKeys().revoke(owner.tenantId, key.id, at(5000)),
      ]);
      expect(won.filter(Boolean)).toHaveLength(1);
      expect((await apiKeys().findBySecretHash(key.secretHash))?.revokedAt).toEqual(at(5000));
      expect(await apiKeys().revoke(owner.tenantId, key.id, at(6000))).toBe(false);
      expect(await apiKeys().revoke(owner.tenantId, randomUUID(), at(6000))).toBe(false);
    });

    it(inAnotherTenant('revokes nothing'), async () => {
      const owner = await seedUser();
      const other = await seedUser();
      const key = keyOf(owner);
      await apiKeys().create(key);
      expect(await apiKeys().revoke(other.tenantId, key.id, at(1))).toBe(false);
      expect((await apiKeys().findById(owner.tenantId, key.id))?.revokedAt).toBeNull();
    });
  });

  describe('apiKeys.touchLastUsed', () => {
    it('writes only when never used or last used before `staleBefore`; one of concurrent writes wins', async () => {
      const owner = await seedUser();
      const key = keyOf(owner);
      await apiKeys().create(key);
      const touch = (ms: number) => apiKeys().touchLastUsed(owner.tenantId, key.id, at(ms), at(ms - 60_000));
      const won = await Promise.all([touch(100_000), touch(100_000)]);
      expect(won.filter(Boolean)).toHaveLength(1);
      expect(await touch(130_000)).toBe(false);
      expect((await apiKeys().findById(owner.tenantId, key.id))?.lastUsedAt).toEqual(at(100_000));
      expect(await touch(160_001)).toBe(true);
      expect((await apiKeys().findById(owner.tenantId, key.id))?.lastUsedAt).toEqual(at(160_001));
    });

    it(inAnotherTenant('writes nothing'), async () => {
      const owner = await seedUser();
      const other = await seedUser();
      const key = keyOf(owner);
      await apiKeys().create(key);
      expect(await apiKeys().touchLastUsed(other.tenantId, key.id, at(1), at(0))).toBe(false);
      expect((await apiKeys().findById(owner.tenantId, key.id))?.lastUsedAt).toBeNull();
    });
  });

  describe('apiKeys and deletions', () => {
    it('keeps a key when its creator is deleted (createdBy null), and deletes it with its tenant', async () => {
      const owner = await seedUser();
      const key = keyOf(owner);
      await apiKeys().create(key);
      await stores().users.delete(owner.tenantId, owner.id);
      expect((await apiKeys().findById(owner.tenantId, key.id))?.createdBy).toBeNull();
      await stores().tenants.delete(owner.tenantId);
      expect(await apiKeys().findBySecretHash(key.secretHash)).toBeNull();
    });
  });

  describe('auditEvents.append (actorType)', () => {
    it('keeps what acted: a user, an API key or the server itself (system, 1.3)', async () => {
      const owner = await seedUser();
      const byKey = auditEvent(owner.tenantId, { actorId: randomUUID(), actorType: 'api_key', at: at(2) });
      const byUser = auditEvent(owner.tenantId, { actorId: owner.id, actorType: 'user', at: at(1) });
      const bySystem = auditEvent(owner.tenantId, {
        type: 'webhook_disabled',
        actorType: 'system',
        at: at(3),
      });
      await stores().auditEvents.append(byUser);
      await stores().auditEvents.append(byKey);
      await stores().auditEvents.append(bySystem);
      const listed = await stores().auditEvents.list(owner.tenantId, { limit: 10 });
      expect(listed.map((e) => [e.id, e.actorType]).sort()).toEqual(
        [
          [byUser.id, 'user'],
          [byKey.id, 'api_key'],
          [bySystem.id, 'system'],
        ].sort(),
      );
    });
  });
}
