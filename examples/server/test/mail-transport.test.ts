import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { createMailer, smtpTransportOptions } from '../src/mailer.js';
import { TestInbox } from './helpers/smtp.js';
import { TEST_SECRETS } from './helpers/test-server.js';

/*
 * SMTP without TLS: `smtp://` upgrades with STARTTLS only when the server offers it, and an attacker on
 * the path can remove the offer. Production requires it; development (a local mail catcher) does not.
 */

const production = {
  NODE_ENV: 'production',
  ...TEST_SECRETS,
  CORS_ORIGINS: 'https://app.example.com',
  APP_URL: 'https://app.example.com',
  MAIL_FROM: 'Example <no-reply@example.com>',
};

const message = {
  from: 'Example <no-reply@example.com>',
  to: 'ada@example.com',
  subject: 'Reset your password',
  text: 'https://app.example.com/reset-password?token=secret-link-token',
  html: '<p><a href="https://app.example.com/reset-password?token=secret-link-token">Reset</a></p>',
};

describe('the SMTP transport', () => {
  let inbox: TestInbox;
  const logger = createLogger({ level: 'silent', destination: { write: () => {} } });

  // A real SMTP server that does not offer STARTTLS: what a stripped offer looks like to the client.
  beforeAll(async () => {
    inbox = await new TestInbox().start();
  });
  afterAll(async () => {
    await inbox?.stop();
  });

  it('requires STARTTLS for smtp:// in production, and not in development or with smtps://', () => {
    expect(smtpTransportOptions('smtp://u:p@smtp.example.com:587', true)).toMatchObject({ requireTLS: true });
    expect(smtpTransportOptions('smtp://u:p@smtp.example.com:587', false).requireTLS).toBeUndefined();
    // TLS from the first byte: there is no offer to strip.
    expect(smtpTransportOptions('smtps://u:p@smtp.example.com:465', true).requireTLS).toBeUndefined();
  });

  it('in production, refuses to send in clear to a server that offers no STARTTLS', async () => {
    const config = parseConfig({ ...production, SMTP_URL: inbox.url });
    await expect(createMailer(config, logger).send(message)).rejects.toThrow(/STARTTLS|TLS/);
    expect(inbox.to(message.to)).toEqual([]);
  });

  it('requires STARTTLS for SMTP:// too (the scheme in any case), and refuses to send in clear', async () => {
    expect(smtpTransportOptions('SMTP://u:p@smtp.example.com:587', true)).toMatchObject({ requireTLS: true });
    expect(smtpTransportOptions('SMTPS://u:p@smtp.example.com:465', true).requireTLS).toBeUndefined();
    const config = parseConfig({ ...production, SMTP_URL: inbox.url.replace(/^smtp:/, 'SMTP:') });
    expect(config.mail.smtpUrl).toMatch(/^SMTP:\/\//);
    await expect(createMailer(config, logger).send(message)).rejects.toThrow(/STARTTLS|TLS/);
    expect(inbox.to(message.to)).toEqual([]);
  });

  it('in development, sends to a local mail catcher without TLS', async () => {
    const config = parseConfig({ SMTP_URL: inbox.url });
    await createMailer(config, logger).send(message);
    // send() resolves once the server accepted the message.
    expect(inbox.to(message.to).map((m) => m.subject)).toEqual([message.subject]);
  });
});
