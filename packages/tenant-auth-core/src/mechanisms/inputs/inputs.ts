import { type FieldError, validationError } from '../../vocabulary/errors.js';
import { cleanText, DEVICE_INFO_MAX_LENGTH } from './device-info.js';

/** Longest tenant name, in characters once trimmed. */
export const TENANT_NAME_MAX_LENGTH = 100;

type Checked<T> = { ok: true; value: T } | { ok: false; error: FieldError };

/** Counts code points, so an emoji is one character. */
const length = (s: string) => [...s].length;

/** @internal A C0 or C1 control character: refused in names and emails, before any hashing or query. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
export const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/** @internal A lone surrogate: text that is not well-formed Unicode has no UTF-8 form to store or hash. */
export const ILL_FORMED = /\p{Cs}/u;

/**
 * @internal The tenant name rule: optional; when given, 1 to 100 characters once trimmed, no control
 * characters.
 */
export function checkTenantName(value: unknown): Checked<string | undefined> {
  if (value === undefined || value === null) return { ok: true, value: undefined };
  const field = 'tenantName';
  if (typeof value !== 'string') {
    return {
      ok: false,
      error: { field, code: 'invalid_type', message: 'The tenant name must be a string.' },
    };
  }
  const trimmed = value.trim();
  if (trimmed === '') {
    return { ok: false, error: { field, code: 'too_short', message: 'The tenant name must not be empty.' } };
  }
  if (length(trimmed) > TENANT_NAME_MAX_LENGTH) {
    return {
      ok: false,
      error: {
        field,
        code: 'too_long',
        message: `The tenant name must be at most ${TENANT_NAME_MAX_LENGTH} characters long.`,
      },
    };
  }
  if (CONTROL_CHARACTER.test(trimmed) || ILL_FORMED.test(trimmed)) {
    return {
      ok: false,
      error: {
        field,
        code: 'invalid_value',
        message: 'The tenant name must be valid text without control characters.',
      },
    };
  }
  return { ok: true, value: trimmed };
}

/** @internal Optional free text (`deviceInfo`): a string of at most 200 characters. */
export function optionalText(value: unknown, field: string): Checked<string | undefined> {
  if (value === undefined || value === null) return { ok: true, value: undefined };
  if (typeof value !== 'string') {
    return { ok: false, error: { field, code: 'invalid_type', message: `${field} must be a string.` } };
  }
  if (ILL_FORMED.test(value)) {
    return { ok: false, error: { field, code: 'invalid_value', message: `${field} must be valid text.` } };
  }
  if (length(value) > DEVICE_INFO_MAX_LENGTH) {
    return {
      ok: false,
      error: {
        field,
        code: 'too_long',
        message: `${field} must be at most ${DEVICE_INFO_MAX_LENGTH} characters long.`,
      },
    };
  }
  return { ok: true, value: cleanText(value, DEVICE_INFO_MAX_LENGTH) ?? undefined };
}

/** @internal A required string field of at most `max` characters, or a `validation_failed`. */
export function requiredText(value: unknown, field: string, max = 1024): string {
  if (value === undefined || value === null || value === '') {
    throw validationError([{ field, code: 'required', message: `${field} is required.` }]);
  }
  if (typeof value !== 'string') {
    throw validationError([{ field, code: 'invalid_type', message: `${field} must be a string.` }]);
  }
  if (ILL_FORMED.test(value)) {
    throw validationError([{ field, code: 'invalid_value', message: `${field} must be valid text.` }]);
  }
  if (value.length > max) {
    throw validationError([
      { field, code: 'too_long', message: `${field} must be at most ${max} characters long.` },
    ]);
  }
  return value;
}
