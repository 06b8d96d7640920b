import type { Mailer } from '../../ports/mailer.js';
import { fail, integer, object, text } from '../option-checks.js';
import type { MailSettings } from './mail-outbox.js';
import { defaultTemplates, type MailTemplates } from './templates.js';

/**
 * Email (the `mail` option of `createTenantAuth`): what invitations, password resets, verification and
 * email changes need. Messages are written to the outbox in the same transaction as their token and
 * delivered by `auth.startMailDelivery()` (or `auth.deliverMail()` from a job of your own).
 *
 * @example
 * const mail: MailOptions = {
 *   mailer: { send: async (message) => { await transport.sendMail(message); } },
 *   from: 'Acme <no-reply@acme.example>',
 *   appUrl: 'https://app.acme.example',
 * };
 */
export interface MailOptions {
  /** The transport. */
  mailer: Mailer;
  /** The sender, e.g. `'Acme <no-reply@acme.example>'`. */
  from: string;
  /**
   * The web application the links open: `appUrl + path + "?token=" + token`, with the paths
   * `/accept-invitation`, `/reset-password`, `/verify-email`, `/confirm-email-change`.
   */
  appUrl: string;
  /** Replacements for any of the default templates. */
  templates?: Partial<MailTemplates>;
  /** Delivery attempts before a message is given up (marked dead and logged). Default 10 (about 3 hours: 30 s after the first failure, doubling up to an hour). */
  maxAttempts?: number;
}

/** @internal Validates the `mail` option. */
export function resolveMail(value: unknown): MailSettings | undefined {
  const mail = object<MailOptions>('mail', value);
  if (!mail) return undefined;
  if (typeof mail.mailer?.send !== 'function')
    throw fail('mail.mailer', 'must be a Mailer (an object with send())');
  const from = text('mail.from', mail.from, '');
  if (from === '') throw fail('mail.from', 'is required (the sender address)');
  let appUrl: URL;
  try {
    appUrl = new URL(text('mail.appUrl', mail.appUrl, ''));
  } catch {
    throw fail('mail.appUrl', `must be an absolute http(s) URL (got ${String(mail.appUrl)})`);
  }
  if ((appUrl.protocol !== 'https:' && appUrl.protocol !== 'http:') || appUrl.search || appUrl.hash) {
    throw fail(
      'mail.appUrl',
      `must be an http(s) URL without query or fragment (got ${String(mail.appUrl)})`,
    );
  }
  const templates = object<Partial<MailTemplates>>('mail.templates', mail.templates) ?? {};
  for (const [name, template] of Object.entries(templates)) {
    if (!(name in defaultTemplates))
      throw fail(`mail.templates.${name}`, 'is not a template tenant-auth sends');
    if (typeof template !== 'function') throw fail(`mail.templates.${name}`, 'must be a function');
  }
  return {
    mailer: mail.mailer,
    from,
    appUrl: appUrl.href.replace(/\/+$/, ''),
    templates: { ...defaultTemplates, ...templates },
    maxAttempts: integer('mail.maxAttempts', mail.maxAttempts, 10, 1, 100),
  };
}
