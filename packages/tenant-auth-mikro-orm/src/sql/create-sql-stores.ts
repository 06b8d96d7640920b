import type { CompleteTenantAuthStores, CompleteTransactionStores } from 'tenant-auth-core/store-kit';
import type { SqlDriver } from './sql-driver.js';
import { sqlStoreError } from './store-errors.js';
import { sqlApiKeyStore } from './stores/sql-api-key-store.js';
import { sqlAuditEventStore } from './stores/sql-audit-event-store.js';
import { sqlFactorStore } from './stores/sql-factor-store.js';
import { sqlOneTimeTokenStore } from './stores/sql-one-time-token-store.js';
import { sqlOutboxStore } from './stores/sql-outbox-store.js';
import { sqlPasskeyStore } from './stores/sql-passkey-store.js';
import { sqlScimStore } from './stores/sql-scim-store.js';
import { sqlSealedValueVerbs } from './stores/sql-sealed-values.js';
import { sqlSessionStore } from './stores/sql-session-store.js';
import { sqlSsoStore } from './stores/sql-sso-store.js';
import { sqlTenantStore } from './stores/sql-tenant-store.js';
import { sqlUserStore } from './stores/sql-user-store.js';
import { sqlWebhookStore } from './stores/sql-webhook-store.js';

/**
 * The stores whose statements run on `driver` (outside a transaction, or in the one it is bound to); with
 * `batchedReads`, reads by id share statements (batched-reads.ts).
 */
function storesOn(driver: SqlDriver, batchedReads: boolean): CompleteTransactionStores {
  // The re-seal verbs of every sealed column, kept together (sql-sealed-values.ts).
  const sealed = sqlSealedValueVerbs(driver);
  return {
    tenants: sqlTenantStore(driver, { batchedReads }),
    users: sqlUserStore(driver, { batchedReads }),
    sessions: sqlSessionStore(driver),
    oneTimeTokens: sqlOneTimeTokenStore(driver),
    outbox: { ...sqlOutboxStore(driver), ...sealed.outbox },
    auditEvents: sqlAuditEventStore(driver),
    factors: { ...sqlFactorStore(driver), ...sealed.factors },
    passkeys: sqlPasskeyStore(driver),
    sso: { ...sqlSsoStore(driver), ...sealed.sso },
    apiKeys: sqlApiKeyStore(driver),
    webhooks: sqlWebhookStore(driver),
    scim: sqlScimStore(driver),
  };
}

/**
 * Every tenant-auth store in PostgreSQL's SQL, over any driver that can run a statement and a transaction
 * ({@link SqlDriver}): what `createTenantAuth({ stores })` takes. The tables are the ones the tenant-auth
 * migrations create (`runTenantAuthMigrations`). Guarantees are in SQL: unique constraints decide emails
 * and slugs, rotation is one conditional `UPDATE`, consuming a one-time token or a challenge is one
 * `DELETE ... RETURNING`, `tenants.lock` is `SELECT ... FOR NO KEY UPDATE`, outbox claims and cleanup skip
 * each other's rows (`FOR UPDATE SKIP LOCKED`), and `transaction()` is `driver.transaction`. What a
 * driver throws becomes a `TenantAuthError` (`email_taken`, `slug_taken`, `validation_failed`,
 * `unavailable`, `internal_error`) whose cause never holds row values. `createMikroOrmStores` is this over
 * MikroORM's connection.
 *
 * @example
 * // pgDriver: a SqlDriver on a pg pool, as recipes/add-a-store-backend writes it.
 * const stores = createSqlStores(pgDriver(new pg.Pool({ connectionString: process.env.DATABASE_URL })));
 * const auth = createTenantAuth({ stores, accessToken: { secret }, refreshSecret });
 */
export function createSqlStores(driver: SqlDriver): CompleteTenantAuthStores {
  return sqlStores(driver, { batchedReads: false });
}

/**
 * @internal {@link createSqlStores}, and with `batchedReads` a tenant or a user read by id outside a
 * transaction shares its statement with the reads asked for while one is out (batched-reads.ts). A shared
 * statement runs in the asynchronous context of the request that sent it, so only for a driver whose
 * statements depend on nothing of the asking request but the table names, which are resolved when a read
 * is asked for (MikroORM's: its schema can be a request's); a driver of the application's own may set a
 * role or a setting per request, so `createSqlStores` leaves them unbatched.
 */
export function sqlStores(driver: SqlDriver, options: { batchedReads: boolean }): CompleteTenantAuthStores {
  return {
    ...storesOn(driver, options.batchedReads),
    async transaction(fn) {
      let failedInside = false;
      try {
        return await driver.transaction(async (tx) => {
          try {
            return await fn(storesOn(tx, false));
          } catch (err) {
            failedInside = true;
            throw err;
          }
        });
      } catch (err) {
        // What the function threw is its own; what opening or committing threw (a deferred constraint, a
        // lost connection) is the database's.
        throw failedInside ? err : sqlStoreError(err);
      }
    },
  };
}
