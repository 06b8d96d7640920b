// tenant-auth-client: a typed client of the tenant-auth HTTP API for browsers and Node, on fetch alone.

export type { ApiKeyClient, ApiKeyClientOptions, ApiKeyOperationId } from './api-key-client.js';
export { createApiKeyClient } from './api-key-client.js';
export type { RegisterResult, RequestInput, SignInResult, TenantAuthClient } from './client.js';
export { createTenantAuthClient } from './client.js';
export type {
  Accepted,
  AcceptInvitationRequest,
  ActorType,
  ApiKey,
  ApiKeyList,
  AuditEvent,
  AuditEventPage,
  AuditEventType,
  AuthMethod,
  ChangeEmailRequest,
  ChangeMemberRoleRequest,
  ChangePasswordRequest,
  ConfirmEmailChangeRequest,
  ConfirmTotpRequest,
  CreateApiKeyRequest,
  CreatedApiKey,
  CreateInvitationRequest,
  DeleteAccountRequest,
  FieldError,
  FieldErrorCode,
  ForgotPasswordRequest,
  Health,
  Invitation,
  InvitationList,
  InvitationResponse,
  Jwk,
  Jwks,
  ListAuditEventsQuery,
  LoginRequest,
  Me,
  Member,
  MemberList,
  MfaMethod,
  MfaState,
  OperationId,
  OperationSpec,
  OperationTypes,
  Problem,
  ProblemCode,
  ReauthenticateRequest,
  RecoveryCodes,
  RefreshRequest,
  RegisterRequest,
  RegisterResponse,
  ResetPasswordRequest,
  RevokeAllSessionsQuery,
  RevokedCount,
  Role,
  SecurityPolicy,
  Session,
  SessionList,
  SetSecurityPolicyRequest,
  SetupTotpRequest,
  Tenant,
  TokenResponse,
  TokenSession,
  TotpConfirmResponse,
  TotpSetup,
  User,
  VerifyEmailRequest,
  VerifyMfaRequest,
} from './contract.generated.js';
export {
  AUDIT_EVENT_TYPES,
  AUTH_METHODS,
  FIELD_ERROR_CODES,
  MFA_METHODS,
  OPERATIONS,
  PROBLEM_CODES,
  ROLES,
} from './contract.generated.js';
export type { BroadcastChannelLike, CrossTabMessage, CrossTabOptions, LockManagerLike } from './cross-tab.js';
export { isTenantAuthClientError, TenantAuthClientError } from './errors.js';
export type { ClientClock, ClientTimers, FetchLike, TenantAuthClientOptions } from './options.js';
export type { SessionChange, SignOutReason } from './session-change.js';
export type { SessionState, TokenStorage, Tokens } from './tokens.js';
export { memoryTokenStorage } from './tokens.js';
