import { Migration } from '@mikro-orm/migrations';

/**
 * Single-use marks of single sign-on (tenant-auth 1.3): `tenant_auth_sso_used_once` keeps, per tenant,
 * the SHA-256 of the `state` of each finished sign-in (so its `sso_state` cannot finish another) and of
 * each SAML assertion ID seen, until it expires; the scheduled cleanup deletes expired marks.
 *
 * @example
 * await runTenantAuthMigrations(orm); // applies it once, recorded in `tenant_auth_migrations`
 */
export class TenantAuthSsoUsedOnceMigration extends Migration {
  override name = 'tenant-auth-20261201100000-sso-used-once';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "tenant_auth_sso_used_once" ("tenant_id" uuid not null, "kind" text not null, "id_hash" char(64) not null, "expires_at" timestamptz not null, primary key ("tenant_id", "kind", "id_hash"));`,
    );
    this.addSql(
      `create index "tenant_auth_sso_used_once_expires_at_idx" on "tenant_auth_sso_used_once" ("expires_at");`,
    );
    this.addSql(
      `alter table "tenant_auth_sso_used_once" add constraint "tenant_auth_sso_used_once_kind_check" check ("kind" in ('state', 'assertion'));`,
    );
    this.addSql(
      `alter table "tenant_auth_sso_used_once" add constraint "tenant_auth_sso_used_once_tenant_id_foreign" foreign key ("tenant_id") references "tenant_auth_tenant" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "tenant_auth_sso_used_once" cascade;`);
  }
}
