import type { AccessClaims, TenantAuth } from './api-types.js';
import { type Clock, type RandomBytes, systemClock, systemRandom } from './clock.js';
import { TenantAuthError } from './errors.js';
import { createLogin } from './login.js';
import { createPasswordHasher, type PasswordHasher, type PasswordHasherOptions } from './passwords/hasher.js';
import { createPasswordPolicy, type PasswordPolicyOptions } from './passwords/policy.js';
import { createLoginThrottle } from './rate-limit/login-throttle.js';
import type { RateLimitLogger, StoreErrorPolicy } from './rate-limit/rate-limiter.js';
import { createRegistration } from './registration.js';
import { type AuthEvent, emitter } from './sessions/events.js';
import { createSessionManager, isUuid } from './sessions/session-manager.js';
import type { RateLimitStore, SessionStore, TenantAuthStore } from './stores/types.js';
import type { AccessTokenKeyOptions } from './tokens/keys.js';
import { createTokenService } from './tokens/token-service.js';
import type { Tenant } from './types.js';

const DAY = 86_400;

export interface TenantAuthOptions {
  /** Tenants and users. */
  store: TenantAuthStore;
  /** Sessions. */
  sessionStore: SessionStore;
  /** Access-token signing: `{ secret }` (HS256, >= 32 bytes) or `{ algorithm: 'EdDSA' | 'ES256', keys }`. */
  accessToken: AccessTokenKeyOptions;
  /** HS256 secret for refresh tokens (>= 32 bytes, different from the access secret). */
  refreshSecret: string | Uint8Array;
  /** `iss` of the tokens. Default `'tenant-auth'`. */
  issuer?: string;
  /** `aud` of the tokens. Default `'tenant-auth'`. */
  audience?: string;
  /** Default 900 (15 minutes). */
  accessTokenTtlSeconds?: number;
  /** Default 604800 (7 days); also the sliding session expiry. */
  refreshTokenTtlSeconds?: number;
  /** Hard session lifetime from login. Default 30 days. */
  sessionAbsoluteTtlSeconds?: number;
  /** Refresh race grace period. Default 10; 0 turns it off. */
  refreshReuseGraceSeconds?: number;
  /** How long revoked sessions are kept (for audit) before cleanup deletes them. Default 30 days. */
  revokedSessionRetentionSeconds?: number;
  /** Rows per cleanup batch. Default 1000. */
  cleanupBatchSize?: number;
  /** Password policy rules (all configurable). */
  passwordPolicy?: PasswordPolicyOptions;
  /** bcrypt cost, pepper, pool size and queue bound. */
  passwordHashing?: PasswordHasherOptions;
  /** A hasher of your own (e.g. one shared across services); `passwordHashing` is then ignored. */
  passwordHasher?: PasswordHasher;
  /** Per-account throttling of failed logins. Off unless a store is given. */
  loginThrottle?: {
    store: RateLimitStore;
    maxFailures?: number;
    windowSeconds?: number;
    onStoreError?: StoreErrorPolicy;
    /** Receives store-outage warnings (pino-compatible). Default `console.warn`. */
    logger?: RateLimitLogger;
    /** HMAC key for the per-email counter keys, so the store cannot confirm a guessed address. */
    secret?: string | Uint8Array;
  };
  /**
   * Check on every `verifyAccessToken` that the session is still active, so a logout cuts access
   * tokens at once. `true` uses a 5 s cache of at most 10,000 sessions.
   */
  checkSessionOnVerify?: boolean | { cacheTtlMs?: number; cacheSize?: number };
  /** Audit hook: ids and IPs, never secrets. */
  onEvent?: (event: AuthEvent) => void;
  clock?: Clock;
  random?: RandomBytes;
}

function sessionCheckOptions(value: TenantAuthOptions['checkSessionOnVerify']) {
  if (!value) return undefined;
  const { cacheTtlMs = 5_000, cacheSize = 10_000 } = value === true ? {} : value;
  if (cacheTtlMs < 0 || cacheTtlMs > 60_000)
    throw new TypeError('checkSessionOnVerify.cacheTtlMs must be within 0..60000');
  if (!Number.isInteger(cacheSize) || cacheSize < 1)
    throw new TypeError('checkSessionOnVerify.cacheSize must be a positive integer');
  return { cacheTtlMs, cacheSize };
}

function nonNegativeInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 0) throw new TypeError(`${name} must be a non-negative integer`);
  return value;
}

/**
 * Composes the services of tenant-auth: registration, login, refresh rotation, logout, sessions,
 * tenant reads and JWKS.
 *
 * @example
 * const auth = createTenantAuth({
 *   store: new MemoryTenantAuthStore(),
 *   sessionStore: new MemorySessionStore(),
 *   accessToken: { secret: process.env.JWT_SECRET! },
 *   refreshSecret: process.env.JWT_REFRESH_SECRET!,
 * });
 * const { accessToken, refreshToken } = await auth.register({ email: 'ada@example.com', password: 'Correct-Horse-42' });
 * const claims = await auth.verifyAccessToken(accessToken);
 */
