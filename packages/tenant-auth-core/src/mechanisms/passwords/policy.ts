import {
  configurationError,
  type FieldError,
  type FieldErrorCode,
  fieldError,
} from '../../vocabulary/errors.js';
import { getCommonPasswords } from './common-passwords.js';

/**
 * The password rules (the `passwordPolicy` option of `createTenantAuth`); every rule can be tuned or
 * switched off. Control characters (Unicode Cc, RFC 8265's OpaqueString profile) are refused in every
 * new password whatever the options (`invalid_value`); passwords stored before are not affected.
 *
 * @example
 * const passwordPolicy: PasswordPolicyOptions = { minLength: 14, minCharacterClasses: 2 };
 */
export interface PasswordPolicyOptions {
  /** Minimum length in Unicode code points. Default 12. */
  minLength?: number;
  /** Maximum length in Unicode code points. Default 128. */
  maxLength?: number;
  /**
   * How many of the four classes (lower case, upper case, digits, symbols) must appear, 0 to 4. Default 3.
   * Letters without case (e.g. CJK) count as lower case; anything that is neither letter nor digit
   * (punctuation, spaces, emoji) is a symbol.
   */
  minCharacterClasses?: number;
  /**
   * Reject passwords containing the email's local part, the email's domain label or the tenant's name
   * or slug (case-insensitive), whole or split on non-alphanumerics, for parts of at least
   * `personalInfoMinPartLength` characters. Default true.
   */
  forbidPersonalInfo?: boolean;
  /** Shortest personal-info part that is checked. Default 3. */
  personalInfoMinPartLength?: number;
  /**
   * Common passwords to reject (compared case-insensitively), or `false` to disable the check.
   * Default: the built-in list of about 2,300 passwords.
   */
  commonPasswords?: ReadonlySet<string> | false;
}

/** @internal What the policy knows about the account the password is for. */
export interface PasswordContext {
  email?: string;
  tenantName?: string;
  tenantSlug?: string;
}

/** @internal */
export interface PasswordPolicy {
  /** Shortest password accepted, in code points. */
  readonly minLength: number;
  /** Longest password accepted, in code points. */
  readonly maxLength: number;
  /** Every rule the password breaks, all at once; an empty array when it passes. */
  check(password: string, context?: PasswordContext): FieldError[];
}

/**
 * Generic parts that say nothing about the user, ignored when a name, slug or local part is split
 * into words ("The Acme Company" must not forbid "the"). Whole values are always checked.
 */
const GENERIC_PARTS: ReadonlySet<string> = new Set(['the', 'and', 'for', 'inc', 'llc', 'ltd', 'gmbh']);

/** Second-level labels of public suffixes (`example.co.uk`), never the organisation's own label. */
const GENERIC_DOMAIN_LABELS: ReadonlySet<string> = new Set([
  'co',
  'com',
  'net',
  'org',
  'gov',
  'edu',
  'ac',
  'ltd',
  'plc',
  'nhs',
  'mil',
]);

function configError(message: string, option: string) {
  return configurationError('createTenantAuth', `passwordPolicy.${option}`, message);
}

function requireInteger(name: string, value: number, min: number, max = Number.MAX_SAFE_INTEGER): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw configError(`must be an integer from ${min} to ${max} (got ${String(value)})`, name);
  }
}

/** A control character (Unicode general category Cc), refused in new passwords. */
const CONTROL_CHARACTER = /\p{Cc}/u;

/** Length in Unicode code points (a surrogate pair counts once), without building an array. */
function codePointLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

function characterClasses(password: string): number {
  let n = 0;
  if (/[\p{Ll}\p{Lo}\p{Lm}]/u.test(password)) n++;
  if (/[\p{Lu}\p{Lt}]/u.test(password)) n++;
  if (/\p{N}/u.test(password)) n++;
  if (/[^\p{L}\p{N}]/u.test(password)) n++;
  return n;
}

function fold(s: string): string {
  return s.normalize('NFKC').toLowerCase();
}

/** The value itself and its alphanumeric runs, folded, at least `minLength` code points long. */
function parts(value: string | undefined, minLength: number, out: Set<string>): void {
  if (value === undefined) return;
  const folded = fold(value.trim());
  if (codePointLength(folded) >= minLength) out.add(folded);
  for (const part of folded.split(/[^\p{L}\p{N}]+/u)) {
    if (codePointLength(part) >= minLength && !GENERIC_PARTS.has(part)) out.add(part);
  }
}

function personalInfo(context: PasswordContext, minLength: number): Set<string> {
  const out = new Set<string>();
  if (typeof context.email === 'string') {
    const email = fold(context.email.trim());
    const at = email.lastIndexOf('@');
    parts(at < 0 ? email : email.slice(0, at), minLength, out);
    if (at >= 0) {
      const labels = email.slice(at + 1).split('.');
      // Every label but the top-level one: `example` of `example.com`, `acme` of `mail.acme.co.uk`.
      for (const label of labels.slice(0, -1)) {
        if (!GENERIC_DOMAIN_LABELS.has(label)) parts(label, minLength, out);
      }
    }
  }
  if (typeof context.tenantName === 'string') parts(context.tenantName, minLength, out);
  if (typeof context.tenantSlug === 'string') parts(context.tenantSlug, minLength, out);
  return out;
}

const LETTER = /^\p{L}$/u;

