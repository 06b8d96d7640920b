const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * @internal Whether a string can be a key of a `uuid` column. Lookups by anything else find nothing,
 * instead of making PostgreSQL reject the query.
 */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
