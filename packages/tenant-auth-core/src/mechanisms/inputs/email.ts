import { z } from 'zod';
import type { FieldError } from '../../vocabulary/errors.js';

/** RFC 5321: at most 254 octets for a whole address (a 256-octet path minus the angle brackets). */
export const EMAIL_MAX_LENGTH = 254;
/** RFC 5321: at most 64 octets for the local part. */
export const EMAIL_LOCAL_PART_MAX_LENGTH = 64;
/** RFC 1035: at most 63 octets per domain label. */
const DOMAIN_LABEL_MAX_LENGTH = 63;

const emailSchema = z.email();

/** The outcome of {@link parseEmail}. */
export type ParsedEmail =
  | { ok: true; email: string; localPart: string; domain: string }
  | { ok: false; error: FieldError };

function invalid(message: string): { ok: false; error: FieldError } {
  return { ok: false, error: { field: 'email', code: 'invalid_email', message } };
}

/** ASCII whitespace only: a Unicode space is part of the address, not padding around it. */
const ASCII_PADDING = /^[ \t\r\n]+|[ \t\r\n]+$/g;

/**
 * @internal The normalised form of an email address, the one rule every lookup by email uses: ASCII
 * whitespace trimmed, ASCII letters lower-cased, nothing else touched. Registration accepts ASCII
 * addresses only, and no Unicode character is ever folded or normalised into ASCII here, so an address
 * that differs from an account's only by such characters (the Kelvin sign `K` for `k`, a Turkish dotted
 * `İ`, a fullwidth `ａ`, a combining mark) never reaches that account, in login or in any later flow.
 * (Full Unicode lower-casing turns `\u212A` into `k`: the classic account-takeover path.)
 *
 * @example
 * normalizeEmail('  Ada@Example.COM ') // 'ada@example.com'
 * normalizeEmail('\u212Aelvin@example.com') // '\u212Aelvin@example.com': not kelvin@example.com
 */
export function normalizeEmail(s: string): string {
  return s.replace(ASCII_PADDING, '').replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

/**
 * Validates and normalises an email address from untrusted input. The length caps (254 in total, 64 for
 * the local part, measured in UTF-8 bytes of the trimmed input) are checked before any parsing, so an
 * oversized value never reaches the parser. The address must then parse with zod's `z.email()`.
 *
 * Never throws: a missing or empty value gives `required`, anything else invalid gives `invalid_email`.
 *
 * @example
 * const parsed = parseEmail(body.email);
 * if (!parsed.ok) throw validationError([parsed.error]);
 * parsed.email;     // 'ada@example.com'
 * parsed.localPart; // 'ada'
 * parsed.domain;    // 'example.com'
 */
export function parseEmail(input: unknown): ParsedEmail {
  if (input === undefined || input === null) {
    return {
      ok: false,
      error: { field: 'email', code: 'required', message: 'An email address is required.' },
    };
  }
  if (typeof input !== 'string') {
    return {
      ok: false,
      error: { field: 'email', code: 'invalid_type', message: 'The email address must be a string.' },
    };
  }
  const trimmed = input.replace(ASCII_PADDING, '');
  if (trimmed === '') {
    return {
      ok: false,
      error: { field: 'email', code: 'required', message: 'An email address is required.' },
    };
  }
  // Caps first: bound the work of everything that follows.
  if (Buffer.byteLength(trimmed, 'utf8') > EMAIL_MAX_LENGTH) {
    return invalid(`The email address must be at most ${EMAIL_MAX_LENGTH} characters long.`);
  }
  const at = trimmed.lastIndexOf('@');
  if (at >= 0 && Buffer.byteLength(trimmed.slice(0, at), 'utf8') > EMAIL_LOCAL_PART_MAX_LENGTH) {
    return invalid(`The part before the @ must be at most ${EMAIL_LOCAL_PART_MAX_LENGTH} characters long.`);
  }
  // Printable ASCII only: see normalizeEmail for why nothing that folds into ASCII may be registered.
  if (!/^[\x21-\x7e]+$/.test(trimmed)) {
    return invalid('The email address must be written in ASCII letters, digits and symbols.');
  }
  if (!emailSchema.safeParse(trimmed).success) return invalid('The email address is not valid.');
  const email = normalizeEmail(trimmed);
  const localPart = email.slice(0, at);
  const domain = email.slice(at + 1);
  if (domain.split('.').some((label) => label.length > DOMAIN_LABEL_MAX_LENGTH)) {
    return invalid('The email address is not valid.');
  }
  return { ok: true, email, localPart, domain };
}
