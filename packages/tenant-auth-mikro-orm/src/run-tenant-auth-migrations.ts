import type { EntityManager, MigrationInfo, MigrationsOptions } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { type EntityManagerSource, rootEntityManager } from './entity-manager-source.js';
import { tenantAuthMigrations } from './tenant-auth-migrations.js';

/**
 * Options of {@link runTenantAuthMigrations}.
 *
 * @example
 * await runTenantAuthMigrations(orm, { tableName: 'auth_migrations' });
 */
export interface TenantAuthMigrationOptions {
  /** Table that records the applied tenant-auth migrations. Default `tenant_auth_migrations`. */
  tableName?: string;
}

/** Arbitrary constant key of the PostgreSQL advisory lock that serialises concurrent migration runs. */
const MIGRATION_LOCK_KEY = 7_361_827_364;

/**
 * MikroORM's SQL migrator, pointed at the tenant-auth migrations and their own tracking table instead of
 * the application's migration settings. The application's configuration object is not modified.
 */
class TenantAuthMigrator extends Migrator {
  constructor(em: EntityManager, tableName: string) {
    super(em as ConstructorParameters<typeof Migrator>[0]);
    // Every setting that changes what the migrations do is pinned: the application's own migration
    // settings (disabled foreign keys, a "safe" mode, no transaction) must not change ours. Only how
    // loudly it logs (`silent`) follows the application.
    const options: MigrationsOptions = {
      ...this.options,
      tableName,
      migrationsList: [...tenantAuthMigrations],
      transactional: true,
      allOrNothing: true,
      disableForeignKeys: false,
      dropTables: true,
      safe: false,
      snapshot: false,
      snapshotOnMigrate: false,
    };
    (this as unknown as { options: MigrationsOptions }).options = options;
    this.initServices();
  }

  /**
   * Applies the pending migrations in one transaction that first takes an advisory lock, so several
   * application instances starting at once apply each migration exactly once.
   */
  async upLocked(): Promise<MigrationInfo[]> {
    // Outside the transaction: it may query on a connection of its own (PGlite has only one).
    try {
      await this.init();
    } catch {
      // Instances starting together may race to create the tracking table; the loser finds it the second time.
      this.initialized = false;
      await this.init();
    }
    const connection = this.driver.getConnection();
    return connection.transactional(async (trx) => {
      await connection.execute('select pg_advisory_xact_lock(?)', [MIGRATION_LOCK_KEY], 'run', trx);
      // With a configured default schema the ORM qualifies every table with it, so the (unqualified)
      // migration SQL must run there too.
      const schema = this.config.getSchema(true);
      const inSchema =
        schema && schema !== this.driver.getPlatform().getDefaultSchemaName() ? { schema } : {};
      return this.up({ transaction: trx, ...inSchema });
    });
  }
}

/**
 * Applies the pending tenant-auth migrations to the application's database (PostgreSQL or PGlite) and
 * returns the names it applied. Safe to call at every start: applied migrations are recorded in their
 * own table (`tenant_auth_migrations`, apart from the application's `mikro_orm_migrations`), all pending
 * ones run in one transaction, and concurrent callers wait for each other.
 *
 * @example
 * const orm = new MikroORM({ entities: [...tenantAuthEntities, ...myEntities], clientUrl });
 * const auth = createTenantAuth({ stores: createMikroOrmStores(orm), accessToken: { secret }, refreshSecret });
 * await runTenantAuthMigrations(orm); // then the application's own migrations
 */
export async function runTenantAuthMigrations(
  source: EntityManagerSource,
  options: TenantAuthMigrationOptions = {},
): Promise<string[]> {
  const migrator = new TenantAuthMigrator(
    rootEntityManager(source).fork(),
    options.tableName ?? 'tenant_auth_migrations',
  );
  const applied = await migrator.upLocked();
  return applied.map((m) => m.name);
}
