import { Migration } from '@mikro-orm/migrations';

/**
 * The tables of single sign-on (tenant-auth 1.2, docs/http-api.md, "Single sign-on (OpenID Connect) per tenant"): the domains tenants claim (one tenant at most
 * holds a name verified: `verified_name` unique), one OpenID Connect connection per tenant, and the
 * identities `(issuer, sub)` linked to users. Everything goes with its tenant (and an identity with its
 * user). Creates only these tables. Checked by tests against the entities.
 *
 * @example
 * await runTenantAuthMigrations(orm); // applies it once, recorded in `tenant_auth_migrations`
 */
export class TenantAuthSingleSignOnMigration extends Migration {
  override name = 'tenant-auth-20261127150000-single-sign-on';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "tenant_auth_domain" ("id" uuid not null, "tenant_id" uuid not null, "name" text not null, "token" text not null, "created_at" timestamptz not null, "verified_at" timestamptz null, "verified_name" text null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "tenant_auth_domain" add constraint "tenant_auth_domain_verified_name_unique" unique ("verified_name");`,
    );
    this.addSql(
      `alter table "tenant_auth_domain" add constraint "tenant_auth_domain_tenant_name_unique" unique ("tenant_id", "name");`,
    );
    this.addSql(
      `create table "tenant_auth_sso_connection" ("tenant_id" uuid not null, "issuer" text not null, "client_id" text not null, "sealed_client_secret" text not null, "enforce" boolean not null, "default_role" text not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("tenant_id"));`,
    );
    this.addSql(
      `alter table "tenant_auth_sso_connection" add constraint "tenant_auth_sso_connection_default_role_check" check ("default_role" in ('admin', 'member'));`,
    );
    this.addSql(
      `create table "tenant_auth_sso_identity" ("id" uuid not null, "tenant_id" uuid not null, "user_id" uuid not null, "issuer" text not null, "subject" text not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "tenant_auth_sso_identity" add constraint "tenant_auth_sso_identity_subject_unique" unique ("tenant_id", "issuer", "subject");`,
    );
    this.addSql(
      `alter table "tenant_auth_sso_identity" add constraint "tenant_auth_sso_identity_user_issuer_unique" unique ("user_id", "issuer");`,
    );
    for (const table of ['domain', 'sso_connection', 'sso_identity']) {
      // The connection's key is its tenant's: it follows the tenant's id as MikroORM maps such keys.
      const onTenantUpdate = table === 'sso_connection' ? ' on update cascade' : '';
      this.addSql(
        `alter table "tenant_auth_${table}" add constraint "tenant_auth_${table}_tenant_id_foreign" foreign key ("tenant_id") references "tenant_auth_tenant" ("id")${onTenantUpdate} on delete cascade;`,
      );
    }
    this.addSql(
      `alter table "tenant_auth_sso_identity" add constraint "tenant_auth_sso_identity_user_id_foreign" foreign key ("user_id") references "tenant_auth_user" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "tenant_auth_sso_identity";`);
    this.addSql(`drop table if exists "tenant_auth_sso_connection";`);
    this.addSql(`drop table if exists "tenant_auth_domain";`);
  }
}
