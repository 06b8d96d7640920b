import type { SqlDriver } from './sql-driver.js';

/**
 * @internal The tenant-auth tables, by the names the migrations give them (pinned, whatever naming strategy
 * an ORM uses). `tables.test.ts` ties the list to the entities.
 */
export const TABLES = [
  'tenant_auth_tenant',
  'tenant_auth_user',
  'tenant_auth_session',
  'tenant_auth_one_time_token',
  'tenant_auth_outbox_message',
  'tenant_auth_audit_event',
  'tenant_auth_totp_factor',
  'tenant_auth_recovery_code',
  'tenant_auth_mfa_challenge',
  'tenant_auth_passkey',
  'tenant_auth_webauthn_challenge',
  'tenant_auth_domain',
  'tenant_auth_sso_connection',
  'tenant_auth_sso_identity',
  'tenant_auth_api_key',
  'tenant_auth_sso_used_once',
  'tenant_auth_webhook_endpoint',
  'tenant_auth_webhook_delivery',
  'tenant_auth_scim_token',
  'tenant_auth_scim_group_role',
  'tenant_auth_scim_profile',
  'tenant_auth_scim_group',
  'tenant_auth_scim_group_member',
] as const;

/** @internal One of {@link TABLES}. */
export type TableName = (typeof TABLES)[number];

const quoted = (identifier: string) => `"${identifier.replaceAll('"', '""')}"`;

/**
 * @internal The table `name` as a statement on `driver` writes it: quoted, and qualified with the driver's
 * schema when it has one (as MikroORM's query builder writes it).
 */
export function tableOf(driver: SqlDriver, name: TableName): string {
  const schema = driver.schema;
  return schema ? `${quoted(schema)}.${quoted(name)}` : quoted(name);
}
