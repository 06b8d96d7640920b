// tenant-auth-koa: tenant-auth on a Koa application, through one factory.

export type { AuthContext, AuthState, OptionalAuthState, TokenSource } from './auth-state.js';
export type { CookieOptions, ResolvedCookieOptions } from './cookies.js';
export type { CorsOptions } from './cors.js';
export type { RequireAuthOptions } from './guards.js';
export type { HealthCheckOptions } from './health.js';
export type {
  AuditEventJson,
  InvitationJson,
  MemberJson,
  RegisterResponseJson,
  SessionJson,
  TenantJson,
  TokenResponseJson,
} from './http-contract.js';
export { requestBody } from './json-body.js';
export type { OpenTelemetrySpanOptions } from './open-telemetry.js';
export { openTelemetrySpan } from './open-telemetry.js';
export type { OpenApiInfo } from './openapi.js';
export { DEVELOPMENT_ORIGINS, originProblem } from './origins.js';
export type { ProblemDetails } from './problem.js';
export { respondWithProblem } from './problem.js';
export type { ProblemCode } from './problem-codes.js';
export { PROBLEM_CODES } from './problem-codes.js';
export type { ResponseInfo } from './response-hook.js';
export { UNMATCHED_ROUTE } from './response-hook.js';
export type { TenantAuthKoa, TenantAuthKoaOptions } from './tenant-auth-koa.js';
export { createTenantAuthKoa } from './tenant-auth-koa.js';
