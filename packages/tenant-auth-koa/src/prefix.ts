import { configurationError } from 'tenant-auth-core';

/**
 * @internal Validates a route prefix (or a group's mount path, named by `option`): `''` or
 * `/segment[/segment...]`, no trailing slash.
 */
export function normalizePrefix(value: unknown, option = 'prefix'): string {
  const prefix = value === undefined ? '/api/v1' : value;
  if (typeof prefix !== 'string' || (prefix !== '' && !/^(\/[A-Za-z0-9._~-]+)+$/.test(prefix))) {
    throw configurationError(
      'createTenantAuthKoa',
      option,
      "must be '' or a path such as /api/v1 (segments of letters, digits, '.', '_', '~', '-'; no trailing slash)",
    );
  }
  return prefix;
}

/** @internal Whether `path` is the prefix itself or below it (runs on every request: builds no string). */
export function isUnderPrefix(path: string, prefix: string): boolean {
  return (
    prefix === '' ||
    (path.startsWith(prefix) && (path.length === prefix.length || path.charCodeAt(prefix.length) === SLASH))
  );
}

const SLASH = 0x2f;
