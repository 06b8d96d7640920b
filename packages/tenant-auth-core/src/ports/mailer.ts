/**
 * One email, rendered: what a {@link Mailer} sends.
 *
 * @example
 * const message: MailMessage = { from: 'Acme <no-reply@acme.test>', to: 'ada@example.com', subject: 'Hi', text: 'Hi', html: '<p>Hi</p>' };
 */
export interface MailMessage {
  from: string;
  to: string;
  subject: string;
  /** The plain-text body. */
  text: string;
  /** The HTML body. */
  html: string;
}

/**
 * The mail transport port: how tenant-auth hands a rendered email to whatever sends it (SMTP through
 * nodemailer in the reference server, an HTTP API, a test inbox). `send` resolves once the message is
 * accepted for delivery and rejects otherwise; the outbox retries a rejected message with back-off.
 * tenant-auth never calls it from inside a request: messages wait in the outbox, in the same
 * transaction as the token their link carries, and are delivered afterwards.
 *
 * @example
 * import nodemailer from 'nodemailer';
 * const transport = nodemailer.createTransport(process.env.SMTP_URL);
 * const mailer: Mailer = { send: async (message) => { await transport.sendMail(message); } };
 */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
}
