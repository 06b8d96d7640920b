import { Migration } from '@mikro-orm/migrations';

/**
 * Deactivation (tenant-auth 1.3): users' `active` flag. Every user of before stays active; a deactivated
 * account (by an admin or the tenant's directory) keeps its row and signs in no more.
 *
 * @example
 * await runTenantAuthMigrations(orm); // applies it once, recorded in `tenant_auth_migrations`
 */
export class TenantAuthUserActiveMigration extends Migration {
  override name = 'tenant-auth-20261205100000-user-active';

  override up(): void | Promise<void> {
    this.addSql(`alter table "tenant_auth_user" add "active" boolean not null default true;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "tenant_auth_user" drop column "active";`);
  }
}
