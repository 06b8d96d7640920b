// tenant-auth-client: a typed client of the tenant-auth HTTP API for browsers and Node, on fetch alone.

export type { RegisterResult, RequestInput, SignInResult, TenantAuthClient } from './client.js';
export { createTenantAuthClient } from './client.js';
export type {
  Accepted,
  AcceptInvitationRequest,
  AuditEvent,
  AuditEventPage,
  AuditEventType,
  ChangeEmailRequest,
  ChangeMemberRoleRequest,
  ChangePasswordRequest,
  ConfirmEmailChangeRequest,
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
  Member,
  MemberList,
  OperationId,
  OperationSpec,
  OperationTypes,
  Problem,
  ProblemCode,
  RefreshRequest,
  RegisterRequest,
  RegisterResponse,
  ResetPasswordRequest,
  RevokeAllSessionsQuery,
  RevokedCount,
  Role,
  Session,
  SessionList,
  Tenant,
  TokenResponse,
  TokenSession,
  User,
  VerifyEmailRequest,
} from './contract.generated.js';
export {
  AUDIT_EVENT_TYPES,
  FIELD_ERROR_CODES,
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
