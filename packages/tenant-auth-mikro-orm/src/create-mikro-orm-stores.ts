import type { EntityManager } from '@mikro-orm/core';
import type { TenantAuthStores, TransactionStores } from 'tenant-auth-core/store-kit';
import { type EntityManagerSource, rootEntityManager } from './entity-manager-source.js';
import { mikroOrmAuditEventStore } from './stores/mikro-orm-audit-event-store.js';
import { mikroOrmOneTimeTokenStore } from './stores/mikro-orm-one-time-token-store.js';
import { mikroOrmOutboxStore } from './stores/mikro-orm-outbox-store.js';
import { mikroOrmSessionStore } from './stores/mikro-orm-session-store.js';
import { mikroOrmTenantStore } from './stores/mikro-orm-tenant-store.js';
import { mikroOrmUserStore } from './stores/mikro-orm-user-store.js';
import { toStoreError } from './to-store-error.js';

function storesOn(em: () => EntityManager): TransactionStores {
  return {
    tenants: mikroOrmTenantStore(em),
    users: mikroOrmUserStore(em),
    sessions: mikroOrmSessionStore(em),
    oneTimeTokens: mikroOrmOneTimeTokenStore(em),
    outbox: mikroOrmOutboxStore(em),
    auditEvents: mikroOrmAuditEventStore(em),
  };
}

/**
 * Every tenant-auth store on the application's MikroORM (PostgreSQL or PGlite), or on one of its entity
 * managers: what `createTenantAuth({ stores })` takes. The stores fork the entity manager for every
 * operation and never initialise, connect or close the ORM, so this is safe to call before the ORM has
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
  return {
    ...storesOn(() => root.fork()),
    async transaction(fn) {
      let failedInside = false;
      try {
        return await root.fork().transactional(async (em) => {
          try {
            return await fn(storesOn(() => em));
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
