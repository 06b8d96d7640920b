export type { AuthMiddlewareOptions } from './auth-middleware.js';
export { optionalAuth, requireAuth } from './auth-middleware.js';
export type { AuthRouterOptions, HealthCheckOptions } from './auth-router.js';
export { createAuthRouter } from './auth-router.js';
export type { AuthContext, AuthState, OptionalAuthState, TokenSource } from './auth-state.js';
export type { CookieOptions, ResolvedCookieOptions } from './cookies.js';
export { clearTokenCookies, readCookie, resolveCookieOptions, setTokenCookies } from './cookies.js';
export type { CorsOptions } from './cors.js';
export { corsMiddleware } from './cors.js';
export { assertSameOriginRequest, isUnsafeMethod } from './csrf.js';
export type { ErrorHandlerOptions, ProblemDetails } from './error-handler.js';
export { errorHandler, respondWithProblem } from './error-handler.js';
export type { JsonBodyOptions } from './json-body.js';
export { DEFAULT_BODY_LIMIT_BYTES, hasForbiddenKey, jsonBody } from './json-body.js';
export type { TenantAuthLogger } from './logger.js';
export { consoleLogger } from './logger.js';
export type { OpenApiDocumentOptions, OpenApiInfo } from './openapi.js';
export { buildOpenApiDocument } from './openapi.js';
export { DEV_ORIGINS, normalizeOrigins, requestOrigin } from './origins.js';
export type { RateLimitMiddlewareOptions } from './rate-limit.js';
export { rateLimit, setRateLimitHeaders } from './rate-limit.js';
export { requestContext } from './request-context.js';
export { MAX_TOKEN_LENGTH, readBearerToken } from './request-tokens.js';
export {
  fieldErrorSchema,
  healthSchema,
  jwksSchema,
  problemSchema,
  publicUserSchema,
  registerResponseSchema,
  revokedCountSchema,
  sessionListSchema,
  sessionSchema,
  tenantSchema,
  tokenResponseSchema,
} from './response-schemas.js';
export type { RegisterResponseJson, SessionJson, TenantJson, TokenResponseJson } from './serialize.js';
export { toRegisterResponse, toSessionJson, toTenantJson, toTokenResponse } from './serialize.js';
export type { TenantAuthKoa, TenantAuthKoaOptions } from './tenant-auth-koa.js';
export { createTenantAuthKoa, mountTenantAuth } from './tenant-auth-koa.js';
