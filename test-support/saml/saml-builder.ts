// Moved to tenant-auth-core's testing entry point (the corpus is published there); re-exported for the
// repository's own test support.
export * from '../../packages/tenant-auth-core/src/testing/saml/saml-builder.js';
