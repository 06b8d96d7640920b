export { ManualClock } from '../clock.js';
export type { RateLimitStoreConformanceOptions } from '../rate-limit/conformance.js';
export { runRateLimitStoreConformance } from '../rate-limit/conformance.js';
export type { ConformanceStores, StoreConformanceOptions } from './store-conformance.js';
export { runStoreConformance } from './store-conformance.js';
export type { TestApi } from './test-api.js';
