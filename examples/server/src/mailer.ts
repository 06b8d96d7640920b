import nodemailer from 'nodemailer';
import type { Mailer } from 'tenant-auth-core';
import type { ServerConfig } from './config.js';
import type { Logger } from './logger.js';

/**
 * The server's mail transport: SMTP through nodemailer with `SMTP_URL`; without it (development only:
 * production refuses to start), every message goes to the log, link included, with a warning at start-up.
 *
 * @example
 * const mailer = createMailer(config, logger);
 */
export function createMailer(config: ServerConfig, logger: Logger): Mailer {
  const { smtpUrl } = config.mail;
  if (smtpUrl === undefined) {
    logger.warn(
      { mail: 'log' },
      'SMTP_URL is not set: emails are written to this log instead of being sent (development only)',
    );
    return {
      async send(message) {
        logger.info(
          { mail: { to: message.to, from: message.from, subject: message.subject, text: message.text } },
          `email to ${message.to}: ${message.subject}`,
        );
      },
    };
  }
  const transport = nodemailer.createTransport(smtpTransportOptions(smtpUrl, config.production));
  return {
    async send(message) {
      await transport.sendMail({
        from: message.from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        html: message.html,
      });
    },
  };
}

/**
 * nodemailer's options for `SMTP_URL`. `smtps://` speaks TLS from the first byte. `smtp://` upgrades
 * with STARTTLS when the server offers it, which an attacker on the path can strip (remove the offer) to
 * read the emails' links and the SMTP password; so in production STARTTLS is required (`requireTLS`): a
 * server that does not offer it fails the attempt instead of getting the message in clear.
 *
 * @example
 * nodemailer.createTransport(smtpTransportOptions('smtp://user:pass@smtp.example.com:587', true));
 */
export function smtpTransportOptions(
  smtpUrl: string,
  production: boolean,
): {
  url: string;
  requireTLS?: true;
  connectionTimeout: number;
  greetingTimeout: number;
  socketTimeout: number;
} {
  return {
    url: smtpUrl,
    // The parsed scheme, not the text: `SMTP://` is `smtp:` too (URL lower-cases it, and so does nodemailer).
    // Anything but `smtps:` requires STARTTLS, so a scheme spelled another way fails closed.
    ...(production && !isSmtps(smtpUrl) ? { requireTLS: true } : {}),
    // A mail server that does not answer must fail the attempt (the outbox retries it), not hang it.
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  };
}

/** Whether `SMTP_URL` speaks TLS from the first byte (`smtps:`, in any case). */
function isSmtps(smtpUrl: string): boolean {
  try {
    return new URL(smtpUrl).protocol === 'smtps:';
  } catch {
    return false;
  }
}
