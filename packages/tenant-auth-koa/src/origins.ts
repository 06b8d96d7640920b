/** The development origins of API.md (a Vite dev server and a local web app). */
export const DEV_ORIGINS: readonly string[] = ['http://localhost:5173', 'http://localhost:3000'];

/**
 * Validates and normalises a whitelist of exact origins (`scheme://host[:port]`). Wildcards, `null`,
 * paths and non-HTTP schemes are refused at start-up, so matching can stay a plain set lookup.
 *
 * @example
 * const origins = normalizeOrigins(['https://app.example.com']);
 * origins.has('https://app.example.com'); // true
 */
export function normalizeOrigins(origins: Iterable<string>): ReadonlySet<string> {
  const result = new Set<string>();
  for (const raw of origins) {
    const value = raw.trim();
    if (value === '' || value.includes('*') || value.toLowerCase() === 'null') {
      throw new TypeError(
        `invalid allowed origin "${raw}": use exact origins such as https://app.example.com`,
      );
    }
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new TypeError(`invalid allowed origin "${raw}"`);
    }
    if (
      (url.protocol !== 'https:' && url.protocol !== 'http:') ||
      url.origin !== value.replace(/\/$/, '').toLowerCase()
    ) {
      throw new TypeError(`invalid allowed origin "${raw}": expected scheme://host[:port] without a path`);
    }
    result.add(url.origin);
  }
  return result;
}

/**
 * The origin a request claims: the `Origin` header, or (absent) the origin of `Referer`. `undefined`
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
