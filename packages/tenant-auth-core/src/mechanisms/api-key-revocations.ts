/**
 * @internal A count, per process, of the changes that end API keys: a revocation through this process, and
 * the deactivation or removal of a user (whose keys end with it in the same transaction). The cache of
 * verified keys trusts an entry only while the count is what it was when the entry was made, so a key ended
 * through this process stops at once, whatever ended it; another instance's changes are seen within the
 * cache's few seconds.
 */
export interface ApiKeyRevocations {
  /** The count now. */
  readonly current: number;
  /** Counts one more change (call it once the change is committed). */
  bump(): void;
}

/** @internal */
export function createApiKeyRevocations(): ApiKeyRevocations {
  let current = 0;
  return {
    get current() {
      return current;
    },
    bump() {
      current += 1;
    },
  };
}
