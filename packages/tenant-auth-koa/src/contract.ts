// tenant-auth-koa/contract: the HTTP contract of tenant-auth (docs/http-api.md) as zod schemas, the ones the
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
  addPasskeyResponseSchema,
  amrSchema,
  apiKeyListSchema,
  apiKeySchema,
  auditEventPageSchema,
  auditEventSchema,
  auditEventTypeSchema,
  createdApiKeySchema,
  creationOptionsSchema,
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
  passkeyListSchema,
  passkeySchema,
  problemCodeSchema,
  problemSchema,
  publicUserSchema,
  recoveryCodesSchema,
  registerResponseSchema,
  requestOptionsSchema,
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
export type { ScimGroupRoleJson } from './scim-contract.js';
export {
  createdScimTokenSchema,
  scimGroupRoleSchema,
  scimGroupRolesSchema,
  scimResponseSchema,
  scimSettingsSchema,
} from './scim-contract.js';
export {
  domainListSchema,
  domainResponseSchema,
  domainSchema,
  ssoConnectionSchema,
  ssoResponseSchema,
  ssoStartSchema,
} from './sso-contract.js';
export type { WebhookDeliveryJson, WebhookJson } from './webhook-contract.js';
export {
  createdWebhookSchema,
  webhookAnswerSchema,
  webhookDeliveryPageSchema,
  webhookDeliverySchema,
  webhookListSchema,
  webhookSchema,
  webhookTestSchema,
} from './webhook-contract.js';
