export { ManualClock } from '../clock.js';
export type { ConformanceStores, StoreConformanceOptions } from './store-conformance.js';
export { runStoreConformance } from './store-conformance.js';
