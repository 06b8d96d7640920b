// tenant-auth-mikro-orm: tenant-auth's stores, entities and migrations on MikroORM 7 (PostgreSQL, PGlite).

export { createMikroOrmStores } from './create-mikro-orm-stores.js';
export { TenantAuthAuditEvent } from './entities/audit-event.js';
export { TenantAuthOneTimeToken } from './entities/one-time-token.js';
export { TenantAuthOutboxMessage } from './entities/outbox-message.js';
export { TenantAuthSession } from './entities/session.js';
export { TenantAuthTenant } from './entities/tenant.js';
export { TenantAuthUser } from './entities/user.js';
export type { EntityManagerSource } from './entity-manager-source.js';
export type { TenantAuthMigrationOptions } from './run-tenant-auth-migrations.js';
export { runTenantAuthMigrations } from './run-tenant-auth-migrations.js';
export { tenantAuthEntities } from './tenant-auth-entities.js';
export { tenantAuthMigrations } from './tenant-auth-migrations.js';
export { StoreDriverError } from './to-store-error.js';
