/**
 * One page of the sealed values of one kind, across tenants (the re-seal after a data-key rotation pages
 * through every stored sealed value with it): the rows whose key comes after `after` (`null`: from the
 * first), in the order of that key, at most `limit`. Keyset pagination, so a page stays cheap however far
 * in, and rows written meanwhile are neither skipped twice nor read twice.
 *
 * @example
 * const page: SealedValuePage = { after: null, limit: 500 };
 * const first = await stores.factors.listSealedTotpSecrets?.(page);
 */
export interface SealedValuePage {
  /** The key of the last row of the previous page; `null` for the first page. */
  after: string | null;
  /** At most this many rows (a positive integer). */
  limit: number;
}
