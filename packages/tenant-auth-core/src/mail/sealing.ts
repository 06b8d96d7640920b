import { createCipheriv, createDecipheriv, hkdfSync } from 'node:crypto';
import type { RandomBytes } from '../clock.js';
import type { MailContent } from './templates.js';

const VERSION = 'v1';
/** The full 128-bit GCM tag, said explicitly: a shorter tag given to `setAuthTag` must never be taken. */
const TAG_BYTES = 16;

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
const additionalData = ({ id, to, template }: SealBinding) => Buffer.from(`${id}|${to}|${template}`, 'utf8');

/**
 * @internal Seals outbox payloads with AES-256-GCM, under a key derived (HKDF-SHA256) from the refresh
 * secret. The rendered mail carries a live link, and tokens are stored only as hashes everywhere else:
 * a copy of the database must not give the links back, and a write to it must not redirect them (the
 * payload is bound to its row's id, recipient and template).
 */
export interface MailSeal {
  seal(content: MailContent, binding: SealBinding): string;
  /** Throws when the payload was sealed under another key, for another row, or altered. */
  open(sealed: string, binding: SealBinding): MailContent;
}

/** @internal */
export function createMailSeal(secret: Uint8Array, random: RandomBytes): MailSeal {
  const key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'tenant-auth/outbox/v1', 32));
  return {
    seal(content, binding) {
      const iv = Buffer.from(random(12));
      const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(additionalData(binding));
      const body = Buffer.concat([
        cipher.update(JSON.stringify(content), 'utf8'),
        cipher.final(),
        cipher.getAuthTag(),
      ]);
      return `${VERSION}.${iv.toString('base64url')}.${body.toString('base64url')}`;
    },
    open(sealed, binding) {
      const [version, iv, body] = sealed.split('.');
      if (version !== VERSION || !iv || !body) throw new TypeError('not a sealed outbox payload');
      const bytes = Buffer.from(body, 'base64url');
      if (bytes.length < TAG_BYTES) throw new TypeError('not a sealed outbox payload');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), {
        authTagLength: TAG_BYTES,
      });
      decipher.setAAD(additionalData(binding));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      const json = Buffer.concat([
        decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)),
        decipher.final(),
      ]);
      return JSON.parse(json.toString('utf8')) as MailContent;
    },
  };
}
