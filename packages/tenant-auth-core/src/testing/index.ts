// tenant-auth-core/testing: conformance suites for store authors and helpers for tests.

export type { RateLimitStore } from '../ports/rate-limit-store.js';
export type { TenantAuthStores } from '../ports/tenant-auth-stores.js';
export type { Clock } from '../vocabulary/clock.js';
export { ManualClock } from './manual-clock.js';
export type { RateLimitStoreConformanceOptions } from './rate-limit-store-conformance.js';
export { runRateLimitStoreConformance } from './rate-limit-store-conformance.js';
export type {
  SamlCorpusCase,
  SamlCorpusExpectation,
  SamlCorpusServiceProvider,
  SamlCorpusWorld,
  SamlCorpusWorldOptions,
  SamlSigner,
} from './saml/saml-corpus.js';
export {
  CORPUS_ATTACKER,
  CORPUS_USER,
  corpusConnection,
  createSamlCorpusWorld,
  SAML_CORPUS,
} from './saml/saml-corpus.js';
export type { TestCertificate } from './saml/x509.js';
export type { StoreConformanceOptions } from './store-conformance.js';
export { runStoreConformance } from './store-conformance.js';
export type { Assertions, TestApi } from './test-api.js';
