// tenant-auth-core/store-kit: what a storage adapter's author needs. Application teams use the main
// entry point; the conformance suites are in `tenant-auth-core/testing`.

export type { Clock, RandomBytes } from './clock.js';
export type { TenantAuthErrorCode } from './errors.js';
export { configurationError, TenantAuthError } from './errors.js';
export { isUuid, normalizeUuid, uuidv7 } from './ids.js';
export type { RateLimitHit, RateLimitHitOptions, RateLimitStore } from './rate-limit/rate-limit-store.js';
export { RateLimitStoreFullError } from './rate-limit/rate-limit-store.js';
export {
  checkHitOptions,
  ENTRY_CAP as SLIDING_LOG_ENTRY_CAP,
  slotMs as slidingLogSlotMs,
} from './rate-limit/sliding-log.js';
export type {
  AuditEvent,
  AuditEventType,
  OneTimeToken,
  OneTimeTokenKind,
  OutboxMessage,
  Session,
  Tenant,
  User,
} from './records.js';
export { ONE_TIME_TOKEN_KINDS } from './records.js';
export type {
  AuditEventQuery,
  AuditEventStore,
  OneTimeTokenStore,
  OutboxCounts,
  OutboxStore,
  SessionRotation,
  SessionStore,
  SessionWithUser,
  TenantAuthStores,
  TenantStore,
  TransactionStores,
  UserStore,
} from './stores/tenant-auth-stores.js';
