import { mailSealOn } from '../../mechanisms/mail/sealing.js';
import type { DataSealer } from '../../mechanisms/sealing/data-key.js';
import {
  SSO_SECRET_PURPOSE,
  TOTP_SECRET_PURPOSE,
  totpBinding,
} from '../../mechanisms/sealing/stored-values.js';
import type { Services } from '../../mechanisms/services.js';
import { WEBHOOK_SECRET_PURPOSE, webhookBinding } from '../../mechanisms/webhooks/webhook-payload.js';
import type { SealedValuePage } from '../../ports/sealed-value-page.js';
import type { CompleteTransactionStores } from '../../ports/tenant-auth-stores.js';
import { configurationError } from '../../vocabulary/errors.js';

/**
 * What a re-seal did with one kind of stored sealed value.
 *
 * @example
 * const { totpSecrets }: ResealResult = await auth.resealStoredValues();
 * console.log(totpSecrets.resealed, totpSecrets.current, totpSecrets.unopenable);
 */
export interface ResealCounts {
  /** Values sealed with an older key, now sealed with the current one. */
  resealed: number;
  /** Values already sealed with the current key (or rewritten or removed meanwhile): left as they are. */
  current: number;
  /** Values that did not open with any configured key: left as they are (see `unopenableKeyIds`). */
  unopenable: number;
}

/**
 * What {@link TenantAuthMaintenance.resealStoredValues} did, per kind of stored sealed value.
 *
 * @example
 * const result: ResealResult = await auth.resealStoredValues();
 * if (result.unopenableKeyIds.length > 0) process.exitCode = 1;
 */
export interface ResealResult {
  /** The TOTP factors' secrets. */
  totpSecrets: ResealCounts;
  /** The SSO connections' secrets (OpenID Connect client secrets). */
  ssoSecrets: ResealCounts;
  /** The payloads of the mails in the outbox. */
  outboxPayloads: ResealCounts;
  /** The webhook endpoints' signing secrets (1.3). */
  webhookSecrets: ResealCounts;
  /**
   * The ids of the keys named by the values that did not open (`r0`: the key derived from
   * `refreshSecret`), sorted; empty when every value opened. An id says which key to configure again
   * (`dataKeys.previous`); it is no secret.
   */
  unopenableKeyIds: string[];
}

/** The kinds of {@link ResealResult}. */
type ResealKind = Exclude<keyof ResealResult, 'unopenableKeyIds'>;

/** One kind of stored sealed value: how to page through it, re-seal one, and write it back. */
interface SealedKind<Row> {
  readonly name: ResealKind;
  /** The store verbs of the kind, or the name of the first one the store lacks. */
  verbs(
    stores: CompleteTransactionStores,
  ):
    | { list: (page: SealedValuePage) => Promise<Row[]>; write: (row: Row, next: string) => Promise<boolean> }
    | string;
  /** The row's key: the keyset page's cursor. */
  keyOf(row: Row): string;
  sealedOf(row: Row): string;
  /** Opens the value (throws when it does not) and seals it again with the current key. */
  reseal(sealer: DataSealer, row: Row): string;
}

/** A descriptor, typed by its row. */
const kind = <Row>(k: SealedKind<Row>): SealedKind<unknown> => k as SealedKind<unknown>;

/**
 * Every kind of sealed value tenant-auth stores, in the order they are re-sealed. A new kind (webhook
 * secrets) is one more entry here, with its two store verbs (`list…`, `reseal…`) and a field of
 * {@link ResealResult}.
 */
