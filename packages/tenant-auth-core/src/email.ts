import { z } from 'zod';
import type { FieldError } from './errors.js';

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

/**
 * The normalised form of an email address: trimmed and lower-cased. Uniqueness is checked on this form,
 * so it is case-insensitive.
 *
 * @example
 * normalizeEmail('  Ada@Example.COM ') // 'ada@example.com'
 */
export function normalizeEmail(s: string): string {
  return s.trim().toLowerCase();
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
  if (typeof input !== 'string') return invalid('The email address must be a string.');
  const trimmed = input.trim();
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
  if (!emailSchema.safeParse(trimmed).success) return invalid('The email address is not valid.');
  const email = normalizeEmail(trimmed);
  const localPart = email.slice(0, at);
  const domain = email.slice(at + 1);
  if (domain.split('.').some((label) => label.length > DOMAIN_LABEL_MAX_LENGTH)) {
    return invalid('The email address is not valid.');
  }
  return { ok: true, email, localPart, domain };
}
