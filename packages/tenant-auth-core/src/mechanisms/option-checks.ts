import { configurationError } from '../vocabulary/errors.js';

/** @internal */
export const FACTORY = 'createTenantAuth';
/** @internal An `invalid_configuration` error of `createTenantAuth` naming `option`. */
export const fail = (option: string, problem: string) => configurationError(FACTORY, option, problem);

/** @internal An integer option in range, or its default. */
export function integer(
  option: string,
  value: unknown,
  fallback: number,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
) {
  const v = value === undefined ? fallback : value;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min || v > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`;
    throw fail(option, `must be an integer ${range} (got ${String(value)})`);
  }
  return v;
}

/** @internal A non-empty string option, or its default. */
export function text(option: string, value: unknown, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || value.trim() === '') throw fail(option, 'must be a non-empty string');
  return value;
}

/** @internal A secret as bytes (a string as UTF-8), or `undefined`. */
export function secretBytes(option: string, value: unknown): Uint8Array | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && value !== '') return Buffer.from(value, 'utf8');
  if (value instanceof Uint8Array && value.length > 0) return value;
  throw fail(option, 'must be a non-empty string or Uint8Array');
}

/** @internal An object option, or `undefined`. */
export function object<T>(option: string, value: unknown): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw fail(option, 'must be an object');
  return value as T;
}
