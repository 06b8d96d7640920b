// tenant-auth-core: what an application team uses, and the vocabulary every package shares (errors,
// roles, event types). Store authors: `tenant-auth-core/store-kit`. Tests: `tenant-auth-core/testing`.
// Deliberate re-exports of store-kit's: `TenantAuthStores`, `OutboxCounts` and `RateLimitStore`, the types
// of the `stores` and `rateLimit.store` options and of `outboxCounts()`.

export type { ChangeEmailInput } from './accounts/email-address.js';
export type { LoginInput } from './accounts/login.js';
export type { ChangePasswordInput, ResetPasswordInput } from './accounts/password-recovery.js';
export type { RegisterInput } from './accounts/registration.js';
export type { CreateApiKeyInput, CreatedApiKey } from './api-keys/api-keys.js';
export type { AuditEventListInput, AuditEventPage } from './audit/audit-log.js';
export type {
  AccessClaims,
  ApiKeyClaims,
  AuthMethod,
  Principal,
  RegisterResult,
  TokenResponse,
} from './claims.js';
export { AUTH_METHODS, isApiKeyPrincipal } from './claims.js';
export type { CleanupResult } from './cleanup.js';
export type { Clock, RandomBytes } from './clock.js';
export { createTenantAuth } from './create-tenant-auth.js';
export type { FieldError, FieldErrorCode, TenantAuthErrorCode, TenantAuthErrorOptions } from './errors.js';
export {
  configurationError,
  ERROR_CODES,
  ERROR_STATUS,
  FIELD_ERROR_CODES,
  isTenantAuthError,
  TenantAuthError,
} from './errors.js';
export type {
  AuthEvent,
  AuthEventBase,
  AuthEventType,
  LoginFailureReason,
  UnattributedEventBase,
} from './events/auth-event.js';
export { isUuid } from './ids.js';
export type {
  ApiKeyCheckOutcome,
  Instrumentation,
  PasswordHashingMeasurement,
  SpanName,
} from './instrumentation.js';
export type { Logger } from './logger.js';
export { consoleLogger } from './logger.js';
export type { MailOptions } from './mail/mail-options.js';
export type { MailDeliveryOutcome, MailDeliveryResult } from './mail/mail-outbox.js';
export type { Mailer, MailMessage } from './mail/mailer.js';
export type { MailContent, MailTemplateData, MailTemplateName, MailTemplates } from './mail/templates.js';
export type { AcceptInvitationInput, CreateInvitationInput } from './members/invitations.js';
export type { Role } from './members/roles.js';
export { ROLES } from './members/roles.js';
export type {
  ConfirmTotpInput,
  ConfirmTotpResult,
  Me,
  MfaCaller,
  MfaChallenge,
  MfaMethod,
  ReauthenticateInput,
  SecurityPolicy,
  TotpSetup,
  VerifyMfaInput,
} from './mfa/mfa-types.js';
export { MFA_METHODS } from './mfa/mfa-types.js';
export type { RateLimitOptions, TenantAuthOptions } from './options.js';
export type {
  AddPasskeyInput,
  AddPasskeyResult,
  PasskeyInfo,
  PasskeyLoginInput,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  TenantAuthPasskeys,
} from './passkeys/passkey-types.js';
export type { PasswordHasherOptions, PasswordHasherStats } from './passwords/hasher.js';
export type { PasswordPolicyOptions } from './passwords/policy.js';
export type { MemoryRateLimitStoreOptions } from './rate-limit/memory-rate-limit-store.js';
export { MemoryRateLimitStore } from './rate-limit/memory-rate-limit-store.js';
export type { ClientBudget, RateLimitBudget, RateLimitResult } from './rate-limit/rate-limit-result.js';
export type { RateLimitStore } from './rate-limit/rate-limit-store.js';
export type {
  ActorType,
  ApiKey,
  AuditEvent,
  AuditEventType,
  Invitation,
  Member,
  PublicUser,
  RequestContext,
  SessionInfo,
  Tenant,
} from './records.js';
export { ACTOR_TYPES, AUDIT_EVENT_TYPES } from './records.js';
export type { DataKey, DataKeysOptions } from './sealing/data-key.js';
export type {
  DomainResolver,
  IdentityProvider,
  IdentityProviderClient,
  IdentityProviderResult,
  ProvidedIdentity,
} from './sso/sso-ports.js';
export type {
  ConfigureSsoInput,
  Domain,
  SsoCompletion,
  SsoConnection,
  SsoErrorCode,
  SsoOptions,
  SsoStart,
} from './sso/sso-types.js';
export { SSO_ERROR_CODES } from './sso/sso-types.js';
export { createMemoryStores } from './stores/memory/memory-stores.js';
export type { OutboxCounts, TenantAuthStores } from './stores/tenant-auth-stores.js';
export type { InputLimits, ScheduledWork, TenantAuth, TenantAuthStats } from './tenant-auth.js';
export type {
  AccessKeyPair,
  AccessTokenKeyOptions,
  AsymmetricAlgorithm,
  KeyMaterial,
} from './tokens/keys.js';
export type { RelyingPartyOptions } from './webauthn/relying-party.js';
export { isRpIdOf } from './webauthn/relying-party.js';
