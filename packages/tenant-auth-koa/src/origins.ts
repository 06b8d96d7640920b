import { configurationError } from 'tenant-auth-core';

/**
 * The web origins allowed in development when no `origins` are given (docs/http-api.md, "Rate limiting and CORS"): a Vite dev server and a
 * local web app.
 *
 * @example
 * createTenantAuthKoa({ auth, origins: production ? ['https://app.example.com'] : DEVELOPMENT_ORIGINS });
 */
export const DEVELOPMENT_ORIGINS: readonly string[] = ['http://localhost:5173', 'http://localhost:3000'];

/**
 * What is wrong with one entry of an origins list, or `null` when it is an exact origin
 * (`scheme://host[:port]`, http or https, no path, no wildcard, not `null`). The one statement of the
 * rule: `createTenantAuthKoa` and the reference server's `CORS_ORIGINS` both use it.
 *
 * @example
 * originProblem('https://app.example.com/'); // 'is not an exact origin (…did you mean https://app.example.com?)'
 * originProblem('https://app.example.com');  // null
 */
export function originProblem(entry: string): string | null {
  if (entry === '' || entry.includes('*') || entry.toLowerCase() === 'null') {
    return `"${entry}" is not allowed; list exact origins such as https://app.example.com`;
  }
  let url: URL;
  try {
    url = new URL(entry);
  } catch {
    return `"${entry}" is not a URL origin such as https://app.example.com`;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `"${entry}" must use http or https`;
  if (url.origin !== entry) {
    return `"${entry}" is not an exact origin (scheme://host[:port], lower case, no path or trailing slash; did you mean ${url.origin}?)`;
  }
  return null;
}

/** @internal Validates a list of exact origins into a set; throws `invalid_configuration` for `option`. */
export function originSet(origins: Iterable<string>, option: string): ReadonlySet<string> {
  const result = new Set<string>();
  for (const entry of origins) {
    const problem = typeof entry === 'string' ? originProblem(entry) : 'must be a string';
    if (problem !== null) throw configurationError('createTenantAuthKoa', option, `holds ${problem}`);
    result.add(entry);
  }
  return result;
}

/**
 * @internal The origin a request claims: the `Origin` header, or (absent) the origin of `Referer`. `undefined`
 * when neither is present or usable; the literal `null` origin is returned as `'null'` and never matches.
 *
 * @example
 * requestOrigin('https://app.example.com', undefined); // 'https://app.example.com'
 * requestOrigin(undefined, 'https://app.example.com/login?x=1'); // 'https://app.example.com'
 */
export function requestOrigin(origin: string | undefined, referer: string | undefined): string | undefined {
  if (origin) return origin;
  if (!referer) return undefined;
  try {
    const url = new URL(referer);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}
