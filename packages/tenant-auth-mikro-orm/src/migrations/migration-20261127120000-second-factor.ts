import { Migration } from '@mikro-orm/migrations';

/**
 * The schema of tenant-auth 1.2 (issue 29), as an in-place upgrade of 1.1: sessions keep how they were
 * authenticated (`amr`, `auth_time`), tenants their security policy (`require_mfa`), and the second
 * factor gets its tables (TOTP factors, recovery codes, MFA challenges). A 1.1 session was made by a
 * password: `amr` `{pwd}`, `auth_time` its creation; no 1.1 tenant requires a second factor. The
 * defaults stay (`{pwd}`, `now()`, `false`) for rows written by other means than the stores. Checked by
 * tests against the entities, from an empty database and from a 1.1 one with data.
 *
 * @example
 * await runTenantAuthMigrations(orm); // applies it once, recorded in `tenant_auth_migrations`
 */
export class TenantAuthSecondFactorMigration extends Migration {
  override name = 'tenant-auth-20261127120000-second-factor';

  override up(): void | Promise<void> {
    this.addSql(`alter table "tenant_auth_tenant" add "require_mfa" boolean not null default false;`);

    this.addSql(
      `alter table "tenant_auth_session" add "amr" text[] not null default '{pwd}', add "auth_time" timestamptz null;`,
    );
    this.addSql(`update "tenant_auth_session" set "auth_time" = "created_at";`);
    this.addSql(
      `alter table "tenant_auth_session" alter column "auth_time" set default now(), alter column "auth_time" set not null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(
      `alter table "tenant_auth_session" drop column if exists "amr", drop column if exists "auth_time";`,
    );
    this.addSql(`alter table "tenant_auth_tenant" drop column if exists "require_mfa";`);
  }
}
