import { STATUS_CODES } from 'node:http';
import {
  ALLOWED_ORIGINS,
  type AuthKind,
  ENDPOINTS,
  type Endpoint,
  endpointName,
} from './fuzz-arbitraries.js';
import type { Resolved, TokenInfo, World } from './fuzz-world.js';
import { headSize, type RawResponse } from './raw-http.js';

/**
 * The properties every response of the fuzzer must have (docs/http-api.md), as functions that return
 * the list of what is wrong (empty: fine). See fuzz.test.ts for the list in prose.
 */

/** The problem `code`s of the contract, with the status each one goes with. */
export const CODE_STATUS: Readonly<Record<string, number>> = {
  validation_failed: 400,
  invalid_json: 400,
  invalid_credentials: 401,
  invalid_token: 401,
  csrf_rejected: 403,
  forbidden: 403,
  email_not_verified: 403,
  not_found: 404,
  // Not in the contract's table, but the library's documented answer to a known path with another method.
  method_not_allowed: 405,
  last_owner: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
  unavailable: 503,
};

/**
 * The budgets the fuzz server runs with: out of reach, but different, so a response's `RateLimit-Limit`
 * tells which budget a request was counted against.
 */
export const STRICT_LIMIT = 90_000_000;
export const GENERAL_LIMIT = 100_000_000;

/** Statuses the contract (and 405 for a wrong method) allows under `/api/v1`, 5xx apart. */
const ALLOWED_STATUSES = new Set([200, 201, 202, 204, 400, 401, 403, 404, 405, 409, 413, 415, 429]);

