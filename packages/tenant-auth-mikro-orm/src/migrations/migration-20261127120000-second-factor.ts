import { Migration } from '@mikro-orm/migrations';

/**
 * The schema of tenant-auth 1.2 (docs/http-api.md, "Second factor: TOTP and recovery codes"), as an in-place upgrade of 1.1: sessions keep how they were
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

    this.addSql(
      `create table "tenant_auth_totp_factor" ("user_id" uuid not null, "tenant_id" uuid not null, "sealed_secret" text not null, "created_at" timestamptz not null, "confirmed_at" timestamptz null, "last_step" int null, primary key ("user_id"));`,
    );
    this.addSql(
      `create table "tenant_auth_recovery_code" ("code_hash" text not null, "tenant_id" uuid not null, "user_id" uuid not null, "created_at" timestamptz not null, primary key ("code_hash"));`,
    );
    this.addSql(
      `create index "tenant_auth_recovery_code_user_idx" on "tenant_auth_recovery_code" ("user_id", "tenant_id");`,
    );
    this.addSql(
      `create table "tenant_auth_mfa_challenge" ("token_hash" char(64) not null, "tenant_id" uuid not null, "user_id" uuid not null, "purpose" text not null, "amr" text[] not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, "failures" int not null default 0, primary key ("token_hash"));`,
    );
    this.addSql(
      `create index "tenant_auth_mfa_challenge_user_idx" on "tenant_auth_mfa_challenge" ("user_id");`,
    );
    this.addSql(
      `create index "tenant_auth_mfa_challenge_expires_at_idx" on "tenant_auth_mfa_challenge" ("expires_at");`,
    );
    this.addSql(
      `alter table "tenant_auth_mfa_challenge" add constraint "tenant_auth_mfa_challenge_purpose_check" check ("purpose" in ('verify', 'setup'));`,
    );
    for (const table of ['totp_factor', 'recovery_code', 'mfa_challenge']) {
      const onUserUpdate = table === 'totp_factor' ? ' on update cascade' : '';
      this.addSql(
        `alter table "tenant_auth_${table}" add constraint "tenant_auth_${table}_user_id_foreign" foreign key ("user_id") references "tenant_auth_user" ("id")${onUserUpdate} on delete cascade;`,
      );
      this.addSql(
        `alter table "tenant_auth_${table}" add constraint "tenant_auth_${table}_tenant_id_foreign" foreign key ("tenant_id") references "tenant_auth_tenant" ("id") on delete cascade;`,
      );
    }
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "tenant_auth_mfa_challenge";`);
    this.addSql(`drop table if exists "tenant_auth_recovery_code";`);
    this.addSql(`drop table if exists "tenant_auth_totp_factor";`);
    this.addSql(
      `alter table "tenant_auth_session" drop column if exists "amr", drop column if exists "auth_time";`,
    );
    this.addSql(`alter table "tenant_auth_tenant" drop column if exists "require_mfa";`);
  }
}
