// tenant-auth-mikro-orm/sql: the stores' SQL over a driver of your own (pg, PGlite, Kysely, …); no MikroORM
// is imported from here. The tables are the ones the tenant-auth migrations create.

export { createSqlStores } from './create-sql-stores.js';
export type { SqlDriver } from './sql-driver.js';
export { numberParameters } from './sql-driver.js';
