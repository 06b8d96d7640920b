import type { SessionStore } from '../../ports/tenant-auth-stores.js';
import type { AccessClaims } from '../../vocabulary/claims.js';
import type { Clock } from '../../vocabulary/clock.js';
import { invalidToken } from '../../vocabulary/errors.js';

/** @internal Settings of the per-request session check. */
export interface SessionCheckSettings {
  cacheTtlMs: number;
  cacheSize: number;
}

/**
 * @internal The per-request session check: whether an access token's session is still active, with a
 * short bounded cache (oldest entry evicted first). Revocations made through this process invalidate
 * their entries at once; other instances see them after at most the cache TTL.
 */
export function createActiveSessionCache(
  sessions: SessionStore,
  clock: Clock,
  settings: SessionCheckSettings | undefined,
) {
  const cache = new Map<string, { active: boolean; until: number }>();
  return {
    async assertActive(claims: AccessClaims): Promise<void> {
      if (!settings) return;
      const nowMs = clock.now().getTime();
      const cached = cache.get(claims.sessionId);
      let active: boolean;
      if (cached && cached.until > nowMs) {
        active = cached.active;
      } else {
        const s = await sessions.findById(claims.tenantId, claims.sessionId);
        active = !!s && s.userId === claims.userId && s.revokedAt === null && s.expiresAt.getTime() > nowMs;
        if (cache.size >= settings.cacheSize) {
          const oldest = cache.keys().next();
          if (!oldest.done) cache.delete(oldest.value);
        }
        cache.set(claims.sessionId, { active, until: nowMs + settings.cacheTtlMs });
      }
      if (!active) throw invalidToken();
    },
    forget(sessionId: string): void {
      cache.delete(sessionId);
    },
    forgetAll(): void {
      cache.clear();
    },
  };
}

/** @internal */
export type ActiveSessionCache = ReturnType<typeof createActiveSessionCache>;
