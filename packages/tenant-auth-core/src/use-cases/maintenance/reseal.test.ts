import { createCipheriv, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { mailSealOn } from '../../mechanisms/mail/sealing.js';
import { createDataSealer, type DataKey, derivedDataKey } from '../../mechanisms/sealing/data-key.js';
import {
  SSO_SECRET_PURPOSE,
  TOTP_SECRET_PURPOSE,
  totpBinding,
} from '../../mechanisms/sealing/stored-values.js';
import { WEBHOOK_SECRET_PURPOSE, webhookBinding } from '../../mechanisms/webhooks/webhook-payload.js';
import { createMemoryStores } from '../../memory/memory-stores.js';
import type { CompleteTenantAuthStores } from '../../ports/tenant-auth-stores.js';
import { at, outboxMessage, tenantAndOwner } from '../../testing/fixtures.js';
import { quiet } from '../../testing/test-helpers.js';
import { isTenantAuthError } from '../../vocabulary/errors.js';
import { resealStoredValues } from './reseal.js';

const random = (n: number) => randomBytes(n);
const key = (id: string): DataKey => ({ id, key: randomBytes(32) });
const legacy = derivedDataKey(Buffer.from('refresh-secret-of-a-1.1-deployment-0123'));
const sealerOf = (current: DataKey, previous: DataKey[] = []) =>
  createDataSealer({ current, previous }, legacy, random);

/** 1.1's outbox format: `v1.<iv>.<body>`, no key id, the row as additional data, the derived key. */
function legacyPayload(binding: string, json: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', legacy.key, iv, { authTagLength: 16 });
  cipher.setAAD(Buffer.from(binding));
  const body = Buffer.concat([cipher.update(json), cipher.final(), cipher.getAuthTag()]);
  return `v1.${iv.toString('base64url')}.${body.toString('base64url')}`;
}

/** Three TOTP users and two SSO connections sealed with `a`, two outbox mails (one of 1.1). */
async function storedUnder(
  a: DataKey,
): Promise<{ stores: CompleteTenantAuthStores; users: { tenantId: string; id: string }[] }> {
  const stores = createMemoryStores();
  const sealer = sealerOf(a);
  const users = [];
  for (let i = 0; i < 3; i++) {
    const { tenant, user } = tenantAndOwner();
    await stores.tenants.create(tenant);
    await stores.users.create(user);
    const sealedSecret = sealer.seal(Buffer.from(`secret-${i}`), TOTP_SECRET_PURPOSE, totpBinding(user));
    await stores.factors.saveTotpSetup(user.tenantId, user.id, { sealedSecret, createdAt: at(0) });
    if (i < 2) {
      await stores.sso.saveConnection({
        tenantId: tenant.id,
        protocol: 'oidc',
        issuer: 'https://idp.example.com',
        settings: { clientId: 'c' },
        sealedSecret: sealer.seal(Buffer.from(`client-${i}`), SSO_SECRET_PURPOSE, tenant.id),
        enforce: false,
        defaultRole: 'member',
        createdAt: at(0),
        updatedAt: at(0),
      });
    }
    if (i === 0) {
      const id = '019b0000-0000-7000-8000-000000000001';
      await stores.webhooks.createEndpoint({
        id,
        tenantId: tenant.id,
        url: 'https://hooks.example.com/',
        events: ['*'],
        description: null,
        sealedSecret: sealer.seal(
          Buffer.from('whsec_c2VjcmV0'),
          WEBHOOK_SECRET_PURPOSE,
          webhookBinding(tenant.id, id),
        ),
        enabled: true,
        disabledReason: null,
        createdAt: at(0),
        consecutiveFailures: 0,
        failingSince: null,
      });
    }
    users.push(user);
  }
  const mail = outboxMessage({ template: 'invitation', to: 'ada@example.com' });
  await stores.outbox.enqueue({
    ...mail,
    payload: mailSealOn(sealer).seal({ subject: 's', text: 't' } as never, mail),
  });
  const old = outboxMessage({ template: 'password_reset', to: 'bob@example.com' });
  await stores.outbox.enqueue({
    ...old,
    payload: legacyPayload(`${old.id}|${old.to}|${old.template}`, '{"subject":"old"}'),
  });
  return { stores, users };
}

describe('resealStoredValues (after a data-key rotation)', () => {
  it('re-seals every kind with the current key, in batches, and a second run finds nothing to do', async () => {
    const a = key('kA');
    const b = key('kB');
    const { stores, users } = await storedUnder(a);
    const rotated = sealerOf(b, [a]);
    const first = await resealStoredValues({ stores, sealer: rotated, logger: quiet }, { batchSize: 2 });
    expect(first).toEqual({
      totpSecrets: { resealed: 3, current: 0, unopenable: 0 },
      ssoSecrets: { resealed: 2, current: 0, unopenable: 0 },
      outboxPayloads: { resealed: 2, current: 0, unopenable: 0 },
      webhookSecrets: { resealed: 1, current: 0, unopenable: 0 },
      unopenableKeyIds: [],
    });
    // Everything now opens with B alone, the 1.1 payload included.
    const [endpoint] = await stores.webhooks.listSealedSecrets({ after: null, limit: 5 });
    if (!endpoint) throw new Error('no endpoint');
    const binding = webhookBinding(endpoint.tenantId, endpoint.id);
    expect(sealerOf(b).open(endpoint.sealedSecret, WEBHOOK_SECRET_PURPOSE, binding).toString()).toBe(
      'whsec_c2VjcmV0',
    );
    const onlyB = sealerOf(b);
    for (const [i, u] of users.entries()) {
      const factor = await stores.factors.findTotp(u.tenantId, u.id);
      expect(onlyB.open(factor?.sealedSecret ?? '', TOTP_SECRET_PURPOSE, totpBinding(u)).toString()).toBe(
        `secret-${i}`,
      );
    }
    const payloads = (await stores.outbox.listSealedPayloads?.({ after: null, limit: 10 })) ?? [];
    expect(payloads.map((p) => onlyB.keyIdOf(p.payload))).toEqual(['kB', 'kB']);
    expect(payloads.map((p) => mailSealOn(onlyB).open(p.payload, p).subject).sort()).toEqual(['old', 's']);
    const again = await resealStoredValues({ stores, sealer: rotated, logger: quiet }, { batchSize: 2 });
    expect(again).toEqual({
      totpSecrets: { resealed: 0, current: 3, unopenable: 0 },
      ssoSecrets: { resealed: 0, current: 2, unopenable: 0 },
      outboxPayloads: { resealed: 0, current: 2, unopenable: 0 },
      webhookSecrets: { resealed: 0, current: 1, unopenable: 0 },
      unopenableKeyIds: [],
    });
  });

  it('leaves alone a value a request rewrote between the read and the write (safe while serving)', async () => {
    const a = key('kA');
    const b = key('kB');
    const { stores, users } = await storedUnder(a);
    const rotated = sealerOf(b, [a]);
    const first = users[0] ?? { tenantId: '', id: '' };
    const rewritten = rotated.seal(Buffer.from('set up again'), TOTP_SECRET_PURPOSE, totpBinding(first));
    // A request sets the first user's factor up again just before the re-seal writes it.
    const racing: CompleteTenantAuthStores = {
      ...stores,
      transaction: (fn) =>
        stores.transaction((tx) =>
          fn({
            ...tx,
            factors: {
              ...tx.factors,
              async resealTotpSecret(tenantId, userId, expected, sealedSecret) {
                if (userId === first.id)
                  await tx.factors.saveTotpSetup(tenantId, userId, {
                    sealedSecret: rewritten,
                    createdAt: at(5),
                  });
                return (
                  (await tx.factors.resealTotpSecret?.(tenantId, userId, expected, sealedSecret)) ?? false
                );
              },
            },
          }),
        ),
    };
    const result = await resealStoredValues({ stores: racing, sealer: rotated, logger: quiet });
    expect(result.totpSecrets).toEqual({ resealed: 2, current: 1, unopenable: 0 });
    expect((await stores.factors.findTotp(first.tenantId, first.id))?.sealedSecret).toBe(rewritten);
  });

  it('leaves a value no configured key opens as it is, and names its key', async () => {
    const a = key('kA');
    const { stores, users } = await storedUnder(a);
    const before = await stores.factors.findTotp(users[0]?.tenantId ?? '', users[0]?.id ?? '');
    const wrongPrevious = sealerOf(key('kB'), [key('kC')]);
    const result = await resealStoredValues({ stores, sealer: wrongPrevious, logger: quiet });
    expect(result.totpSecrets).toEqual({ resealed: 0, current: 0, unopenable: 3 });
    expect(result.ssoSecrets).toEqual({ resealed: 0, current: 0, unopenable: 2 });
    // The 1.1 payload opens with the key derived from the refresh secret, whatever the data keys.
    expect(result.outboxPayloads).toEqual({ resealed: 1, current: 0, unopenable: 1 });
    expect(result.unopenableKeyIds).toEqual(['kA']);
    expect(await stores.factors.findTotp(users[0]?.tenantId ?? '', users[0]?.id ?? '')).toEqual(before);
  });

  it('refuses stores without the re-seal verbs with invalid_configuration naming the verb', async () => {
    const stores = createMemoryStores();
    const { listSealedTotpSecrets: _, ...factors } = stores.factors;
    const partial = { ...stores, factors } as CompleteTenantAuthStores;
    const err = await resealStoredValues({
      stores: partial,
      sealer: sealerOf(key('k1')),
      logger: quiet,
    }).catch((e: unknown) => e);
    expect(isTenantAuthError(err, 'invalid_configuration') && err.option).toBe(
      'stores.factors.listSealedTotpSecrets',
    );
    await expect(
      resealStoredValues({ stores, sealer: sealerOf(key('k1')), logger: quiet }, { batchSize: 0 }),
    ).rejects.toMatchObject({ code: 'invalid_configuration', option: 'batchSize' });
  });
});
