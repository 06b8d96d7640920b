import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** One message as the SMTP server received it. */
export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  /** The text/plain part, decoded. */
  text: string;
  raw: string;
}

/** Decodes quoted-printable (RFC 2045 6.7): soft line breaks and =XX escapes. */
function decodeQuotedPrintable(body: string): string {
  const bytes = body
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

function headerOf(head: string, name: string): string {
  const match = head.match(new RegExp(`^${name}:\\s*(.*(?:\\r?\\n[ \\t].*)*)`, 'im'));
  return (match?.[1] ?? '').replace(/\r?\n[ \t]/g, ' ').trim();
}

/** The decoded text/plain part of a MIME message (single part or multipart/alternative). */
function textPart(raw: string): string {
  const split = (message: string) => {
    const at = message.search(/\r?\n\r?\n/);
    return { head: message.slice(0, at), body: message.slice(at).replace(/^\r?\n\r?\n/, '') };
  };
  const decode = (head: string, body: string) => {
    const encoding = headerOf(head, 'Content-Transfer-Encoding').toLowerCase();
    if (encoding === 'quoted-printable') return decodeQuotedPrintable(body);
    if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
    return body;
  };
  const { head, body } = split(raw);
  const boundary = headerOf(head, 'Content-Type').match(/boundary="?([^";]+)"?/i)?.[1];
  if (!boundary) return decode(head, body);
  for (const part of body.split(`--${boundary}`)) {
    const trimmed = part.replace(/^\r?\n/, '');
    if (!/^content-type:\s*text\/plain/im.test(trimmed.slice(0, trimmed.search(/\r?\n\r?\n/)))) continue;
    const { head: partHead, body: partBody } = split(trimmed);
    return decode(partHead, partBody.replace(/\r?\n$/, ''));
  }
  return '';
}

function decodeSubject(value: string): string {
  // RFC 2047 encoded words, as nodemailer writes non-ASCII subjects.
  return value.replace(/=\?utf-8\?([bq])\?([^?]*)\?=/gi, (_, kind: string, text: string) =>
    kind.toLowerCase() === 'b'
      ? Buffer.from(text, 'base64').toString('utf8')
      : decodeQuotedPrintable(text.replace(/_/g, ' ')),
  );
}

/**
 * A real SMTP server inside the tests (smtp-server, from the nodemailer project): the reference server
 * sends to it over TCP, and tests read the links from what it received, never from a back door.
 * `refuse` makes it answer every message with a temporary failure, as a mail server having a bad day.
 */
export class TestInbox {
  readonly messages: ReceivedMail[] = [];
  /** Answer every message with this SMTP error (a number like 451), or accept them (`undefined`). */
  refuse: number | undefined;
  #server: SMTPServer;
  #waiters: Array<() => void> = [];
  port = 0;

  constructor() {
    this.#server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          if (this.refuse !== undefined) {
            const err = Object.assign(new Error('Try again later'), { responseCode: this.refuse });
            callback(err);
            return;
          }
          const raw = Buffer.concat(chunks).toString('utf8');
          const head = raw.slice(0, raw.search(/\r?\n\r?\n/));
          this.messages.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            subject: decodeSubject(headerOf(head, 'Subject')),
            text: textPart(raw),
            raw,
          });
          for (const wake of this.#waiters.splice(0)) wake();
          callback();
        });
      },
    });
  }

  async start(): Promise<this> {
    this.#server.listen(0, '127.0.0.1');
    await once(this.#server.server, 'listening');
    this.port = (this.#server.server.address() as AddressInfo).port;
    return this;
  }

  /** `smtp://127.0.0.1:<port>` for `SMTP_URL`. */
  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** Messages received for `address`. */
  to(address: string): ReceivedMail[] {
    return this.messages.filter((m) => m.to.includes(address));
  }

  /** Waits until `count` messages for `address` arrived (default: one more than now), up to `timeoutMs`. */
  async waitFor(
    address: string,
    count = this.to(address).length + 1,
    timeoutMs = 10_000,
  ): Promise<ReceivedMail> {
    const deadline = Date.now() + timeoutMs;
    while (this.to(address).length < count) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no mail #${count} for ${address} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 200));
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.to(address)[count - 1] as ReceivedMail;
  }

  /** Runs `action`, then waits for the message to `address` it causes. */
  async receive(address: string, action: () => Promise<unknown>): Promise<ReceivedMail> {
    const before = this.to(address).length;
    await action();
    return this.waitFor(address, before + 1);
  }

  /** The token of the link to `path` in a received message. */
  static tokenOf(mail: ReceivedMail, path: string): string {
    for (const match of mail.text.matchAll(/https?:\/\/\S+/g)) {
      const url = new URL(match[0]);
      if (url.pathname === path) return url.searchParams.get('token') ?? '';
    }
    throw new Error(`no link to ${path} in "${mail.subject}"`);
  }

  /** Runs `action` and returns the token of the link to `path` in the message it sends to `address`. */
  async tokenFrom(address: string, path: string, action: () => Promise<unknown>): Promise<string> {
    return TestInbox.tokenOf(await this.receive(address, action), path);
  }
}
