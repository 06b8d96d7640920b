// tenant-auth-koa/contract: the HTTP contract of tenant-auth (API.md) as zod schemas, the ones the
// OpenAPI document is generated from, and the JSON types they describe. For clients and tests that want
// to validate what the server answers.

export type {
  ApiKeyJson,
  AuditEventJson,
  InvitationJson,
  MeJson,
  MemberJson,
  RegisterResponseJson,
  SessionJson,
  TenantJson,
  TokenResponseJson,
} from './http-contract.js';
export {
  acceptedSchema,
  actorTypeSchema,
  amrSchema,
  apiKeyListSchema,
  apiKeySchema,
  auditEventPageSchema,
  auditEventSchema,
  auditEventTypeSchema,
  createdApiKeySchema,
  fieldErrorCodeSchema,
  fieldErrorSchema,
  healthSchema,
  invitationListSchema,
  invitationResponseSchema,
  invitationSchema,
  jwksSchema,
  memberListSchema,
  memberSchema,
  meSchema,
  mfaMethodSchema,
  problemCodeSchema,
  problemSchema,
  publicUserSchema,
  recoveryCodesSchema,
  registerResponseSchema,
  requestSchemas,
  revokedCountSchema,
  roleSchema,
  securityPolicySchema,
  sessionListSchema,
  sessionSchema,
  tenantSchema,
  tokenResponseSchema,
  totpConfirmResponseSchema,
  totpSetupSchema,
} from './http-contract.js';
export type { ProblemCode } from './problem-codes.js';
export { PROBLEM_CODES } from './problem-codes.js';