export function createTenantAuth(options: TenantAuthOptions): TenantAuth {
  const clock = options.clock ?? systemClock;
  const random = options.random ?? systemRandom;
  const emit = emitter(options.onEvent);
  const tokens = createTokenService({
    issuer: options.issuer ?? 'tenant-auth',
    audience: options.audience ?? 'tenant-auth',
    accessToken: options.accessToken,
    refreshSecret: options.refreshSecret,
    clock,
    random,
    ...(options.accessTokenTtlSeconds === undefined
      ? {}
      : { accessTokenTtlSeconds: options.accessTokenTtlSeconds }),
    ...(options.refreshTokenTtlSeconds === undefined
      ? {}
      : { refreshTokenTtlSeconds: options.refreshTokenTtlSeconds }),
  });
  const cleanupBatchSize = options.cleanupBatchSize ?? 1000;
  if (!Number.isInteger(cleanupBatchSize) || cleanupBatchSize < 1)
    throw new TypeError('cleanupBatchSize must be a positive integer');
  const sessions = createSessionManager({
    sessionStore: options.sessionStore,
    tokens,
    clock,
    random,
    emit,
    absoluteTtlSeconds: nonNegativeInteger(
      'sessionAbsoluteTtlSeconds',
      options.sessionAbsoluteTtlSeconds ?? 30 * DAY,
    ),
    reuseGraceSeconds: nonNegativeInteger('refreshReuseGraceSeconds', options.refreshReuseGraceSeconds ?? 10),
    revokedRetentionSeconds: nonNegativeInteger(
      'revokedSessionRetentionSeconds',
      options.revokedSessionRetentionSeconds ?? 30 * DAY,
    ),
    cleanupBatchSize,
    sessionCheck: sessionCheckOptions(options.checkSessionOnVerify),
  });
  const hasher = options.passwordHasher ?? createPasswordHasher(options.passwordHashing);
  const policy = createPasswordPolicy(options.passwordPolicy);
  let dummy: Promise<string> | undefined;
  const dummyHash = (): Promise<string> => {
    // A hash at the configured cost, so an unknown email costs the same compare as a known one.
    if (dummy) return dummy;
    const pending = hasher.hash(Buffer.from(random(32)).toString('base64url'));
    dummy = pending;
    pending.catch(() => {
      if (dummy === pending) dummy = undefined;
    });
    return pending;
  };
  const throttle = options.loginThrottle
    ? createLoginThrottle({
        store: options.loginThrottle.store,
        clock,
        ...(options.loginThrottle.maxFailures === undefined
          ? {}
          : { maxFailures: options.loginThrottle.maxFailures }),
        ...(options.loginThrottle.windowSeconds === undefined
          ? {}
          : { windowMs: options.loginThrottle.windowSeconds * 1000 }),
        ...(options.loginThrottle.onStoreError === undefined
          ? {}
          : { onStoreError: options.loginThrottle.onStoreError }),
      })
    : undefined;
  const { store } = options;
  const loadUser = (tenantId: string, userId: string) => store.findUserById(tenantId, userId);

  async function getTenant(claims: AccessClaims, tenantId: string): Promise<Tenant> {
    // Tenant scoping comes from the verified token only: any other id is "not found", never "forbidden".
    if (typeof tenantId !== 'string' || !isUuid(tenantId) || tenantId !== claims.tenantId) {
      throw new TenantAuthError('not_found', 'Not found.');
    }
    const tenant = await store.findTenantById(tenantId);
    if (!tenant) throw new TenantAuthError('not_found', 'Not found.');
    return tenant;
  }

  let cleanupRunning: Promise<number> | undefined;
  const cleanupSessions = () => {
    cleanupRunning ??= sessions.cleanup().finally(() => {
      cleanupRunning = undefined;
    });
    return cleanupRunning;
  };

  return {
    register: createRegistration({ store, hasher, policy, sessions, clock, random, emit }),
    login: createLogin({ store, hasher, sessions, dummyHash, throttle, emit }),
    refresh: (refreshToken, context = {}) => sessions.refresh(refreshToken, context, loadUser),
    async logout(token, context = {}) {
      await sessions.logout(token, context);
    },
    async verifyAccessToken(token) {
      const claims = await tokens.verifyAccessToken(token);
      await sessions.assertActive(claims);
      return claims;
    },
    listSessions: (claims) => sessions.list(claims),
    revokeSession: (claims, sessionId) => sessions.revokeOne(claims, sessionId),
    revokeAllSessions: (claims, revokeOptions) => sessions.revokeAll(claims, revokeOptions),
    getTenant,
    getMyTenant: (claims) => getTenant(claims, claims.tenantId),
    jwks: () => tokens.jwks(),
    cleanupSessions,
    startSessionCleanup({ intervalMs = 10 * 60_000, onError } = {}) {
      if (!Number.isInteger(intervalMs) || intervalMs < 1000)
        throw new TypeError('intervalMs must be an integer >= 1000');
      const timer = setInterval(() => {
        cleanupSessions().catch((err: unknown) => onError?.(err));
      }, intervalMs);
      timer.unref();
      return { stop: () => clearInterval(timer) };
    },
  };
}
