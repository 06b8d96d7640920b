import { Migration } from '@mikro-orm/migrations';

/**
 * API keys (tenant-auth 1.2, docs/http-api.md, "API keys"), as an in-place upgrade: the `tenant_auth_api_key` table (a key's
 * secret only as its SHA-256, unique), and `actor_type` on audit events (`user` or `api_key`: what
 * `actor_id` is). Every event before it was a user's (or nobody's): the default `user` says so, and stays
 * for rows written by other means than the stores.
 *
 * @example
 * await runTenantAuthMigrations(orm); // applies it once, recorded in `tenant_auth_migrations`
 */
export class TenantAuthApiKeysMigration extends Migration {
  override name = 'tenant-auth-20261127160000-api-keys';

  override up(): void | Promise<void> {
    this.addSql(`alter table "tenant_auth_audit_event" add "actor_type" text not null default 'user';`);
    this.addSql(
      `create table "tenant_auth_api_key" ("id" uuid not null, "tenant_id" uuid not null, "name" text not null, "role" text not null, "prefix" text not null, "secret_hash" char(64) not null, "created_at" timestamptz not null, "created_by" uuid null, "expires_at" timestamptz null, "last_used_at" timestamptz null, "revoked_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "tenant_auth_api_key" add constraint "tenant_auth_api_key_secret_hash_unique" unique ("secret_hash");`,
    );
    this.addSql(
      `create index "tenant_auth_api_key_tenant_idx" on "tenant_auth_api_key" ("tenant_id", "created_at");`,
    );
    this.addSql(
      `alter table "tenant_auth_api_key" add constraint "tenant_auth_api_key_tenant_id_foreign" foreign key ("tenant_id") references "tenant_auth_tenant" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "tenant_auth_api_key" add constraint "tenant_auth_api_key_created_by_foreign" foreign key ("created_by") references "tenant_auth_user" ("id") on delete set null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "tenant_auth_api_key";`);
    this.addSql(`alter table "tenant_auth_audit_event" drop column if exists "actor_type";`);
  }
}
