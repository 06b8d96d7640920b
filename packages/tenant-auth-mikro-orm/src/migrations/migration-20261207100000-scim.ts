import { Migration } from '@mikro-orm/migrations';

/**
 * SCIM provisioning (tenant-auth 1.3, docs/http-api.md, "SCIM 2.0 provisioning per tenant"):
 * `tenant_auth_scim_token` (one token per tenant, as its SHA-256), `tenant_auth_scim_group_role` (the
 * tenant's group-to-role mapping, by position), `tenant_auth_scim_profile` (what a directory keeps of a user:
 * `externalId`, names, whether it manages it), `tenant_auth_scim_group` and `tenant_auth_scim_group_member`.
 * Everything goes with its tenant; a profile and memberships also go with their user, memberships with
 * their group. Creates only these tables. Checked by tests against the entities.
 *
 * @example
 * await runTenantAuthMigrations(orm); // applies it once, recorded in `tenant_auth_migrations`
 */
export class TenantAuthScimMigration extends Migration {
  override name = 'tenant-auth-20261207100000-scim';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "tenant_auth_scim_token" ("tenant_id" uuid not null, "token_hash" char(64) not null, "created_at" timestamptz not null, "last_used_at" timestamptz null, primary key ("tenant_id"));`,
    );
    this.addSql(
      `alter table "tenant_auth_scim_token" add constraint "tenant_auth_scim_token_token_hash_unique" unique ("token_hash");`,
    );
    this.addSql(
      `create table "tenant_auth_scim_group_role" ("tenant_id" uuid not null, "position" int not null, "group_name" text not null, "role" text not null, primary key ("tenant_id", "position"));`,
    );
    this.addSql(
      `alter table "tenant_auth_scim_group_role" add constraint "tenant_auth_scim_group_role_role_check" check ("role" in ('admin', 'member'));`,
    );
    this.addSql(
      `create table "tenant_auth_scim_profile" ("user_id" uuid not null, "tenant_id" uuid not null, "external_id" text null, "given_name" text null, "family_name" text null, "formatted_name" text null, "display_name" text null, "managed" boolean not null, "updated_at" timestamptz not null, primary key ("user_id"));`,
    );
    this.addSql(
      `create index "tenant_auth_scim_profile_external_id_idx" on "tenant_auth_scim_profile" ("tenant_id", "external_id");`,
    );
    this.addSql(
      `create table "tenant_auth_scim_group" ("id" uuid not null, "tenant_id" uuid not null, "display_name" text not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "tenant_auth_scim_group_tenant_idx" on "tenant_auth_scim_group" ("tenant_id", "created_at");`,
    );
    // `displayName eq` ignores ASCII case: lower() under the "C" collation folds ASCII letters only.
    this.addSql(
      `create index "tenant_auth_scim_group_display_name_idx" on "tenant_auth_scim_group" ("tenant_id", lower("display_name" collate "C"));`,
    );
    this.addSql(
      `create table "tenant_auth_scim_group_member" ("group_id" uuid not null, "user_id" uuid not null, "tenant_id" uuid not null, primary key ("group_id", "user_id"));`,
    );
    this.addSql(
      `create index "tenant_auth_scim_group_member_user_idx" on "tenant_auth_scim_group_member" ("user_id");`,
    );
    // A key that is its tenant's, user's or group's follows it, as MikroORM maps such keys.
    for (const table of [
      'scim_token',
      'scim_group_role',
      'scim_profile',
      'scim_group',
      'scim_group_member',
    ]) {
      const onTenantUpdate = table === 'scim_token' ? ' on update cascade' : '';
      this.addSql(
        `alter table "tenant_auth_${table}" add constraint "tenant_auth_${table}_tenant_id_foreign" foreign key ("tenant_id") references "tenant_auth_tenant" ("id")${onTenantUpdate} on delete cascade;`,
      );
    }
    for (const table of ['scim_profile', 'scim_group_member']) {
      this.addSql(
        `alter table "tenant_auth_${table}" add constraint "tenant_auth_${table}_user_id_foreign" foreign key ("user_id") references "tenant_auth_user" ("id") on update cascade on delete cascade;`,
      );
    }
    this.addSql(
      `alter table "tenant_auth_scim_group_member" add constraint "tenant_auth_scim_group_member_group_id_foreign" foreign key ("group_id") references "tenant_auth_scim_group" ("id") on update cascade on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "tenant_auth_scim_group_member" cascade;`);
    this.addSql(`drop table if exists "tenant_auth_scim_group" cascade;`);
    this.addSql(`drop table if exists "tenant_auth_scim_profile" cascade;`);
    this.addSql(`drop table if exists "tenant_auth_scim_group_role" cascade;`);
    this.addSql(`drop table if exists "tenant_auth_scim_token" cascade;`);
  }
}
