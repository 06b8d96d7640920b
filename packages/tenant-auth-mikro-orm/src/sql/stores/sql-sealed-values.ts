import { isUuid } from 'tenant-auth-core';
import type { FactorStore, OutboxStore, SealedValuePage, SsoStore } from 'tenant-auth-core/store-kit';
import type { SqlDriver } from '../sql-driver.js';
import { checkBatchSize } from '../statements.js';
import { guarded } from '../store-errors.js';
import { tableOf } from '../tables.js';

/**
 * The `where` and `limit` of a keyset page over a uuid primary key `key`, and their parameters. Every
 * key is a uuid, so a page starts after one.
 */
function keyset(key: string, page: SealedValuePage): { where: string; params: unknown[] } {
  checkBatchSize(page.limit, 'limit');
  if (page.after !== null && !isUuid(page.after))
    throw new TypeError('after must be the key of a row (a uuid)');
  return page.after === null
    ? { where: 'true', params: [page.limit] }
    : { where: `${key} > ?::uuid`, params: [page.after, page.limit] };
}

/**
 * @internal The verbs that page through one kind of stored sealed value and re-seal one value
 * (compare-and-set on the value itself), for the re-seal after a data-key rotation: every kind of sealed
 * column, in one place. Webhook secrets join here when their table lands.
 */
export function sqlSealedValueVerbs(driver: SqlDriver): {
  factors: Pick<FactorStore, 'listSealedTotpSecrets' | 'resealTotpSecret'>;
  sso: Pick<SsoStore, 'listSealedSecrets' | 'resealSecret'>;
  outbox: Pick<OutboxStore, 'listSealedPayloads' | 'resealPayload'>;
} {
  return {
    factors: {
      listSealedTotpSecrets: (page) =>
        guarded(async () => {
          const { where, params } = keyset('user_id', page);
          return driver.rows(
            `select tenant_id as "tenantId", user_id as "userId", sealed_secret as "sealedSecret"
  from ${tableOf(driver, 'tenant_auth_totp_factor')} where ${where} order by user_id limit ?`,
            params,
          );
        }),
      resealTotpSecret: (tenantId, userId, expected, sealedSecret) =>
        guarded(async () => {
          if (!isUuid(tenantId) || !isUuid(userId)) return false;
          const changed = await driver.execute(
            `update ${tableOf(driver, 'tenant_auth_totp_factor')} set sealed_secret = ?
  where user_id = ? and tenant_id = ? and sealed_secret = ?`,
            [sealedSecret, userId, tenantId, expected],
          );
          return changed === 1;
        }),
    },
    sso: {
      listSealedSecrets: (page) =>
        guarded(async () => {
          const { where, params } = keyset('tenant_id', page);
          return driver.rows(
            `select tenant_id as "tenantId", sealed_secret as "sealedSecret"
  from ${tableOf(driver, 'tenant_auth_sso_connection')}
  where sealed_secret is not null and ${where} order by tenant_id limit ?`,
            params,
          );
        }),
      resealSecret: (tenantId, expected, sealedSecret) =>
        guarded(async () => {
          if (!isUuid(tenantId)) return false;
          const changed = await driver.execute(
            `update ${tableOf(driver, 'tenant_auth_sso_connection')} set sealed_secret = ?
  where tenant_id = ? and sealed_secret = ?`,
            [sealedSecret, tenantId, expected],
          );
          return changed === 1;
        }),
    },
    outbox: {
      listSealedPayloads: (page) =>
        guarded(async () => {
          const { where, params } = keyset('id', page);
          return driver.rows(
            `select id, template, recipient as "to", payload
  from ${tableOf(driver, 'tenant_auth_outbox_message')}
  where dead_at is null and payload <> '' and ${where} order by id limit ?`,
            params,
          );
        }),
      resealPayload: (id, expected, payload) =>
        guarded(async () => {
          if (!isUuid(id)) return false;
          const changed = await driver.execute(
            `update ${tableOf(driver, 'tenant_auth_outbox_message')} set payload = ?
  where id = ? and dead_at is null and payload = ?`,
            [payload, id, expected],
          );
          return changed === 1;
        }),
    },
  };
}
