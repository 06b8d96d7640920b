// tenant-auth-core/store-kit: what a storage adapter's author needs, and only that: the store
// contracts, the records they read and write, and the helpers a store shares with core. The vocabulary
// a store shares with applications (TenantAuthError, configurationError, Role, AuditEventType, Clock,
// isUuid) is imported from the main entry point; the conformance suites are in
// `tenant-auth-core/testing`.
//
// Deliberate re-exports: `TenantAuthStores`, `OutboxCounts` and `RateLimitStore` are also exported by the
// main entry point, which types `createTenantAuth`'s `stores` and `rateLimit.store` options and
// `outboxCounts()` with them; their home is here, the contracts an adapter implements.

export type { ApiKeyRecord, ApiKeyStore } from './ports/api-key-store.js';
export type {
  FactorLockRule,
  FactorLockState,
  FactorStore,
  MfaChallengePurpose,
  MfaChallengeRecord,
  TotpFactorRecord,
} from './ports/factor-store.js';
export type {
  PasskeyRecord,
  PasskeyStore,
  WebAuthnChallengePurpose,
  WebAuthnChallengeRecord,
} from './ports/passkey-store.js';
export type { RateLimitHit, RateLimitHitOptions, RateLimitStore } from './ports/rate-limit-store.js';
export { RateLimitStoreFullError } from './ports/rate-limit-store.js';
export type { ScimGroupRecord, ScimProfileRecord, ScimStore, ScimTokenRecord } from './ports/scim-store.js';
export type { SealedValuePage } from './ports/sealed-value-page.js';
// For authors of rate-limit stores (tenant-auth-redis): the sliding log's bounds, so a store counts
// exactly as the in-memory one does.
export {
  checkHitOptions,
  ENTRY_CAP as SLIDING_LOG_ENTRY_CAP,
  slotMs as slidingLogSlotMs,
} from './ports/sliding-log.js';
export type {
  DomainRecord,
  SsoConnectionRecord,
  SsoIdentityRecord,
  SsoStore,
  SsoUseOnceKey,
} from './ports/sso-store.js';
export type {
  AuditEventQuery,
  AuditEventStore,
  CompleteTenantAuthStores,
  CompleteTransactionStores,
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
} from './ports/tenant-auth-stores.js';
export type {
  ClaimedWebhookDelivery,
  WebhookAttemptOutcome,
  WebhookDeliveryRecord,
  WebhookDeliveryStatus,
  WebhookEndpointPatch,
  WebhookEndpointRecord,
  WebhookStore,
} from './ports/webhook-store.js';
export { normalizeUuid, uuidv7 } from './vocabulary/ids.js';
export type {
  AuditEventRecord,
  OneTimeTokenKind,
  OneTimeTokenRecord,
  OutboxMessageRecord,
  SessionRecord,
  TenantRecord,
  UserRecord,
} from './vocabulary/records.js';
export { authenticationOf, ONE_TIME_TOKEN_KINDS } from './vocabulary/records.js';
export { webhookDeliveryIdOf, webhookPayloadOf } from './vocabulary/webhook-payload.js';
