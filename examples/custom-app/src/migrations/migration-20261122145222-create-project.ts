import { Migration } from '@mikro-orm/migrations';

/**
 * Creates the `project` table. Its foreign key references tenant-auth's `tenant_auth_tenant`, so this
 * migration runs after tenant-auth's own (see `migrate` in src/database.ts).
 */
export class CreateProjectMigration extends Migration {
  override up(): void {
    this.addSql(
      `create table "project" ("id" uuid not null, "tenant_id" uuid not null, "name" text not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "project_tenant_id_idx" on "project" ("tenant_id");`);
    this.addSql(
      `alter table "project" add constraint "project_tenant_id_foreign" foreign key ("tenant_id") references "tenant_auth_tenant" ("id") on delete cascade;`,
    );
  }

  override down(): void {
    this.addSql(`drop table if exists "project";`);
  }
}
