import type { SessionStore, TenantAuthStore } from 'tenant-auth-core';
import type { EntityManagerSource } from './entity-manager-source.js';
import { MikroOrmSessionStore } from './stores/mikro-orm-session-store.js';
import { MikroOrmTenantAuthStore } from './stores/mikro-orm-tenant-auth-store.js';

/**
 * The stores of tenant-auth on one MikroORM instance.
 *
 * @example
 * const stores: MikroOrmStores = createMikroOrmStores(orm);
 * createTenantAuth({ store: stores.tenantAuthStore, sessionStore: stores.sessionStore, ...options });
 */
export interface MikroOrmStores {
  tenantAuthStore: TenantAuthStore;
  sessionStore: SessionStore;
}

/**
 * Creates every tenant-auth store on the application's MikroORM (or one of its entity managers). The
 * stores fork the entity manager for every operation and never initialise or close the ORM.
 *
 * @example
 * const orm = await MikroORM.init({ entities: [...tenantAuthEntities], clientUrl: process.env.DATABASE_URL });
 * await runTenantAuthMigrations(orm);
 * const { tenantAuthStore, sessionStore } = createMikroOrmStores(orm);
 */
export function createMikroOrmStores(source: EntityManagerSource): MikroOrmStores {
  return {
    tenantAuthStore: new MikroOrmTenantAuthStore(source),
    sessionStore: new MikroOrmSessionStore(source),
  };
}
