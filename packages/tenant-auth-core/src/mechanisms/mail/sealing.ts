import type { RandomBytes } from '../../vocabulary/clock.js';
import { createDataSealer, type DataSealer, derivedDataKey } from '../sealing/data-key.js';
import type { MailContent } from './templates.js';

/**
 * @internal The outbox row a payload belongs to. Authenticated with it (AES-GCM additional data), so a
 * payload copied to another row (another recipient, another template) does not open.
 */
export interface SealBinding {
  id: string;
  to: string;
  template: string;
}

/**
 * `id|recipient|template`. Unambiguous although an address may hold `|`: the id (a uuid) and the
 * template name never do, so the first and the last `|` delimit the recipient.
 */
const bindingOf = ({ id, to, template }: SealBinding) => `${id}|${to}|${template}`;

/**
 * @internal Seals outbox payloads with the data keys (`../sealing/data-key.ts`). The rendered mail carries a
 * live link, and tokens are stored only as hashes everywhere else: a copy of the database must not give
 * the links back, and a write to it must not redirect them (the payload is bound to its row's id,
 * recipient and template).
 */
export interface MailSeal {
  seal(content: MailContent, binding: SealBinding): string;
  /** Throws when the payload was sealed under a key not configured, for another row, or altered. */
  open(sealed: string, binding: SealBinding): MailContent;
  /** The same seal over any JSON value (a held request's input). */
  sealData(data: unknown, binding: SealBinding): string;
  /** Opens what `sealData` sealed; throws as `open` does. */
  openData(sealed: string, binding: SealBinding): unknown;
}

/** @internal The outbox's seal on the service's data sealer. */
export function mailSealOn(sealer: DataSealer): MailSeal {
  const sealData = (data: unknown, binding: SealBinding) =>
    sealer.seal(Buffer.from(JSON.stringify(data), 'utf8'), 'outbox', bindingOf(binding));
  const openData = (sealed: string, binding: SealBinding): unknown =>
    JSON.parse(sealer.open(sealed, 'outbox', bindingOf(binding)).toString('utf8'));
  return {
    seal: sealData,
    open: (sealed, binding) => openData(sealed, binding) as MailContent,
    sealData,
    openData,
  };
}

/** @internal A seal under the key derived from `secret` alone, as without the `dataKeys` option. */
export function createMailSeal(secret: Uint8Array, random: RandomBytes): MailSeal {
  const key = derivedDataKey(secret);
  return mailSealOn(createDataSealer({ current: key }, key, random));
}