const STACK_TRACE =
  /\n\s+at\s|\bat\s+[\w.<>$]+\s+\(|[\w-]+\.(?:ts|js|mjs|cjs):\d+:\d+|node:internal|node_modules/;
const SQL_TEXT =
  /\bselect\s[\s\S]{0,200}?\sfrom\s|\binsert\s+into\b|\bupdate\s+"?\w+"?\s+set\b|\bdelete\s+from\b|tenant_auth_|\b(?:relation|constraint|column)\s+"|violates|duplicate key|syntax error at|invalid input syntax|sqlstate|pglite|mikro-?orm|driverexception|\bpg_/i;
const JWT_SHAPE = /eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/;

/** The path without query string or fragment, as the server routes it. */
export function pathOnly(path: string): string {
  const cut = path.search(/[?#]/);
  return cut === -1 ? path : path.slice(0, cut);
}

export function underPrefix(path: string): boolean {
  const p = pathOnly(path);
  return p === '/api/v1' || p.startsWith('/api/v1/');
}

/**
 * The contract endpoint a request reaches, matched like the router does (strict, case-sensitive,
 * static segments as sent, an id any non-empty segment; HEAD reaches GET routes).
 */
export function routeOf(method: string, path: string): Endpoint | undefined {
  const p = pathOnly(path);
  const m = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
  return ENDPOINTS.find((e) => {
    if (e.method !== m) return false;
    const prefix = e.root ? '' : '/api/v1';
    if (!p.startsWith(`${prefix}/`)) return false;
    const parts = p.slice(prefix.length + 1).split('/');
    if (parts.length !== e.segments.length) return false;
    return e.segments.every((s, i) => (typeof s === 'string' ? parts[i] === s : (parts[i] ?? '') !== ''));
  });
}

/** The last path segment, percent-decoded like the router decodes a parameter (raw when that fails). */
export function idParam(path: string): string | undefined {
  const raw = pathOnly(path).split('/').at(-1);
  if (raw === undefined) return undefined;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Node trims a header value's surrounding spaces and tabs; an empty value is as good as none. */
function headerValue(resolved: Resolved, name: string): string | undefined {
  const v = firstHeader(resolved.request.headers[name])?.replace(/^[ \t]+|[ \t]+$/g, '');
  return v === '' ? undefined : v;
}

function cookieValue(resolved: Resolved, name: string): string | undefined {
  const header = firstHeader(resolved.request.headers.cookie);
  if (!header) return undefined;
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  let value = new RegExp(`(?:^|;) *${escaped}=([^;]*)`).exec(header)?.[1];
  if (value?.startsWith('"')) value = value.slice(1, -1);
  return value === '' ? undefined : value;
}

/** RFC 6750's `Bearer b64token`, the only Authorization the contract reads a token from. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

type Selected =
  | { via: 'header' | 'body' | 'cookie'; token: string }
  | { via: 'header'; malformed: true }
  | { via: 'none' }
  | { via: 'unknown' };

/**
 * The token the contract says a route reads: the `Authorization: Bearer` header first, then (refresh
 * only) the body field `refreshToken`, then the cookie(s). `unknown` when the fuzzer cannot tell.
 */
export function selectedToken(resolved: Resolved, kind: AuthKind, world: World): Selected {
  const header = headerValue(resolved, 'authorization');
  if (header !== undefined) {
    const token = BEARER.exec(header)?.[1];
    return token === undefined ? { via: 'header', malformed: true } : { via: 'header', token };
  }
  if (kind === 'refresh') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(resolved.bodyText);
    } catch {
      // Not JSON to us; the server may still read something we cannot: make no claim if it holds a token.
      if ([...world.issued].some((t) => resolved.bodyText.includes(t))) return { via: 'unknown' };
    }
    const field = (parsed as { refreshToken?: unknown } | null | undefined)?.refreshToken;
    if (typeof field === 'string' && field !== '') return { via: 'body', token: field };
  }
  const names =
    kind === 'access'
      ? ['access_token']
      : kind === 'refresh'
        ? ['refresh_token']
        : ['refresh_token', 'access_token'];
  for (const name of names) {
    const token = cookieValue(resolved, name);
    if (token !== undefined) return { via: 'cookie', token };
  }
  return { via: 'none' };
}

function infoOf(token: string, world: World): TokenInfo {
  return (
    world.tokenInfo.get(token) ?? {
      origin: 'garbage',
      rejectedBy: { access: true, refresh: true, logout: true },
    }
  );
}

/** The origin a request claims (Origin, else the origin of Referer), as the CSRF rule reads it. */
function claimedOrigin(resolved: Resolved): string | undefined {
  const origin = headerValue(resolved, 'origin');
  if (origin) return origin;
  const referer = headerValue(resolved, 'referer');
  if (!referer) return undefined;
  try {
    const url = new URL(referer);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Why this request must not succeed (2xx), if the contract says it must not: no token, a malformed
 * Authorization header, a token that cannot be valid there, or a cookie used by an unsafe request from
 * an origin outside the whitelist.
 */
export function mustNotSucceed(
  resolved: Resolved,
  route: Endpoint | undefined,
  world: World,
): string | undefined {
  const method = resolved.request.method.toUpperCase();
  if (!route || route.auth === 'none' || method === 'OPTIONS') return undefined;
  const selected = selectedToken(resolved, route.auth, world);
  if (selected.via === 'unknown') return undefined;
  if (selected.via === 'none') return 'no token';
  if ('malformed' in selected) return 'a malformed Authorization header';
  const kind = route.auth === 'refresh' ? 'refresh' : route.auth === 'logout' ? 'logout' : 'access';
  const info = infoOf(selected.token, world);
  if (info.rejectedBy[kind])
    return `a token that is ${info.origin} ${info.type ?? ''} (read from the ${selected.via})`;
  if (selected.via === 'cookie' && !SAFE_METHODS.has(method)) {
    const origin = claimedOrigin(resolved);
    if (origin === undefined || !(ALLOWED_ORIGINS as readonly string[]).includes(origin)) {
      return `a cookie-authenticated ${method} from origin ${JSON.stringify(origin)}`;
    }
  }
  return undefined;
}

/** The body with the two fields a token response must carry taken out. */
function withoutTokenFields(json: unknown): unknown {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return json;
  const { accessToken: _a, refreshToken: _r, ...rest } = json as Record<string, unknown>;
  return rest;
}

/** The routes of the strict budget (API.md: the credential routes of 1.0, the recovery and account routes of 1.1, and invitations). */
const STRICT_ROUTES = new Set([
  'POST auth/register',
  'POST auth/login',
  'POST auth/refresh',
  'POST auth/invitations/accept',
  'POST auth/password/forgot',
  'POST auth/password/reset',
  'POST auth/password/change',
  'POST auth/email/verification',
  'POST auth/email/verify',
  'POST auth/email/change',
  'POST auth/email/change/confirm',
  'DELETE users/me',
  'POST tenants/me/invitations',
]);

function isStrictRoute(route: Endpoint | undefined, method: string): boolean {
  return route !== undefined && STRICT_ROUTES.has(`${method.toUpperCase()} ${route.segments.join('/')}`);
}

function isTokenRoute(route: Endpoint | undefined): boolean {
  return (
    route !== undefined && ['auth/register', 'auth/login', 'auth/refresh'].includes(route.segments.join('/'))
  );
}

/**
 * Whether Node's HTTP parser refuses the request before the app sees it (a head over 16 KiB, a byte
 * outside printable ASCII in the target): the server answers those itself, 431 or 400 with the
 * `http_error` problem, the code of an HTTP error that keeps its status.
 */
export const refusedByNode = (r: Resolved) =>
  headSize(r.request) > 15 * 1024 || /[^\x21-\x7e]/.test(r.request.path);

/** Every property the response breaks, in words. */
export function checkResponse(resolved: Resolved, res: RawResponse, world: World): string[] {
  const problems: string[] = [];
  const { method, path } = resolved.request;
  const route = routeOf(method, path);
  const ct = String(res.headers['content-type'] ?? '');
  const isHead = method.toUpperCase() === 'HEAD';

  // 1. No 5xx (503 included: the fuzzer keeps the hashing queue empty, so every 503 is worth a look).
  if (res.status >= 500) problems.push(`status ${res.status}`);

  // 2. Problem details for every error under the prefix.
  if (underPrefix(path)) {
    const nodeRefused = refusedByNode(resolved) && (res.status === 400 || res.status === 431);
    if (res.status < 500 && !ALLOWED_STATUSES.has(res.status) && !nodeRefused)
      problems.push(`status ${res.status} is not in the contract`);
    if (res.status >= 400 && !isHead) problems.push(...checkProblem(res, ct, nodeRefused));
    if (res.status >= 200 && res.status < 300 && res.text !== '' && !/^application\/json\b/.test(ct)) {
      problems.push(`a ${res.status} with Content-Type ${JSON.stringify(ct)}`);
    }
    // 3. Success only on the contract's routes (OPTIONS is CORS and routing).
    if (res.status >= 200 && res.status < 300 && !route && method.toUpperCase() !== 'OPTIONS') {
      problems.push(`a ${res.status} on a path that is no route of the contract`);
    }
  }

  // 4. Authentication and CSRF: some requests must not succeed.
  if (res.status >= 200 && res.status < 300) {
    const why = mustNotSucceed(resolved, route, world);
    if (why) problems.push(`${res.status} although the request carried ${why}`);
  }

  // 4b. Revocation: an ended session never refreshes again, and nobody revokes another user's session.
  if (res.status >= 200 && res.status < 300) {
    const session = (res.json as { session?: { id?: unknown } } | undefined)?.session?.id;
    if (isTokenRoute(route) && typeof session === 'string' && world.sessions.get(session)?.ended) {
      problems.push(`a token response for session ${session}, which was ended before`);
    }
    if (
      route &&
      route.method === 'DELETE' &&
      route.segments.length === 2 &&
      route.segments[0] === 'sessions'
    ) {
      const selected = selectedToken(resolved, 'access', world);
      const caller = 'token' in selected ? world.tokenSession.get(selected.token) : undefined;
      const target = world.sessions.get(idParam(path)?.toLowerCase() ?? '');
      const callerUser = caller ? world.sessions.get(caller)?.userId : undefined;
      if (target && callerUser && target.userId !== callerUser) {
        problems.push(`${res.status}: revoked a session of another user (${target.who ?? target.userId})`);
      }
    }
  }

  // 5. Nothing secret or internal in the body or the headers.
  const tokenResponse = isTokenRoute(route) && res.status >= 200 && res.status < 300;
  const scanned =
    tokenResponse && res.json !== undefined ? JSON.stringify(withoutTokenFields(res.json)) : res.text;
  const headerText = Object.entries(res.headers)
    .filter(([name]) => name !== 'set-cookie')
    .map(([name, v]) => `${name}: ${String(v)}`)
    .join('\n');
  for (const [where, text] of [
    ['body', scanned],
    ['headers', headerText],
  ] as const) {
    for (const leak of world.secrets.scan(text))
      problems.push(`${where} holds a ${leak.kind} (${leak.secret})`);
    const jwt = JWT_SHAPE.exec(text);
    if (jwt) problems.push(`${where} holds a token ${jwt[0].slice(0, 30)}…`);
    for (const t of resolved.tokens) {
      if (t.value.length >= 16 && text.includes(t.value))
        problems.push(`${where} echoes a token the request sent`);
    }
    if (STACK_TRACE.test(text)) problems.push(`${where} holds a stack trace: ${STACK_TRACE.exec(text)?.[0]}`);
    // The OpenAPI document describes DELETE operations and the like in prose: only errors are checked for SQL.
    if (res.status >= 400 && SQL_TEXT.test(text))
      problems.push(`${where} holds SQL text: ${SQL_TEXT.exec(text)?.[0]}`);
  }
  if (tokenResponse) problems.push(...checkTokenCookies(res));
  problems.push(...checkValid(resolved, res));

  // 2b. Wrong password and unknown email get the identical answer, and a failed login sets no cookie.
  if (res.status === 401 && (res.json as { code?: unknown } | undefined)?.code === 'invalid_credentials') {
    world.invalidCredentials ??= res.text;
    if (res.text !== world.invalidCredentials)
      problems.push(`invalid_credentials answers differ: ${res.text}`);
    if (res.headers['set-cookie'] !== undefined) problems.push('a failed login sets cookies');
  }

  // 7. The strict rate budget on exactly the credential, recovery and invitation routes, the general one elsewhere.
  const limit = res.headers['ratelimit-limit'];
  if (limit !== undefined) {
    const strict = isStrictRoute(route, method);
    const expected = String(strict ? STRICT_LIMIT : GENERAL_LIMIT);
    if (String(limit) !== expected) {
      problems.push(
        `RateLimit-Limit ${String(limit)}: the ${strict ? 'strict' : 'general'} budget is ${expected}`,
      );
    }
  }

  // 8. CORS: only an allowed origin is echoed, and only then with credentials.
  const allowOrigin = res.headers['access-control-allow-origin'];
  const requestOrigin = headerValue(resolved, 'origin');
  if (allowOrigin !== undefined) {
    if (
      !(ALLOWED_ORIGINS as readonly string[]).includes(String(allowOrigin)) ||
      allowOrigin !== requestOrigin
    ) {
      problems.push(
        `Access-Control-Allow-Origin ${JSON.stringify(allowOrigin)} for Origin ${JSON.stringify(requestOrigin)}`,
      );
    }
  } else if (res.headers['access-control-allow-credentials'] !== undefined) {
    problems.push('Access-Control-Allow-Credentials without Access-Control-Allow-Origin');
  }

  // 6. Tenant isolation: the ids of an identity only go to requests that carry its credentials.
  const lower = res.text.toLowerCase();
  for (const who of ['A', 'B'] as const) {
    if (resolved.credentialed.has(who)) continue;
    const id = world.identities[who];
    const named = [id.email, id.userId, id.tenantId, ...id.sessionIds].find((v) =>
      lower.includes(v.toLowerCase()),
    );
    if (named)
      problems.push(`the body names ${who}'s ${named} without any credential of ${who} in the request`);
  }
  return problems;
}

function checkProblem(res: RawResponse, ct: string, nodeRefused = false): string[] {
  const problems: string[] = [];
  if (!/^application\/problem\+json\b/.test(ct))
    problems.push(`error with Content-Type ${JSON.stringify(ct)}`);
  const body = res.json as Record<string, unknown> | undefined;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return [...problems, `error body is not a JSON object: ${res.text.slice(0, 100)}`];
  }
  const extra = Object.keys(body).filter(
    (k) => !['type', 'title', 'status', 'code', 'detail', 'errors'].includes(k),
  );
  if (extra.length > 0) problems.push(`problem has unexpected keys ${extra.join(', ')}`);
  if (body.type !== 'about:blank') problems.push(`problem type ${JSON.stringify(body.type)}`);
  if (body.title !== STATUS_CODES[res.status]) problems.push(`problem title ${JSON.stringify(body.title)}`);
  if (body.status !== res.status)
    problems.push(`problem status ${JSON.stringify(body.status)} on a ${res.status}`);
  if (typeof body.detail !== 'string') problems.push('problem without a detail');
  const code = typeof body.code === 'string' ? body.code : undefined;
  if (nodeRefused && code === 'http_error') {
    // Refused by Node's parser: the HTTP error keeps its status.
  } else if (code === undefined || !(code in CODE_STATUS))
    problems.push(`problem code ${JSON.stringify(body.code)} is not in the contract`);
  else if (CODE_STATUS[code] !== res.status) problems.push(`problem code ${code} on a ${res.status}`);
  if (body.errors !== undefined) {
    const ok =
      Array.isArray(body.errors) &&
      body.errors.every(
        (e) =>
          typeof e === 'object' &&
          e !== null &&
          typeof (e as Record<string, unknown>).field === 'string' &&
          typeof (e as Record<string, unknown>).code === 'string' &&
          typeof (e as Record<string, unknown>).message === 'string',
      );
    if (!ok) problems.push(`problem errors malformed: ${JSON.stringify(body.errors).slice(0, 200)}`);
  }
  if (res.status === 401 && !/^Bearer\b/.test(String(res.headers['www-authenticate'] ?? ''))) {
    problems.push('401 without WWW-Authenticate: Bearer');
  }
  if ((res.status === 429 || res.status === 503) && !/^\d+$/.test(String(res.headers['retry-after'] ?? ''))) {
    problems.push(`${res.status} without Retry-After`);
  }
  return problems;
}

/** The cookie attributes of the contract's token response (development names). */
const COOKIE_ATTRIBUTES: Record<string, { path: string; sameSite: string; maxAge: string; field: string }> = {
  access_token: { path: '/', sameSite: 'lax', maxAge: '900', field: 'accessToken' },
  refresh_token: { path: '/api/v1/auth', sameSite: 'strict', maxAge: '604800', field: 'refreshToken' },
};

/** A token response sets both cookies, each with its own token and the contract's attributes. */
function checkTokenCookies(res: RawResponse): string[] {
  const body = (res.json ?? {}) as Record<string, unknown>;
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const raw of [res.headers['set-cookie'] ?? []].flat()) {
    const [pair = '', ...attrs] = raw.split(';').map((a) => a.trim());
    const name = pair.slice(0, pair.indexOf('='));
    const value = pair.slice(pair.indexOf('=') + 1);
    const expected = COOKIE_ATTRIBUTES[name];
    if (!expected) {
      problems.push(`a token response sets an unexpected cookie ${name}`);
      continue;
    }
    seen.add(name);
    if (value !== body[expected.field])
      problems.push(`Set-Cookie ${name} does not carry the response's ${expected.field}`);
    const a = new Map(
      attrs.map((x) => [x.split('=')[0]?.toLowerCase() ?? '', (x.split('=')[1] ?? '').toLowerCase()]),
    );
    const ok =
      a.has('httponly') &&
      a.has('secure') &&
      a.get('samesite') === expected.sameSite &&
      a.get('path') === expected.path &&
      a.get('max-age') === expected.maxAge;
    if (!ok) problems.push(`Set-Cookie ${name} attributes differ from the contract: ${attrs.join('; ')}`);
  }
  for (const name of Object.keys(COOKIE_ATTRIBUTES)) {
    if (!seen.has(name)) problems.push(`a token response without the ${name} cookie`);
  }
  return problems;
}

/** What a valid request to each 1.0 endpoint answers (key: `METHOD path-template`). */
const SUCCESS: Record<string, number> = {
  'POST auth/register': 201,
  'POST auth/login': 200,
  'POST auth/refresh': 200,
  'POST auth/logout': 204,
  'GET health': 200,
  'GET tenants/me': 200,
  'GET tenants/:tenantId': 200,
  'GET sessions': 200,
  'DELETE sessions/:sessionId': 204,
  'DELETE sessions': 200,
  'GET .well-known/jwks.json': 200,
  'GET openapi.json': 200,
};

/** A valid request (mode `valid`) to a 1.0 endpoint gets that endpoint's documented success. */
export function checkValid(resolved: Resolved, res: RawResponse): string[] {
  if (resolved.spec.mode !== 'valid') return [];
  const e = ENDPOINTS[resolved.spec.endpoint] as Endpoint;
  if (e.version !== '1.0') return [];
  const key = `${e.method} ${e.segments.map((x) => (typeof x === 'string' ? x : `:${x.id}`)).join('/')}`;
  const expected = SUCCESS[key];
  return expected === undefined || res.status === expected
    ? []
    : [`a valid request answered ${res.status}, not ${expected}`];
}

/** A short, readable rendering of a request and its response, for failure messages and the report. */
export function describeExchange(resolved: Resolved, res: RawResponse | undefined): string {
  const { method, path, headers, body } = resolved.request;
  // FUZZ_FULL=1 prints requests whole (tokens of 9,000 characters included).
  const full = process.env.FUZZ_FULL !== undefined;
  const cut = (s: string, n = 300) => (!full && s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s);
  const lines = [
    `${resolved.spec.mode} request to ${resolved.spec.name}:`,
    `  ${method} ${cut(path, 200)}`,
    ...Object.entries(headers).map(([k, v]) => `  ${k}: ${cut(JSON.stringify(v), 200)}`),
  ];
  if (body !== undefined)
    lines.push(`  body (${body.length} bytes): ${cut(JSON.stringify(body.toString('utf8')))}`);
  if (res) {
    lines.push(`response ${res.status} ${String(res.headers['content-type'] ?? '')}`);
    lines.push(`  ${cut(res.text)}`);
  }
  return lines.join('\n');
}

/** `POST /api/v1/auth/login -> 200` buckets, for the coverage table printed after a run. */
export function coverageKey(resolved: Resolved, res: RawResponse): string {
  const route = routeOf(resolved.request.method, resolved.request.path);
  return `${route ? endpointName({ ...route, query: undefined }) : '(no route)'} ${res.status}`;
}
