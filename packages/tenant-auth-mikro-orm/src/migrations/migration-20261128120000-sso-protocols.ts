import { Migration } from '@mikro-orm/migrations';

/**
 * Single sign-on of any protocol (tenant-auth 1.2), as an in-place upgrade of the connection table: a
 * connection names its `protocol` and keeps the protocol's own fields in `settings` (jsonb), and its
 * secret in `sealed_secret` (null for a protocol without one). A connection written before is an OpenID
 * Connect one: `protocol` `oidc`, its client id moved into `settings` (`{"clientId": …}`), its sealed
 * client secret kept as it was (sealed for the same purpose and tenant, so it still opens).
 *
 * @example
 * await runTenantAuthMigrations(orm); // applies it once, recorded in `tenant_auth_migrations`
 */
export class TenantAuthSsoProtocolsMigration extends Migration {
  override name = 'tenant-auth-20261128120000-sso-protocols';

  override up(): void | Promise<void> {
    this.addSql(`alter table "tenant_auth_sso_connection" add "protocol" text not null default 'oidc';`);
    this.addSql(`alter table "tenant_auth_sso_connection" add "settings" jsonb not null default '{}';`);
    this.addSql(
      `update "tenant_auth_sso_connection" set "settings" = jsonb_build_object('clientId', "client_id");`,
    );
    this.addSql(
      `alter table "tenant_auth_sso_connection" rename column "sealed_client_secret" to "sealed_secret";`,
    );
    this.addSql(`alter table "tenant_auth_sso_connection" alter column "sealed_secret" drop not null;`);
    this.addSql(`alter table "tenant_auth_sso_connection" drop column "client_id";`);
    // The defaults served the rows of before; the store writes every column.
    this.addSql(`alter table "tenant_auth_sso_connection" alter column "protocol" drop default;`);
    this.addSql(`alter table "tenant_auth_sso_connection" alter column "settings" drop default;`);
  }

  /** Back to OpenID Connect only: a connection of another protocol (or without a client id) is removed. */
  override down(): void | Promise<void> {
    this.addSql(
      `delete from "tenant_auth_sso_connection" where "protocol" <> 'oidc' or "sealed_secret" is null or jsonb_typeof("settings" -> 'clientId') is distinct from 'string';`,
    );
    this.addSql(`alter table "tenant_auth_sso_connection" add "client_id" text null;`);
    this.addSql(`update "tenant_auth_sso_connection" set "client_id" = "settings" ->> 'clientId';`);
    this.addSql(`alter table "tenant_auth_sso_connection" alter column "client_id" set not null;`);
    this.addSql(`alter table "tenant_auth_sso_connection" alter column "sealed_secret" set not null;`);
    this.addSql(
      `alter table "tenant_auth_sso_connection" rename column "sealed_secret" to "sealed_client_secret";`,
    );
    this.addSql(`alter table "tenant_auth_sso_connection" drop column "settings";`);
    this.addSql(`alter table "tenant_auth_sso_connection" drop column "protocol";`);
  }
}
