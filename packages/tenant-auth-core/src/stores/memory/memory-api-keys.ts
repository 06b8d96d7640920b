import type { ApiKeyRecord, ApiKeyStore } from '../api-key-store.js';
import type { MemoryState } from './memory-database.js';
import { copy, copyOrNull, type Run } from './memory-run.js';

function keyOf(s: MemoryState, tenantId: string, id: string): ApiKeyRecord | undefined {
  const key = s.apiKeys.get(id);
  return key?.tenantId === tenantId ? key : undefined;
}

/** @internal The API key store on the memory database: each verb runs alone, so each is atomic. */
export function memoryApiKeyStore(run: Run): ApiKeyStore {
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
    touchLastUsed: (tenantId, id, at, staleBefore) =>
      run((s) => {
        const key = keyOf(s, tenantId, id);
        if (!key) return false;
        if (key.lastUsedAt !== null && key.lastUsedAt.getTime() >= staleBefore.getTime()) return false;
        s.apiKeys.set(id, { ...key, lastUsedAt: new Date(at) });
        return true;
      }),
  };
}
