import { Migration } from '@mikro-orm/migrations';

/**
 * Webhooks (tenant-auth 1.3): `tenant_auth_webhook_endpoint` (a tenant's endpoints: URL, event filter,
 * sealed secret, enabled, the failure counts that disable it) and `tenant_auth_webhook_delivery` (one row
 * per event and endpoint, queued in the transaction of the event, with its attempts).
 *
 * @example
 * await runTenantAuthMigrations(orm); // applies it once, recorded in `tenant_auth_migrations`
 */
export class TenantAuthWebhooksMigration extends Migration {
  override name = 'tenant-auth-20261206100000-webhooks';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "tenant_auth_webhook_endpoint" ("id" uuid not null, "tenant_id" uuid not null, "url" text not null, "events" text[] not null, "description" text null, "sealed_secret" text not null, "enabled" boolean not null, "disabled_reason" text null, "created_at" timestamptz not null, "consecutive_failures" int not null, "failing_since" timestamptz null, primary key ("id"));`,
    );
    this.addSql(
      `create index "tenant_auth_webhook_endpoint_tenant_idx" on "tenant_auth_webhook_endpoint" ("tenant_id", "created_at");`,
    );
    this.addSql(
      `create table "tenant_auth_webhook_delivery" ("id" uuid not null, "tenant_id" uuid not null, "endpoint_id" uuid not null, "event_id" uuid not null, "type" text not null, "payload" text not null, "attempt" int not null, "status" text not null, "response_status" int null, "created_at" timestamptz not null, "last_attempt_at" timestamptz null, "next_attempt_at" timestamptz null, "locked_until" timestamptz null, primary key ("id"));`,
    );
    this.addSql(
      `create index "tenant_auth_webhook_delivery_endpoint_idx" on "tenant_auth_webhook_delivery" ("endpoint_id", "id");`,
    );
    this.addSql(
      `create index "tenant_auth_webhook_delivery_due_idx" on "tenant_auth_webhook_delivery" ("next_attempt_at") where status = 'pending';`,
    );
    this.addSql(
      `create index "tenant_auth_webhook_delivery_created_idx" on "tenant_auth_webhook_delivery" ("created_at");`,
    );
    this.addSql(
      `alter table "tenant_auth_webhook_endpoint" add constraint "tenant_auth_webhook_endpoint_tenant_id_foreign" foreign key ("tenant_id") references "tenant_auth_tenant" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "tenant_auth_webhook_delivery" add constraint "tenant_auth_webhook_delivery_tenant_id_foreign" foreign key ("tenant_id") references "tenant_auth_tenant" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "tenant_auth_webhook_delivery" add constraint "tenant_auth_webhook_delivery_endpoint_id_foreign" foreign key ("endpoint_id") references "tenant_auth_webhook_endpoint" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "tenant_auth_webhook_delivery" cascade;`);
    this.addSql(`drop table if exists "tenant_auth_webhook_endpoint" cascade;`);
  }
}
