import { Migration } from '@mikro-orm/migrations';

/**
 * Passkeys (tenant-auth 1.2, docs/http-api.md, "Passkeys (WebAuthn)"): the passkey table (a WebAuthn credential per row, its credential
 * id unique across tenants) and the WebAuthn challenge table (single use, 5 minutes; a passkey login's
 * challenge has no user). Only new tables: nothing of an existing row changes. Checked by tests against
 * the entities.
 *
 * @example
 * await runTenantAuthMigrations(orm); // applies it once, recorded in `tenant_auth_migrations`
 */
export class TenantAuthPasskeysMigration extends Migration {
  override name = 'tenant-auth-20261127140000-passkeys';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "tenant_auth_passkey" ("id" uuid not null, "tenant_id" uuid not null, "user_id" uuid not null, "credential_id" text not null, "public_key" text not null, "counter" bigint not null, "transports" text[] not null, "name" text not null, "created_at" timestamptz not null, "last_used_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "tenant_auth_passkey" add constraint "tenant_auth_passkey_credential_id_unique" unique ("credential_id");`,
    );
    this.addSql(
      `create index "tenant_auth_passkey_user_idx" on "tenant_auth_passkey" ("user_id", "tenant_id");`,
    );
    this.addSql(
      `create table "tenant_auth_webauthn_challenge" ("challenge_hash" char(64) not null, "purpose" text not null, "tenant_id" uuid null, "user_id" uuid null, "created_at" timestamptz not null, "expires_at" timestamptz not null, primary key ("challenge_hash"));`,
    );
    this.addSql(
      `create index "tenant_auth_webauthn_challenge_user_idx" on "tenant_auth_webauthn_challenge" ("user_id");`,
    );
    this.addSql(
      `create index "tenant_auth_webauthn_challenge_expires_at_idx" on "tenant_auth_webauthn_challenge" ("expires_at");`,
    );
    this.addSql(
      `alter table "tenant_auth_webauthn_challenge" add constraint "tenant_auth_webauthn_challenge_purpose_check" check ("purpose" in ('registration', 'login', 'mfa', 'reauthentication'));`,
    );
    for (const table of ['passkey', 'webauthn_challenge']) {
      this.addSql(
        `alter table "tenant_auth_${table}" add constraint "tenant_auth_${table}_tenant_id_foreign" foreign key ("tenant_id") references "tenant_auth_tenant" ("id") on delete cascade;`,
      );
      this.addSql(
        `alter table "tenant_auth_${table}" add constraint "tenant_auth_${table}_user_id_foreign" foreign key ("user_id") references "tenant_auth_user" ("id") on delete cascade;`,
      );
    }
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "tenant_auth_webauthn_challenge";`);
    this.addSql(`drop table if exists "tenant_auth_passkey";`);
  }
}
