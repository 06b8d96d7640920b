import type { ApiKeyRecord, ApiKeyStore } from '../ports/api-key-store.js';
import type { MemoryState } from './memory-database.js';
import { checkBatchSize, copy, copyOrNull, type Run } from './memory-run.js';

function keyOf(s: MemoryState, tenantId: string, id: string): ApiKeyRecord | undefined {
  const key = s.apiKeys.get(id);
  return key?.tenantId === tenantId ? key : undefined;
}

/** @internal The API key store on the memory database: each verb runs alone, so each is atomic. */
export function memoryApiKeyStore(run: Run): ApiKeyStore & Required<Pick<ApiKeyStore, 'revokeCreatedBy'>> {
  return {
    create: (key) =>
      run((s) => {
        if (!s.tenants.has(key.tenantId)) throw new TypeError('unknown tenant');
        if (s.apiKeys.has(key.id) || s.apiKeyIdBySecretHash.has(key.secretHash)) {
          throw new TypeError('duplicate API key');
        }
        s.apiKeys.set(key.id, copy(key));
        s.apiKeyIdBySecretHash.set(key.secretHash, key.id);
      }),
    findBySecretHash: (secretHash) =>
      run((s) => {
        const id = s.apiKeyIdBySecretHash.get(secretHash);
        return copyOrNull(id === undefined ? undefined : s.apiKeys.get(id));
      }),
    findById: (tenantId, id) => run((s) => copyOrNull(keyOf(s, tenantId, id))),
    listByTenant: (tenantId, { limit }) =>
      run((s) =>
        [...s.apiKeys.values()]
          .filter((key) => key.tenantId === tenantId && key.revokedAt === null)
          .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id))
          .slice(0, limit)
          .map(copy),
      ),
    revoke: (tenantId, id, at) =>
      run((s) => {
        const key = keyOf(s, tenantId, id);
        if (!key || key.revokedAt !== null) return false;
        s.apiKeys.set(id, { ...key, revokedAt: new Date(at) });
        return true;
      }),
    revokeCreatedBy: (tenantId, userId, at) =>
      run((s) => {
        let revoked = 0;
        for (const key of s.apiKeys.values()) {
          if (key.tenantId !== tenantId || key.createdBy !== userId || key.revokedAt !== null) continue;
          s.apiKeys.set(key.id, { ...key, revokedAt: new Date(at) });
          revoked += 1;
        }
        return revoked;
      }),
    touchLastUsed: (tenantId, id, at, staleBefore) =>
      run((s) => {
        const key = keyOf(s, tenantId, id);
        if (!key) return false;
        if (key.lastUsedAt !== null && key.lastUsedAt.getTime() >= staleBefore.getTime()) return false;
        s.apiKeys.set(id, { ...key, lastUsedAt: new Date(at) });
        return true;
      }),
    deleteRetired: ({ before, batchSize }) =>
      run((s) => {
        checkBatchSize(batchSize);
        const retiredAt = (key: ApiKeyRecord) =>
          Math.min(key.revokedAt?.getTime() ?? Infinity, key.expiresAt?.getTime() ?? Infinity);
        const doomed = [...s.apiKeys.values()]
          .filter((key) => retiredAt(key) < before.getTime())
          .sort((a, b) => retiredAt(a) - retiredAt(b) || (a.id < b.id ? -1 : 1))
          .slice(0, batchSize);
        for (const key of doomed) {
          s.apiKeys.delete(key.id);
          s.apiKeyIdBySecretHash.delete(key.secretHash);
        }
        return doomed.length;
      }),
  };
}
