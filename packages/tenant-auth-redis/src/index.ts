export type { RedisRateLimitStoreOptions, RedisScriptClient } from './redis-rate-limit-store.js';
export { RedisRateLimitStore } from './redis-rate-limit-store.js';
