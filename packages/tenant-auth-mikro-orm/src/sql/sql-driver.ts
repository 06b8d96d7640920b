/**
 * What the SQL stores ({@link createSqlStores}) need of a PostgreSQL connection: run a statement for its
 * rows, run one for the number of rows it changed, and run a function in a transaction. The stores hold
 * every statement; a driver only carries them to the database (lucia v3's adapter controller is the
 * model). Statements use `?` placeholders, one per parameter, in order (`numberParameters` turns them into
 * pg's `$1`, `$2`, …). Parameters are strings (timestamps as ISO 8601, arrays as `{a,b}` literals cast in
 * the statement), numbers, booleans and `null`.
 *
 * A driver rejects with its database's error as it comes (the stores map it to a `TenantAuthError` with
 * no row values: `email_taken`, `unavailable`, `internal_error`, …), or with a `TenantAuthError` of its
 * own mapping, which passes unchanged.
 *
 * @example
 * // On a pg pool; recipes/add-a-store-backend has the whole driver, its transaction on one connection.
 * const query = (sql: string, params: readonly unknown[]) => pool.query(numberParameters(sql), [...params]);
 * const driver: SqlDriver = {
 *   rows: async (sql, params) => (await query(sql, params)).rows,
 *   execute: async (sql, params) => (await query(sql, params)).rowCount ?? 0,
 *   transaction: (fn) => onOneConnection(pool, fn),
 * };
 * const auth = createTenantAuth({ stores: createSqlStores(driver), accessToken: { secret }, refreshSecret });
 */
export interface SqlDriver {
  /**
   * The schema the tenant-auth tables are in, when it is not the one the connection finds them in by
   * itself (its `search_path`); read for every statement.
   */
  readonly schema?: string | undefined;
  /** Runs `sql` and resolves to the rows it returned, each an object keyed by column name. */
  rows<T>(sql: string, params: readonly unknown[]): Promise<T[]>;
  /** Runs `sql` and resolves to the number of rows it inserted, changed or deleted. */
  execute(sql: string, params: readonly unknown[]): Promise<number>;
  /**
   * Runs `fn` in one database transaction, with a driver whose statements run in it: committed when `fn`
   * resolves, rolled back when it rejects (with what `fn` threw, unchanged). On a driver that is already
   * in a transaction, `fn` runs in that one.
   */
  transaction<T>(fn: (tx: SqlDriver) => Promise<T>): Promise<T>;
}

/**
 * A statement with `?` placeholders (as the SQL stores write them) with pg's numbered ones instead: the
 * first `?` becomes `$1`, the next `$2`, and so on. A `?` inside a quoted literal or identifier stays.
 *
 * @example
 * numberParameters('select id from t where a = ? and b = ?'); // 'select id from t where a = $1 and b = $2'
 */
export function numberParameters(sql: string): string {
  let n = 0;
  let out = '';
  let quote: string | undefined;
  for (const char of sql) {
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
      out += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      out += char;
    } else {
      out += char === '?' ? `$${++n}` : char;
    }
  }
  return out;
}