/**
 * `s` without its leading and/or trailing non-letters (digits, symbols, spaces). A linear scan over code
 * points: a regex such as `/[^\p{L}]+$/u` backtracks quadratically on a long run of non-letters followed
 * by a letter, which let one registration request block the event loop for seconds.
 */
function stripNonLetters(s: string, side: 'leading' | 'trailing'): string {
  const chars = [...s];
  if (side === 'leading') {
    let start = 0;
    while (start < chars.length && !LETTER.test(chars[start] ?? '')) start++;
    return chars.slice(start).join('');
  }
  let end = chars.length;
  while (end > 0 && !LETTER.test(chars[end - 1] ?? '')) end--;
  return chars.slice(0, end).join('');
}

/**
 * Whether the password, folded, is on the list, also after dropping any number of its trailing
 * digits and symbols (`Sunshine2024!` -> `sunshine`, `Password1234!` -> `password1`) and after
 * dropping its leading ones too (`!!qwerty123` -> `qwerty123`). A common password padded with digits
 * and symbols to satisfy the length rule is still a common password.
 */
function isCommon(password: string, list: ReadonlySet<string>, longestEntry: number): boolean {
  const folded = fold(password);
  const leadingStripped = stripNonLetters(folded, 'leading');
  for (const candidate of leadingStripped === folded ? [folded] : [folded, leadingStripped]) {
    const base = stripNonLetters(candidate, 'trailing').length;
    // Prefixes from the whole candidate down to its letters-ending base (or the first character when
    // it has no letters at all), never longer than the longest entry: bounded work for any input.
    for (let end = Math.min(candidate.length, longestEntry); end >= Math.max(base, 1); end--) {
      if (list.has(candidate.slice(0, end))) return true;
    }
  }
  return false;
}

/** A field error of the password (its field is renamed by callers that name it otherwise). */
const passwordError = (code: FieldErrorCode, message: string): FieldError =>
  fieldError('password', code, message);

/**
 * Builds the password policy. Defaults: 12 to 128 characters (code points), at least three of lower
 * case, upper case, digits and symbols, no personal information (email local part and domain label,
 * tenant name and slug; parts of 3+ characters, case-insensitive), not a common password. Invalid
 * options throw `invalid_configuration` at creation.
 *
 * @example
 * const policy = createPasswordPolicy({ minLength: 14 });
 * const errors = policy.check(input.password, { email: 'ada@example.com', tenantName: 'Acme' });
 * if (errors.length > 0) throw validationError(errors);
 */
export function createPasswordPolicy(options: PasswordPolicyOptions = {}): PasswordPolicy {
  const minLength = options.minLength ?? 12;
  const maxLength = options.maxLength ?? 128;
  const minCharacterClasses = options.minCharacterClasses ?? 3;
  const forbidPersonalInfo = options.forbidPersonalInfo ?? true;
  const minPartLength = options.personalInfoMinPartLength ?? 3;
  requireInteger('minLength', minLength, 0);
  requireInteger('maxLength', maxLength, Math.max(1, minLength));
  requireInteger('minCharacterClasses', minCharacterClasses, 0, 4);
  requireInteger('personalInfoMinPartLength', minPartLength, 1);

  let common: ReadonlySet<string> | undefined;
  let longestEntry = 0;
  if (options.commonPasswords !== false) {
    const given = options.commonPasswords ?? getCommonPasswords();
    // Fold a caller's list once so the check is case-insensitive whatever case it was written in.
    common = options.commonPasswords === undefined ? given : new Set([...given].map(fold));
    for (const entry of common) longestEntry = Math.max(longestEntry, entry.length);
  }

  return {
    minLength,
    maxLength,
    check(password, context = {}) {
      if (typeof password !== 'string') return [passwordError('required', 'A password is required.')];
      const errors: FieldError[] = [];
      const length = codePointLength(password);
      if (length < minLength) {
        errors.push(
          passwordError('too_short', `The password must be at least ${minLength} characters long.`),
        );
      }
      if (length > maxLength) {
        // Nothing else is worth checking, and no other rule should spend time on an oversized input.
        return [passwordError('too_long', `The password must be at most ${maxLength} characters long.`)];
      }
      // RFC 8265, OpaqueString profile: no control characters (Unicode Cc: NUL, BEL, ESC, DEL, ...). Not a
      // tunable rule: such a password cannot be typed back reliably, and it is cut short by C strings.
      if (CONTROL_CHARACTER.test(password)) {
        errors.push(passwordError('invalid_value', 'The password must not contain control characters.'));
      }
      if (characterClasses(password) < minCharacterClasses) {
        errors.push(
          passwordError(
            'missing_character_classes',
            `The password must contain at least ${minCharacterClasses} of: lower-case letters, upper-case letters, digits, symbols.`,
          ),
        );
      }
      if (forbidPersonalInfo) {
        const folded = fold(password);
        for (const part of personalInfo(context, minPartLength)) {
          if (folded.includes(part)) {
            errors.push(
              passwordError(
                'contains_personal_info',
                'The password must not contain your email address, its domain or the organisation name.',
              ),
            );
            break;
          }
        }
      }
      if (common !== undefined && isCommon(password, common, longestEntry)) {
        errors.push(passwordError('common_password', 'The password is too common.'));
      }
      return errors;
    },
  };
}
