// tenant-auth-core: what an application team uses, and the vocabulary every package shares (errors,
// roles, event types). Store authors: `tenant-auth-core/store-kit`. Tests: `tenant-auth-core/testing`.
// Deliberate re-exports of store-kit's: `TenantAuthStores`, `OutboxCounts` and `RateLimitStore`, the types
// of the `stores` and `rateLimit.store` options and of `outboxCounts()`.

export { createTenantAuth } from './facade/create-tenant-auth.js';
export type { RateLimitOptions, TenantAuthOptions } from './facade/options.js';
export type { TenantAuth } from './facade/tenant-auth.js';
export type { MailOptions } from './mechanisms/mail/mail-options.js';
export type { MailDeliveryResult } from './mechanisms/mail/mail-outbox.js';
export type {
  MailContent,
  MailTemplateData,
  MailTemplateName,
  MailTemplates,
} from './mechanisms/mail/templates.js';
export type { PasswordHasherOptions, PasswordHasherStats } from './mechanisms/passwords/hasher.js';
export type { PasswordPolicyOptions } from './mechanisms/passwords/policy.js';
export type { DataKey, DataKeysOptions } from './mechanisms/sealing/data-key.js';
export type {
  AccessKeyPair,
  AccessTokenKeyOptions,
  AsymmetricAlgorithm,
  KeyMaterial,
} from './mechanisms/tokens/keys.js';
export type { RelyingPartyOptions } from './mechanisms/webauthn/relying-party.js';
export { isRpIdOf } from './mechanisms/webauthn/relying-party.js';
export type { WebhookOptions } from './mechanisms/webhooks/webhook-options.js';
export type { MemoryRateLimitStoreOptions } from './memory/memory-rate-limit-store.js';
export { MemoryRateLimitStore } from './memory/memory-rate-limit-store.js';
export { createMemoryStores } from './memory/memory-stores.js';
export type {
  ApiKeyCheckOutcome,
  Instrumentation,
  MailDeliveryOutcome,
  PasswordHashingMeasurement,
  SpanName,
  WebhookDeliveryOutcome,
} from './ports/instrumentation.js';
export type { Logger } from './ports/logger.js';
export { consoleLogger } from './ports/logger.js';
export type { Mailer, MailMessage } from './ports/mailer.js';
export type { RateLimitStore } from './ports/rate-limit-store.js';
export type {
  DomainResolver,
  IdentityProvider,
  IdentityProviderConnection,
  IdentityProviderResult,
  ProvidedIdentity,
  ProviderConfiguration,
  ProviderDocument,
  ProviderFailure,
  ProviderStart,
  SsoSettings,
} from './ports/sso-ports.js';
export type { OutboxCounts, TenantAuthStores } from './ports/tenant-auth-stores.js';
export type { WebhookPostResult, WebhookSender } from './ports/webhook-sender.js';
export type { InputLimits, TenantAuthAccounts } from './use-cases/accounts/accounts.js';
export type { ChangeEmailInput } from './use-cases/accounts/email-address.js';
export type { LoginInput } from './use-cases/accounts/login.js';
export type { ChangePasswordInput, ResetPasswordInput } from './use-cases/accounts/password-recovery.js';
export type { RegisterInput } from './use-cases/accounts/registration.js';
export type { CreateApiKeyInput, CreatedApiKey } from './use-cases/api-keys/api-key-management.js';
export type { TenantAuthApiKeys } from './use-cases/api-keys/api-keys.js';
export type { TenantAuthAudit } from './use-cases/audit/audit.js';
export type { AuditEventListInput, AuditEventPage } from './use-cases/audit/audit-log.js';
export type { CleanupResult } from './use-cases/maintenance/cleanup.js';
export type {
  ScheduledWork,
  TenantAuthMaintenance,
  TenantAuthStats,
} from './use-cases/maintenance/maintenance.js';
export type { ResealCounts, ResealResult } from './use-cases/maintenance/reseal.js';
export type { AcceptInvitationInput, CreateInvitationInput } from './use-cases/members/invitations.js';
export type { TenantAuthMembers } from './use-cases/members/members.js';
export type { UpdateMemberInput } from './use-cases/members/membership.js';
export type { TenantAuthMfa } from './use-cases/mfa/mfa.js';
export type {
  AddPasskeyInput,
  AddPasskeyResult,
  PasskeyInfo,
  PasskeyLoginInput,
  TenantAuthPasskeys,
} from './use-cases/passkeys/passkey-types.js';
export type { TenantAuthScim } from './use-cases/scim/scim-types.js';
export type { TenantAuthSessions } from './use-cases/sessions/sessions.js';
export type { TenantAuthSso } from './use-cases/sso/sso.js';
export type {
  ConfigureSsoInput,
  Domain,
  SsoCallback,
  SsoCompletion,
  SsoConnection,
  SsoOptions,
  SsoStart,
} from './use-cases/sso/sso-types.js';
export type {
  CreatedWebhook,
  CreateWebhookInput,
  UpdateWebhookInput,
  Webhook,
  WebhookDelivery,
  WebhookDeliveryListInput,
  WebhookDeliveryPage,
  WebhookDeliveryRun,
} from './use-cases/webhooks/webhook-types.js';
export type { TenantAuthWebhooks } from './use-cases/webhooks/webhooks.js';
export type {
  AuthEvent,
  AuthEventBase,
  AuthEventType,
  LoginFailureReason,
  UnattributedEventBase,
} from './vocabulary/auth-event.js';
export type {
  AccessClaims,
  ApiKeyClaims,
  AuthMethod,
  Principal,
  RegisterResult,
  TokenResponse,
} from './vocabulary/claims.js';
export { AUTH_METHODS, isApiKeyPrincipal } from './vocabulary/claims.js';
export type { Clock, RandomBytes } from './vocabulary/clock.js';
export type {
  FieldError,
  FieldErrorCode,
  TenantAuthErrorCode,
  TenantAuthErrorOptions,
} from './vocabulary/errors.js';
export {
  configurationError,
  ERROR_CODES,
  ERROR_STATUS,
  FIELD_ERROR_CODES,
  fieldError,
  isTenantAuthError,
  TenantAuthError,
  validationError,
} from './vocabulary/errors.js';
export { isUuid } from './vocabulary/ids.js';
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
} from './vocabulary/mfa-types.js';
export { MFA_METHODS } from './vocabulary/mfa-types.js';
export type { ClientBudget, RateLimitBudget, RateLimitResult } from './vocabulary/rate-limit-result.js';
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
} from './vocabulary/records.js';
export { ACTOR_TYPES, AUDIT_EVENT_TYPES } from './vocabulary/records.js';
export type { Role } from './vocabulary/roles.js';
export { ROLES } from './vocabulary/roles.js';
export type {
  ScimClaims,
  ScimGroup,
  ScimGroupFields,
  ScimGroupRole,
  ScimList,
  ScimSettings,
  ScimUser,
  ScimUserFields,
  ScimUserFilter,
} from './vocabulary/scim.js';
export type { SsoErrorCode } from './vocabulary/sso-error-codes.js';
export { SSO_ERROR_CODES } from './vocabulary/sso-error-codes.js';
export type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from './vocabulary/webauthn-options.js';
