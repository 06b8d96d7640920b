// Public names of the rate-limit module. The conformance suite (./conformance.ts) is re-exported from
// `tenant-auth-core/testing` only.
export type { ClientIpKeyOptions } from './client-ip-key.js';
export { clientIpKey, UNKNOWN_IP_KEY } from './client-ip-key.js';
export { RATE_LIMIT_DEFAULTS } from './defaults.js';
export type { LoginThrottle, LoginThrottleOptions } from './login-throttle.js';
export { createLoginThrottle } from './login-throttle.js';
export type { MemoryRateLimitStoreOptions } from './memory-rate-limit-store.js';
export { MemoryRateLimitStore } from './memory-rate-limit-store.js';
export type {
  RateLimiter,
  RateLimiterOptions,
  RateLimitLogger,
  RateLimitResult,
  StoreErrorPolicy,
} from './rate-limiter.js';
export { createRateLimiter } from './rate-limiter.js';
// The parameters of the sliding log, for stores that run the same algorithm elsewhere (tenant-auth-redis in Lua).
export {
  checkHitOptions,
  ENTRY_CAP as SLIDING_LOG_ENTRY_CAP,
  slotMs as slidingLogSlotMs,
} from './sliding-log.js';
