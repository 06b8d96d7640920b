import { createCipheriv, createDecipheriv, hkdfSync } from 'node:crypto';
import type { RandomBytes } from '../clock.js';
import type { MailContent } from './templates.js';

const VERSION = 'v1';

/**
 * @internal Seals outbox payloads with AES-256-GCM, under a key derived (HKDF-SHA256) from the refresh
 * secret. The rendered mail carries a live link, and tokens are stored only as hashes everywhere else:
 * a copy of the database must not give the links back.
 */
export interface MailSeal {
  seal(content: MailContent): string;
  /** Throws when the payload was sealed under another key or altered. */
  open(sealed: string): MailContent;
}

/** @internal */
export function createMailSeal(secret: Uint8Array, random: RandomBytes): MailSeal {
  const key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'tenant-auth/outbox/v1', 32));
  return {
    seal(content) {
      const iv = Buffer.from(random(12));
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([
        cipher.update(JSON.stringify(content), 'utf8'),
        cipher.final(),
        cipher.getAuthTag(),
      ]);
      return `${VERSION}.${iv.toString('base64url')}.${body.toString('base64url')}`;
    },
    open(sealed) {
      const [version, iv, body] = sealed.split('.');
      if (version !== VERSION || !iv || !body) throw new TypeError('not a sealed outbox payload');
      const bytes = Buffer.from(body, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(bytes.subarray(bytes.length - 16));
      const json = Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]);
      return JSON.parse(json.toString('utf8')) as MailContent;
    },
  };
}
