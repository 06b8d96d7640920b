import { Migration } from '@mikro-orm/migrations';

/**
 * The second-factor lock (tenant-auth 1.3): per user, the consecutive wrong TOTP or recovery-code answers
 * (`mfa_failures`), how many times the account was locked (`mfa_locks`) and until when
 * (`mfa_locked_until`), in the database so that every instance sees the same count.
 *
 * @example
 * await runTenantAuthMigrations(orm); // applies it once, recorded in `tenant_auth_migrations`
 */
export class TenantAuthSecondFactorLockMigration extends Migration {
  override name = 'tenant-auth-20261202100000-second-factor-lock';

  override up(): void | Promise<void> {
    this.addSql(`alter table "tenant_auth_user" add "mfa_failures" int not null default 0;`);
    this.addSql(`alter table "tenant_auth_user" add "mfa_locks" int not null default 0;`);
    this.addSql(`alter table "tenant_auth_user" add "mfa_locked_until" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "tenant_auth_user" drop column "mfa_locked_until";`);
    this.addSql(`alter table "tenant_auth_user" drop column "mfa_locks";`);
    this.addSql(`alter table "tenant_auth_user" drop column "mfa_failures";`);
  }
}