const SEALED_KINDS: readonly SealedKind<unknown>[] = [
  kind<{ tenantId: string; userId: string; sealedSecret: string }>({
    name: 'totpSecrets',
    verbs: ({ factors }) =>
      !factors.listSealedTotpSecrets
        ? 'factors.listSealedTotpSecrets'
        : !factors.resealTotpSecret
          ? 'factors.resealTotpSecret'
          : {
              list: factors.listSealedTotpSecrets.bind(factors),
              write: (row, next) =>
                factors.resealTotpSecret?.(row.tenantId, row.userId, row.sealedSecret, next) ??
                Promise.resolve(false),
            },
    keyOf: (row) => row.userId,
    sealedOf: (row) => row.sealedSecret,
    reseal(sealer, row) {
      const binding = totpBinding({ tenantId: row.tenantId, id: row.userId });
      return sealer.seal(
        sealer.open(row.sealedSecret, TOTP_SECRET_PURPOSE, binding),
        TOTP_SECRET_PURPOSE,
        binding,
      );
    },
  }),
  kind<{ tenantId: string; sealedSecret: string }>({
    name: 'ssoSecrets',
    verbs: ({ sso }) =>
      !sso.listSealedSecrets
        ? 'sso.listSealedSecrets'
        : !sso.resealSecret
          ? 'sso.resealSecret'
          : {
              list: sso.listSealedSecrets.bind(sso),
              write: (row, next) =>
                sso.resealSecret?.(row.tenantId, row.sealedSecret, next) ?? Promise.resolve(false),
            },
    keyOf: (row) => row.tenantId,
    sealedOf: (row) => row.sealedSecret,
    reseal: (sealer, row) =>
      sealer.seal(
        sealer.open(row.sealedSecret, SSO_SECRET_PURPOSE, row.tenantId),
        SSO_SECRET_PURPOSE,
        row.tenantId,
      ),
  }),
  kind<{ id: string; template: string; to: string; payload: string }>({
    name: 'outboxPayloads',
    verbs: ({ outbox }) =>
      !outbox.listSealedPayloads
        ? 'outbox.listSealedPayloads'
        : !outbox.resealPayload
          ? 'outbox.resealPayload'
          : {
              list: outbox.listSealedPayloads.bind(outbox),
              write: (row, next) =>
                outbox.resealPayload?.(row.id, row.payload, next) ?? Promise.resolve(false),
            },
    keyOf: (row) => row.id,
    sealedOf: (row) => row.payload,
    reseal(sealer, row) {
      const seal = mailSealOn(sealer);
      return seal.seal(seal.open(row.payload, row), row);
    },
  }),
  kind<{ tenantId: string; id: string; sealedSecret: string }>({
    name: 'webhookSecrets',
    verbs: ({ webhooks }) => ({
      list: webhooks.listSealedSecrets.bind(webhooks),
      write: (row, next) => webhooks.resealSecret(row.tenantId, row.id, row.sealedSecret, next),
    }),
    keyOf: (row) => row.id,
    sealedOf: (row) => row.sealedSecret,
    reseal(sealer, row) {
      const binding = webhookBinding(row.tenantId, row.id);
      return sealer.seal(
        sealer.open(row.sealedSecret, WEBHOOK_SECRET_PURPOSE, binding),
        WEBHOOK_SECRET_PURPOSE,
        binding,
      );
    },
  }),
];

/** @internal The default rows per batch (one transaction each). */
export const RESEAL_BATCH_SIZE = 500;

/**
 * @internal Re-seals every stored sealed value that names an older key with the current one, kind by
 * kind, `batchSize` rows per transaction (keyset pages). Each write is a compare-and-set on the value
 * read, so a value rewritten meanwhile (by a request, sealed with the current key) is left alone: safe
 * while the application serves, and idempotent. A value that opens with no configured key is counted and
 * left as it is, never dropped.
 */
export async function resealStoredValues(
  services: Pick<Services, 'stores' | 'sealer' | 'logger'>,
  options: { batchSize?: number } = {},
): Promise<ResealResult> {
  const { stores, sealer, logger } = services;
  const batchSize = options.batchSize ?? RESEAL_BATCH_SIZE;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1 || batchSize > 10_000)
    throw configurationError('resealStoredValues', 'batchSize', 'must be an integer from 1 to 10000');
  for (const k of SEALED_KINDS) {
    const missing = k.verbs(stores);
    if (typeof missing === 'string')
      throw configurationError(
        'resealStoredValues',
        `stores.${missing}`,
        'is not implemented by these stores (it is optional; the re-seal needs it)',
      );
  }
  const unopenableKeyIds = new Set<string>();
  const counts = {} as Record<ResealKind, ResealCounts>;
  for (const k of SEALED_KINDS) {
    const total: ResealCounts = { resealed: 0, current: 0, unopenable: 0 };
    let after: string | null = null;
    for (;;) {
      const last: string | null = await stores.transaction(async (tx) => {
        const verbs = k.verbs(tx);
        if (typeof verbs === 'string') throw new TypeError(`the transaction's stores lack ${verbs}`);
        const rows = await verbs.list({ after, limit: batchSize });
        for (const row of rows) {
          const sealed = k.sealedOf(row);
          if (sealer.keyIdOf(sealed) === sealer.currentKeyId) {
            total.current++;
            continue;
          }
          let next: string;
          try {
            next = k.reseal(sealer, row);
          } catch (err) {
            total.unopenable++;
            const keyId = sealer.keyIdOf(sealed);
            if (keyId !== null) unopenableKeyIds.add(keyId);
            logger.warn(
              { kind: k.name, keyId, code: (err as { code?: unknown }).code },
              'tenant-auth: a stored sealed value did not open with any configured data key; left as it is',
            );
            continue;
          }
          if (await verbs.write(row, next)) total.resealed++;
          else total.current++;
        }
        return rows.length < batchSize ? null : k.keyOf(rows[rows.length - 1]);
      });
      if (last === null) break;
      after = last;
    }
    counts[k.name] = total;
  }
  return { ...counts, unopenableKeyIds: [...unopenableKeyIds].sort() };
}
