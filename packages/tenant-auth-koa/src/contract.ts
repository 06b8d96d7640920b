// tenant-auth-koa/contract: the HTTP contract of tenant-auth (API.md) as zod schemas, the ones the
// OpenAPI document is generated from, and the JSON types they describe. For clients and tests that want
// to validate what the server answers.

export type {
  AuditEventJson,
  InvitationJson,
  MemberJson,
  RegisterResponseJson,
  SessionJson,
  TenantJson,
  TokenResponseJson,
} from './http-contract.js';
export {
  acceptedSchema,
  auditEventPageSchema,
  auditEventSchema,
  auditEventTypeSchema,
  fieldErrorCodeSchema,
  fieldErrorSchema,
  healthSchema,
  invitationListSchema,
  invitationResponseSchema,
  invitationSchema,
  jwksSchema,
  memberListSchema,
  memberSchema,
  problemCodeSchema,
  problemSchema,
  publicUserSchema,
  registerResponseSchema,
  requestSchemas,
  revokedCountSchema,
  roleSchema,
  sessionListSchema,
  sessionSchema,
  tenantSchema,
  tokenResponseSchema,
} from './http-contract.js';
export type { ProblemCode } from './problem-codes.js';
export { PROBLEM_CODES } from './problem-codes.js';
