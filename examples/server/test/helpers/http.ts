/** One parsed `Set-Cookie` header. */
export interface SetCookie {
  name: string;
  value: string;
  /** Attribute names lower-cased; flag attributes map to `true`. */
  attributes: Record<string, string | true>;
  raw: string;
}

/**
 * Parses every `Set-Cookie` header of a response.
 *
 * @example const cookies = setCookies(res); cookies.access_token?.attributes.httponly;
 */
export function setCookies(res: Response): Record<string, SetCookie> {
  const out: Record<string, SetCookie> = {};
  for (const raw of res.headers.getSetCookie()) {
    const [pair = '', ...attrs] = raw.split(';').map((s) => s.trim());
    const eq = pair.indexOf('=');
    const name = pair.slice(0, eq);
    const attributes: Record<string, string | true> = {};
    for (const attr of attrs) {
      const i = attr.indexOf('=');
      if (i === -1) attributes[attr.toLowerCase()] = true;
      else attributes[attr.slice(0, i).toLowerCase()] = attr.slice(i + 1);
    }
    out[name] = { name, value: pair.slice(eq + 1), attributes, raw };
  }
  return out;
}

/** A small client for one server: JSON in, JSON out, with the status and headers kept. */
export interface ApiResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
  res: Response;
}

export interface RequestOptions {
  method?: string;
  body?: unknown;
  /** Sent as is, with no Content-Type added. */
  rawBody?: string;
  token?: string;
  headers?: Record<string, string>;
}

/**
 * Calls `path` under `/api/v1` of `baseUrl`.
 *
 * @example const r = await api(url, '/auth/login', { method: 'POST', body: { email, password } });
 */
export async function api<T = Record<string, unknown>>(
  baseUrl: string,
  path: string,
  options: RequestOptions = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const res = await fetch(`${baseUrl}/api/v1${path}`, {
    method: options.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    ...(body === undefined ? {} : { body }),
    redirect: 'manual',
  });
  const text = await res.text();
  let parsed: unknown = text;
  if (text !== '') {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  return { status: res.status, headers: res.headers, body: parsed as T, res };
}

/** A password the default policy accepts. */
export const PASSWORD = 'Correct-Horse-Battery-42';

let counter = 0;
/** A unique email per call. */
export function uniqueEmail(prefix = 'user'): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter}@example.com`;
}
