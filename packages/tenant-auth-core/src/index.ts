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
export type {
  ClientIpKeyOptions,
  LoginThrottle,
  LoginThrottleOptions,
  MemoryRateLimitStoreOptions,
  RateLimiter,
  RateLimiterOptions,
  RateLimitLogger,
  RateLimitResult,
  StoreErrorPolicy,
} from './rate-limit/index.js';
export {
  checkHitOptions,
  clientIpKey,
  createLoginThrottle,
  createRateLimiter,
  MemoryRateLimitStore,
  RATE_LIMIT_DEFAULTS,
  SLIDING_LOG_ENTRY_CAP,
  slidingLogSlotMs,
  UNKNOWN_IP_KEY,
} from './rate-limit/index.js';
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
