export type { AccessClaims, AuthResult, RegisterResult, TenantAuth } from './api-types.js';
export type { Clock, RandomBytes } from './clock.js';
export { ManualClock, systemClock, systemRandom, uuidv7 } from './clock.js';
export type { TenantAuthOptions } from './create-tenant-auth.js';
export { createTenantAuth } from './create-tenant-auth.js';
export { DEVICE_INFO_MAX_LENGTH, describeUserAgent } from './device-info.js';
export type { ParsedEmail } from './email.js';
export { EMAIL_LOCAL_PART_MAX_LENGTH, EMAIL_MAX_LENGTH, normalizeEmail, parseEmail } from './email.js';
export type { FieldError, FieldErrorCode, TenantAuthErrorCode, TenantAuthErrorOptions } from './errors.js';
export { ERROR_STATUS, isTenantAuthError, TenantAuthError } from './errors.js';
export { getCommonPasswords } from './passwords/common-passwords.js';
export type { PasswordHasher, PasswordHasherOptions, PasswordHasherStats } from './passwords/hasher.js';
export { createPasswordHasher, MAX_BCRYPT_COST, MIN_BCRYPT_COST } from './passwords/hasher.js';
export type { PasswordContext, PasswordPolicy, PasswordPolicyOptions } from './passwords/policy.js';
export { createPasswordPolicy } from './passwords/policy.js';
export type { ClientIpKeyOptions } from './rate-limit/client-ip-key.js';
export { clientIpKey, UNKNOWN_IP_KEY } from './rate-limit/client-ip-key.js';
export { RATE_LIMIT_DEFAULTS } from './rate-limit/defaults.js';
export type { LoginThrottle, LoginThrottleOptions } from './rate-limit/login-throttle.js';
export { createLoginThrottle } from './rate-limit/login-throttle.js';
export type { MemoryRateLimitStoreOptions } from './rate-limit/memory-rate-limit-store.js';
export { MemoryRateLimitStore } from './rate-limit/memory-rate-limit-store.js';
export type {
  RateLimiter,
  RateLimiterOptions,
  RateLimitLogger,
  RateLimitResult,
  StoreErrorPolicy,
} from './rate-limit/rate-limiter.js';
export { createRateLimiter } from './rate-limit/rate-limiter.js';
export type { LoginInput, RegisterInput } from './schemas.js';
export { loginInputSchema, parseInput, refreshInputSchema, registerInputSchema } from './schemas.js';
export type { AuthEvent } from './sessions/events.js';
export { initialSlug, isValidSlug, slugify, withSlugSuffix } from './slug.js';
export { MemorySessionStore, MemoryTenantAuthStore } from './stores/memory.js';
export type {
  RateLimitHit,
  RateLimitStore,
  SessionRotation,
  SessionStore,
  TenantAuthStore,
} from './stores/types.js';
export type {
  AccessKeyPair,
  AccessTokenKeyOptions,
  AsymmetricAlgorithm,
  KeyMaterial,
  RefreshClaims,
  RefreshTokenFields,
  TokenService,
  TokenServiceOptions,
} from './tokens/index.js';
export {
  ACCESS_TOKEN_TYP,
  createTokenService,
  hashRefreshToken,
  MIN_SECRET_BYTES,
  REFRESH_TOKEN_TYP,
} from './tokens/index.js';
export type { PublicUser, RequestContext, Session, SessionInfo, Tenant, User } from './types.js';
