// tenant-auth-core/store-kit: what a storage adapter's author needs, and only that: the store
// contracts, the records they read and write, and the helpers a store shares with core. The vocabulary
// a store shares with applications (TenantAuthError, configurationError, Role, AuditEventType, Clock,
// isUuid) is imported from the main entry point; the conformance suites are in
// `tenant-auth-core/testing`.
//
// Deliberate re-exports: `TenantAuthStores`, `OutboxCounts` and `RateLimitStore` are also exported by the
// main entry point, which types `createTenantAuth`'s `stores` and `rateLimit.store` options and
// `outboxCounts()` with them; their home is here, the contracts an adapter implements.

export { normalizeUuid, uuidv7 } from './ids.js';
export type { RateLimitHit, RateLimitHitOptions, RateLimitStore } from './rate-limit/rate-limit-store.js';
export { RateLimitStoreFullError } from './rate-limit/rate-limit-store.js';
// For authors of rate-limit stores (tenant-auth-redis): the sliding log's bounds, so a store counts
// exactly as the in-memory one does.
export {
  checkHitOptions,
  ENTRY_CAP as SLIDING_LOG_ENTRY_CAP,
  slotMs as slidingLogSlotMs,
} from './rate-limit/sliding-log.js';
export type {
  AuditEventRecord,
  OneTimeTokenKind,
  OneTimeTokenRecord,
  OutboxMessageRecord,
  SessionRecord,
  TenantRecord,
  UserRecord,
} from './records.js';
export { ONE_TIME_TOKEN_KINDS } from './records.js';
export type { ApiKeyRecord, ApiKeyStore } from './stores/api-key-store.js';
export type {
  FactorStore,
  MfaChallengePurpose,
  MfaChallengeRecord,
  TotpFactorRecord,
} from './stores/factor-store.js';
export type {
  PasskeyRecord,
  PasskeyStore,
  WebAuthnChallengePurpose,
  WebAuthnChallengeRecord,
} from './stores/passkey-store.js';
export type {
  DomainRecord,
  SsoConnectionRecord,
  SsoIdentityRecord,
  SsoStore,
} from './stores/sso-store.js';
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
