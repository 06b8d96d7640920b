import type { CompleteTenantAuthStores } from 'tenant-auth-core/store-kit';
import { type EntityManagerSource, rootEntityManager } from './entity-manager-source.js';
import { mikroOrmSqlDriver } from './mikro-orm-sql-driver.js';
import { sqlStores } from './sql/create-sql-stores.js';

/**
 * Every tenant-auth store on the application's MikroORM (PostgreSQL or PGlite), or on one of its entity
 * managers: what `createTenantAuth({ stores })` takes. The stores run their SQL on the ORM's connection in
 * no transaction of the application's (or in their own `transaction()`, on a fork), and never initialise,
 * connect or close the ORM, so this is safe to call before the ORM has connected (`new MikroORM(...)` is
 * enough). Guarantees are in SQL: unique constraints decide emails and slugs, rotation is one conditional
 * `UPDATE`, consuming a one-time token is one `DELETE ... RETURNING`, `tenants.lock` is `SELECT ... FOR
 * UPDATE`, outbox claims skip each other's rows (`FOR UPDATE SKIP LOCKED`), `transaction()` is a database
 * transaction, and cleanup deletes in batches with `FOR UPDATE SKIP LOCKED`. Driver errors become
 * `TenantAuthError`s (`email_taken`, `slug_taken`, `unavailable`, `internal_error`) whose cause never holds
 * row values. The statements are `tenant-auth-mikro-orm/sql`'s, which another driver can run too.
 *
 * @example
 * const orm = new MikroORM({ entities: [...tenantAuthEntities, ...myEntities], clientUrl: process.env.DATABASE_URL });
 * const auth = createTenantAuth({ stores: createMikroOrmStores(orm), accessToken: { secret }, refreshSecret });
 * await runTenantAuthMigrations(orm);
 */
export function createMikroOrmStores(
  source: EntityManagerSource,
  options: MikroOrmStoresOptions = {},
): CompleteTenantAuthStores {
  // A statement outside a transaction runs on the root's connection in no transaction, as on a fresh fork
  // of it, without making one: forking was a tenth of the stores' own work on the refresh path.
  return sqlStores(
    mikroOrmSqlDriver(rootEntityManager(source), {
      preparedStatements: options.preparedStatements ?? true,
    }),
    // Reads by id outside a transaction share statements under load (batched-reads.ts).
    { batchedReads: true },
  );
}

/**
 * Options of {@link createMikroOrmStores}.
 *
 * @example
 * // Behind a pooler in transaction mode that cannot carry prepared statements (PgBouncer before 1.24
 * // without max_prepared_statements, Supavisor's transaction mode):
 * const stores = createMikroOrmStores(orm, { preparedStatements: false });
 */
export interface MikroOrmStoresOptions {
  /**
   * On PostgreSQL, send each statement as a named prepared statement on the ORM's `pg` pool: PostgreSQL
   * parses and plans it once per connection, and the values travel as parameters. `false` sends every
   * statement through the ORM's `execute` (its values formatted into the text). The stores take the ORM's
   * path anyway while the ORM logs queries (`debug`) or slow queries, runs hooks on its connections
   * (`onCreateConnection`, `onReserveConnection`, a session context), and, for transactions, has event
   * subscribers; `onQuery` sees every statement either way (one it rewrote is sent unnamed). Behind a
   * pooler in transaction mode without prepared statements the stores go on unnamed after the first
   * refusal; `false` avoids that one failure. No effect on PGlite. Default `true`.
   */
  preparedStatements?: boolean;
}
