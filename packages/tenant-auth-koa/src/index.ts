// tenant-auth-koa: tenant-auth on a Koa application, through one factory.

export type {
  ApiKeyAuthContext,
  AuthContext,
  AuthState,
  OptionalAuthState,
  PrincipalContext,
  PrincipalState,
  TokenSource,
} from './auth-state.js';
export type { CookieOptions, ResolvedCookieOptions } from './cookies.js';
export type { CorsOptions } from './cors.js';
export type { RequireAuthOptions, RequireRecentAuthOptions } from './guards.js';
export type { HealthCheckOptions } from './health.js';
export type { OpenTelemetrySpanOptions } from './open-telemetry.js';
export { openTelemetrySpan } from './open-telemetry.js';
export type { OpenApiInfo } from './openapi.js';
export { DEVELOPMENT_ORIGINS, originProblem } from './origins.js';
export type { ProblemDetails } from './problem.js';
export { respondWithProblem } from './problem.js';
// Also exported by tenant-auth-koa/contract, the home of the contract's lists and types: `ProblemDetails`
// is typed by it, so it is here too (the one name this entry shares with the contract's).
export type { ProblemCode } from './problem-codes.js';
export { requestBody } from './request-body.js';
export type { ResponseInfo } from './response-hook.js';
export { UNMATCHED_ROUTE } from './response-hook.js';
export type { ScimOptions } from './scim/scim-options.js';
export type { TenantAuthKoa, TenantAuthKoaOptions } from './tenant-auth-koa.js';
export { createTenantAuthKoa } from './tenant-auth-koa.js';
