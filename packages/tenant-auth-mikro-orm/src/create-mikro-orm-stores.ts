import type { EntityManager } from '@mikro-orm/core';
import type { TenantAuthStores, TransactionStores } from 'tenant-auth-core/store-kit';
import { type EntityManagerSource, rootEntityManager } from './entity-manager-source.js';
import { mikroOrmApiKeyStore } from './stores/mikro-orm-api-key-store.js';
import { mikroOrmAuditEventStore } from './stores/mikro-orm-audit-event-store.js';
import { mikroOrmFactorStore } from './stores/mikro-orm-factor-store.js';
import { mikroOrmOneTimeTokenStore } from './stores/mikro-orm-one-time-token-store.js';
import { mikroOrmOutboxStore } from './stores/mikro-orm-outbox-store.js';
import { mikroOrmPasskeyStore } from './stores/mikro-orm-passkey-store.js';
import { mikroOrmSessionStore } from './stores/mikro-orm-session-store.js';
import { mikroOrmSsoStore } from './stores/mikro-orm-sso-store.js';
import { mikroOrmTenantStore } from './stores/mikro-orm-tenant-store.js';
import { mikroOrmUserStore } from './stores/mikro-orm-user-store.js';
import { type SqlScope, sqlScopeOf } from './stores/sql.js';
import { toStoreError } from './to-store-error.js';

/**
 * The stores on `em` (an entity manager per operation: a fresh fork, or the transaction's) and `scope` (where
 * their SQL statements run).
 */
function storesOn(em: () => EntityManager, scope: () => SqlScope): TransactionStores {
  return {
    tenants: mikroOrmTenantStore(em, scope),
    users: mikroOrmUserStore(em, scope),
    sessions: mikroOrmSessionStore(em, scope),
    oneTimeTokens: mikroOrmOneTimeTokenStore(em, scope),
    outbox: mikroOrmOutboxStore(em, scope),
    auditEvents: mikroOrmAuditEventStore(em, scope),
    factors: mikroOrmFactorStore(scope),
    passkeys: mikroOrmPasskeyStore(scope),
    sso: mikroOrmSsoStore(scope),
    apiKeys: mikroOrmApiKeyStore(scope),
  };
}

/**
 * Every tenant-auth store on the application's MikroORM (PostgreSQL or PGlite), or on one of its entity
 * managers: what `createTenantAuth({ stores })` takes. The stores fork the entity manager for every
 * operation that uses its entity API, run their SQL in no transaction of the application's (or in their
 * own `transaction()`), and never initialise, connect or close the ORM, so this is safe to call before the ORM has
 * connected (`new MikroORM(...)` is enough). Guarantees are in SQL: unique constraints decide emails and
 * slugs, rotation is one conditional `UPDATE`, consuming a one-time token is one `DELETE ... RETURNING`,
 * `tenants.lock` is `SELECT ... FOR UPDATE`, outbox claims skip each other's rows (`FOR UPDATE SKIP
 * LOCKED`), `transaction()` is a database transaction, and cleanup deletes in batches with `FOR UPDATE
 * SKIP LOCKED`. Driver errors become `TenantAuthError`s
 * (`email_taken`, `slug_taken`, `unavailable`, `internal_error`) whose cause never holds row values.
 *
 * @example
 * const orm = new MikroORM({ entities: [...tenantAuthEntities, ...myEntities], clientUrl: process.env.DATABASE_URL });
 * const auth = createTenantAuth({ stores: createMikroOrmStores(orm), accessToken: { secret }, refreshSecret });
 * await runTenantAuthMigrations(orm);
 */
export function createMikroOrmStores(source: EntityManagerSource): TenantAuthStores {
  const root = rootEntityManager(source);
  // A statement outside a transaction runs on the root's connection in no transaction, as on a fresh fork
  // of it (which is what the entity operations get), without making one: forking was a tenth of the
  // stores' own work on the refresh path.
  const outside: SqlScope = { em: root, transaction: undefined };
  return {
    ...storesOn(
      () => root.fork(),
      () => outside,
    ),
    async transaction(fn) {
      let failedInside = false;
      try {
        return await root.fork().transactional(async (em) => {
          try {
            return await fn(
              storesOn(
                () => em,
                () => sqlScopeOf(em),
              ),
            );
          } catch (err) {
            failedInside = true;
            throw err;
          }
        });
      } catch (err) {
        // What the function threw is its own; what the commit threw (a deferred constraint, a lost
        // connection) is the database's.
        throw failedInside ? err : toStoreError(err);
      }
    },
  };
}
