import { randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium.js';
import { type NetworkEntry, type NetworkRecorder, recordNetwork } from './support/network-recorder.js';
import {
  type CallResult,
  type PageHelpers,
  type PageServer,
  startPageServer,
} from './support/page-server.js';
import { type LogLine, type ReferenceServer, startReferenceServer } from './support/reference-server.js';

/*
 * The reference server's web flow in a real Chromium. Three sites serve the test page:
 *
 * - app:      http://localhost:<a>  the one origin in CORS_ORIGINS
 * - sibling:  http://localhost:<b>  same site as the API (ports do not make sites), not allowed:
 *                                   SameSite does NOT stop the browser from sending the cookies, so
 *                                   the server's own CSRF and content-type rules must refuse
 * - attacker: http://127.0.0.1:<c>  another site: SameSite=Lax/Strict keep the cookies at home
 *
 * The API is http://localhost:<port>: Chromium counts localhost as a secure context, so it keeps the
 * `Secure` cookies over plain http, as it would over https in production.
 */

const PASSWORD = 'Correct-Horse-9-Battery';

interface TokenResponse {
  user: { id: string; email: string; tenantId: string };
  session: { id: string; expiresAt: string };
  accessToken: string;
  refreshToken: string;
}

interface SessionsResponse {
  sessions: { id: string; userAgent: string | null; current: boolean }[];
}

let browser!: Browser;
let api!: ReferenceServer;
let sites: PageServer[] = [];
let appOrigin: string;
let siblingOrigin: string;
let attackerOrigin: string;
let registrations = 0;

let setupError: unknown;

beforeAll(async () => {
  // A missing Chromium or a server that does not start is rethrown by every test (see `openPage`) rather
  // than by this hook, so each test counts as failed, never as skipped.
  try {
    // First, so a missing Chromium fails at once with its own message.
    browser = await launchChromium();
    const [app, sibling, attacker] = await Promise.all([
      startPageServer('app'),
      startPageServer('sibling'),
      startPageServer('attacker'),
    ]);
    sites = [app, sibling, attacker];
    appOrigin = `http://localhost:${app.port}`;
    siblingOrigin = `http://localhost:${sibling.port}`;
    attackerOrigin = `http://127.0.0.1:${attacker.port}`;
    api = await startReferenceServer({
      PORT: '0',
      NODE_ENV: 'development',
      DATABASE_URL: 'memory:',
      // Explicit secrets: nothing is written to the server's data folder.
      JWT_SECRET: randomBytes(32).toString('base64url'),
      JWT_REFRESH_SECRET: randomBytes(32).toString('base64url'),
      CORS_ORIGINS: appOrigin,
      BCRYPT_COST: '4',
      // These tests make about ten auth calls from one address within a minute.
      RATE_LIMIT_AUTH_MAX: '100',
      // `info`: the listening line and the one-line-per-request log are what the tests read server-side.
      LOG_LEVEL: 'info',
    });
  } catch (err) {
    setupError = err;
  }
});

afterAll(async () => {
  // Any of these may be missing when the set-up failed.
  const started: { browser?: Browser; api?: ReferenceServer } = { browser, api };
  await started.browser?.close();
  await Promise.all(sites.map((s) => s.close()));
  // SIGTERM: the server shuts down gracefully and exits 0.
  if (started.api) expect(await started.api.stop()).toBe(0);
});

/** Runs `fetch(api + path, init)` inside the page and returns what the page could see. */
function call(page: Page, path: string, init: Record<string, unknown>): Promise<CallResult> {
  return page.evaluate(({ url, init }) => (globalThis as unknown as PageHelpers).call(url, init), {
    url: `${api.origin}${path}`,
    init,
  });
}

const postJson = (body: unknown) => ({
  method: 'POST',
  credentials: 'include',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});
const getWithCookies = { method: 'GET', credentials: 'include' };

/** The body of a response the page could read, after checking its status. */
function readable<T>(result: CallResult, status: number): T {
  if (!result.ok) throw new Error(`the page could not read the answer: ${result.error}: ${result.message}`);
  expect(result.status, JSON.stringify(result.body)).toBe(status);
  return result.body as T;
}

/** What a page sees of a response the browser withheld from it: a network error, nothing else. */
function expectBlocked(result: CallResult): void {
  expect(result).toEqual({ ok: false, error: 'TypeError', message: 'Failed to fetch' });
}

/** A fresh cookie jar with a page on `origin`, recorded at the network level. */
async function openPage(
  origin: string,
  context?: BrowserContext,
): Promise<{ context: BrowserContext; page: Page; net: NetworkRecorder }> {
  if (setupError !== undefined) throw setupError;
  const ctx = context ?? (await browser.newContext());
  const page = await ctx.newPage();
  const net = await recordNetwork(ctx, page);
  await page.goto(`${origin}/`);
  return { context: ctx, page, net };
}

/** Registers a new user from the app page: the session the other origins will try to abuse. */
async function register(page: Page): Promise<TokenResponse> {
  registrations += 1;
  const email = `browser-${registrations}@example.com`;
  const logFrom = api.log.length;
  const body = readable<TokenResponse>(
    await call(page, '/api/v1/auth/register', postJson({ email, password: PASSWORD })),
    201,
  );
  expect(body.user.email).toBe(email);
  // The server writes its log in batches (every 250 ms at the latest): wait for the registration's
  // request line, so that a test taking `api.log.length` next does not see this request as one of its own.
  await logged('POST', '/api/v1/auth/register', 201, logFrom);
  return body;
}

async function apiCookies(context: BrowserContext) {
  const cookies = await context.cookies(`${api.origin}/api/v1/auth/refresh`);
  return new Map(cookies.map((c) => [c.name, c]));
}

/**
 * The network entry of the page's request (not a preflight) to `path`, once it has completed and, when
 * it went on the wire (`sent`), once its headers and status are in too.
 */
function settledRequest(
  net: NetworkRecorder,
  from: number,
  method: string,
  path: string,
  sent = true,
): Promise<NetworkEntry> {
  return net.waitFor(
    (e) =>
      !e.preflight &&
      e.method === method &&
      e.url === `${api.origin}${path}` &&
      e.outcome !== undefined &&
      (!sent || (e.sentHeaders !== undefined && e.status !== undefined)),
    from,
  );
}

/** The network entry of the browser's preflight for `path`, once its answer is in. */
function preflight(net: NetworkRecorder, from: number, path: string): Promise<NetworkEntry> {
  return net.waitFor(
    (e) => e.preflight && e.url === `${api.origin}${path}` && e.responseHeaders !== undefined,
    from,
  );
}

/** Submits a cross-origin HTML form to `path` and resolves with the browser's record of the POST. */
async function submitForm(
  page: Page,
  net: NetworkRecorder,
  path: string,
  enctype: string,
): Promise<NetworkEntry> {
  const from = net.mark();
  const url = `${api.origin}${path}`;
  const posted = net.waitFor(
    (e) => e.method === 'POST' && e.url === url && e.status !== undefined && e.sentHeaders !== undefined,
    from,
  );
  await Promise.all([
    page.waitForURL(url),
    page.evaluate(
      ({ url, enctype }) =>
        (globalThis as unknown as PageHelpers).postForm(url, { refreshToken: 'x' }, enctype),
      { url, enctype },
    ),
  ]);
  return posted;
}

/**
 * Why Chromium kept cookie `name` off a request. Chromium may give more than one reason (with its default
 * third-party cookie blocking it adds `UserPreferences`); the tests look for the SameSite one, which alone
 * would have kept the cookie home in any browser that enforces SameSite.
 */
function withheldBecause(entry: NetworkEntry, name: string): string[] {
  const cookie = entry.withheldCookies?.find((c) => c.name === name);
  if (!cookie) throw new Error(`the browser did not report withholding ${name}: ${JSON.stringify(entry)}`);
  return cookie.reasons;
}

/** The API requests (preflights left out) logged from index `from` on, as `METHOD path status`. */
function loggedRequests(from: number): string[] {
  return api.log
    .slice(from)
    .filter(
      (l: LogLine) =>
        l.event === 'request' &&
        l.method !== 'OPTIONS' &&
        typeof l.path === 'string' &&
        l.path.startsWith('/api/v1/'),
    )
    .map((l) => `${l.method} ${l.path} ${l.status}`);
}

/** The authentication events (logout, refresh, revoke, …) logged from index `from` on. */
function authEvents(from: number): LogLine[] {
  return api.log.slice(from).filter((l) => typeof l.event === 'string' && l.event !== 'request');
}

/** Waits until the server has logged the request `METHOD path status`; lines before it are in too. */
function logged(method: string, path: string, status: number, from: number): Promise<LogLine> {
  return api.waitForLog(
    (l) => l.event === 'request' && l.method === method && l.path === path && l.status === status,
    from,
  );
}

describe('the reference server in Chromium', () => {
  it('lets the allowed origin register with credentials and keeps both cookies HttpOnly, Secure and SameSite', async () => {
    const { context, page, net } = await openPage(appOrigin);
    const from = net.mark();
    const logFrom = api.log.length;
    const before = Date.now() / 1000;

    const body = await register(page);

    // CORS as the browser applied it: the preflight and the answer name this origin and allow credentials.
    const pre = await preflight(net, from, '/api/v1/auth/register');
    expect(pre.responseHeaders).toMatchObject({
      'access-control-allow-origin': appOrigin,
      'access-control-allow-credentials': 'true',
      'access-control-max-age': '3600',
    });
    const post = await settledRequest(net, from, 'POST', '/api/v1/auth/register');
    expect(post.outcome).toBe('finished');
    expect(post.responseHeaders).toMatchObject({
      'access-control-allow-origin': appOrigin,
      'access-control-allow-credentials': 'true',
    });

    // The browser stored both cookies with the attributes of API.md.
    const cookies = await apiCookies(context);
    expect([...cookies.keys()].sort()).toEqual(['access_token', 'refresh_token']);
    const access = cookies.get('access_token')!;
    const refresh = cookies.get('refresh_token')!;
    expect(access).toMatchObject({
      value: body.accessToken,
      domain: 'localhost',
      path: '/',
      httpOnly: true,
      secure: true,
      sameSite: 'Lax',
    });
    expect(refresh).toMatchObject({
      value: body.refreshToken,
      domain: 'localhost',
      path: '/api/v1/auth',
      httpOnly: true,
      secure: true,
      sameSite: 'Strict',
    });
    // Max-Age 900 and 604800, as the browser turned them into expiry dates.
    expect(access.expires - before).toBeGreaterThan(900 - 60);
    expect(access.expires - before).toBeLessThanOrEqual(900 + 1);
    expect(refresh.expires - before).toBeGreaterThan(604_800 - 60);
    expect(refresh.expires - before).toBeLessThanOrEqual(604_800 + 1);
    // The refresh cookie is scoped to the auth routes: not sent to the rest of the API.
    expect((await context.cookies(`${api.origin}/api/v1/sessions`)).map((c) => c.name)).toEqual([
      'access_token',
    ]);

    // HttpOnly: the page's own scripts cannot see either cookie, although they share the host.
    expect(await page.evaluate(() => (globalThis as unknown as PageHelpers).document.cookie)).toBe('');

    // Server side: the registration happened, once.
    await logged('POST', '/api/v1/auth/register', 201, logFrom);
    // Audit events name the user as `subjectId` (and `actorId`, who acted: here the user themself).
    expect(authEvents(logFrom).map((l) => [l.event, l.subjectId])).toEqual([['registered', body.user.id]]);
    await context.close();
  });

  it('works on cookies alone: lists the session with the browser user agent, rotates on refresh, clears on logout', async () => {
    const { context, page, net } = await openPage(appOrigin);
    const registered = await register(page);
    const logFrom = api.log.length;
    const userAgent = await page.evaluate(() => (globalThis as unknown as PageHelpers).navigator.userAgent);

    // No Authorization header anywhere below: only the cookies authenticate.
    let from = net.mark();
    const listed = readable<SessionsResponse>(await call(page, '/api/v1/sessions', getWithCookies), 200);
    expect(listed.sessions).toEqual([
      expect.objectContaining({ id: registered.session.id, userAgent, current: true }),
    ]);
    const listing = await settledRequest(net, from, 'GET', '/api/v1/sessions');
    expect(listing.sentHeaders?.authorization).toBeUndefined();
    expect(listing.sentHeaders?.cookie).toContain('access_token=');
    expect(listing.sentHeaders?.['user-agent']).toBe(userAgent);

    // Refresh: the browser sends the refresh cookie, the server rotates it, the browser keeps the new one.
    const oldRefresh = (await apiCookies(context)).get('refresh_token')?.value;
    from = net.mark();
    const refreshed = readable<TokenResponse>(await call(page, '/api/v1/auth/refresh', postJson({})), 200);
    expect(
      (await settledRequest(net, from, 'POST', '/api/v1/auth/refresh')).sentHeaders?.authorization,
    ).toBeUndefined();
    const newRefresh = (await apiCookies(context)).get('refresh_token')?.value;
    expect(newRefresh).toBeDefined();
    expect(newRefresh).not.toBe(oldRefresh);
    expect(newRefresh).toBe(refreshed.refreshToken);
    expect(refreshed.session.id).toBe(registered.session.id);

    // Logout: 204, and the browser drops both cookies.
    const loggedOut = await call(page, '/api/v1/auth/logout', postJson({}));
    expect(loggedOut).toMatchObject({ ok: true, status: 204 });
    expect(await context.cookies(api.origin)).toEqual([]);
    expect(await context.cookies(`${api.origin}/api/v1/auth/refresh`)).toEqual([]);

    // With the cookies gone, the API does not know the browser any more.
    const after = readable<{ code: string }>(await call(page, '/api/v1/sessions', getWithCookies), 401);
    expect(after.code).toBe('invalid_token');

    // Server side: each step happened, and the session was refreshed then logged out.
    await logged('GET', '/api/v1/sessions', 401, logFrom);
    expect(loggedRequests(logFrom)).toEqual([
      'GET /api/v1/sessions 200',
      'POST /api/v1/auth/refresh 200',
      'POST /api/v1/auth/logout 204',
      'GET /api/v1/sessions 401',
    ]);
    expect(authEvents(logFrom).map((l) => [l.event, l.sessionId])).toEqual([
      ['refreshed', registered.session.id],
      ['logout', registered.session.id],
    ]);
    await context.close();
  });

  it('gives another site nothing: no readable answer, no cookies sent (SameSite), no logout', async () => {
    const { context, page: app } = await openPage(appOrigin);
    const registered = await register(app);
    const cookiesBefore = await apiCookies(context);
    // The attacker's page in another tab of the same browser: same cookie jar.
    const { page: evil, net } = await openPage(attackerOrigin, context);
    const logFrom = api.log.length;

    // 1. A credentialed JSON logout needs a preflight; the preflight gets no Access-Control-Allow-Origin,
    //    so the browser never sends the POST and the page sees a network error.
    let from = net.mark();
    expectBlocked(await call(evil, '/api/v1/auth/logout', postJson({})));
    const pre = await preflight(net, from, '/api/v1/auth/logout');
    expect(pre.responseHeaders?.['access-control-allow-origin']).toBeUndefined();
    expect(pre.responseHeaders?.['access-control-allow-credentials']).toBeUndefined();
    const never = await settledRequest(net, from, 'POST', '/api/v1/auth/logout', false);
    expect(never.corsError).toBe('PreflightMissingAllowOriginHeader');
    expect(never.sentHeaders).toBeUndefined();

    // 2. A credentialed read of the sessions: the answer is withheld from the page, and SameSite=Lax kept
    //    the access cookie from going along with a cross-site subrequest.
    from = net.mark();
    expectBlocked(await call(evil, '/api/v1/sessions', getWithCookies));
    const read = await settledRequest(net, from, 'GET', '/api/v1/sessions');
    expect(read.corsError).toBe('MissingAllowOriginHeader');
    expect(read.sentHeaders?.cookie).toBeUndefined();
    expect(withheldBecause(read, 'access_token')).toContain('SchemefulSameSiteLax');

    // 3. A "simple" logout (POST without a body or content type: no preflight) reaches the server, without
    //    cookies: SameSite=Strict and Lax withheld both.
    from = net.mark();
    expectBlocked(await call(evil, '/api/v1/auth/logout', { method: 'POST', credentials: 'include' }));
    const simple = await settledRequest(net, from, 'POST', '/api/v1/auth/logout');
    expect(simple.sentHeaders?.cookie).toBeUndefined();
    expect(withheldBecause(simple, 'access_token')).toContain('SchemefulSameSiteLax');
    expect(withheldBecause(simple, 'refresh_token')).toContain('SchemefulSameSiteStrict');

    // 4. The classic CSRF: a cross-site HTML form POST (text/plain) navigating to the logout route.
    const form = await submitForm(evil, net, '/api/v1/auth/logout', 'text/plain');
    expect(form.sentHeaders?.cookie).toBeUndefined();
    // Lax lets cookies follow top-level navigations, but only GET ones.
    expect(withheldBecause(form, 'access_token')).toContain('SchemefulSameSiteLax');
    expect(withheldBecause(form, 'refresh_token')).toContain('SchemefulSameSiteStrict');
    expect(form.status).toBe(415);

    // The session survived: the app still reads it and can still refresh it.
    const listed = readable<SessionsResponse>(await call(app, '/api/v1/sessions', getWithCookies), 200);
    expect(listed.sessions.map((s) => s.id)).toEqual([registered.session.id]);
    const refreshed = readable<TokenResponse>(await call(app, '/api/v1/auth/refresh', postJson({})), 200);
    expect(refreshed.refreshToken).not.toBe(cookiesBefore.get('refresh_token')?.value);

    // Server side: the JSON logout never arrived, the others were refused, nothing was revoked.
    await logged('POST', '/api/v1/auth/refresh', 200, logFrom);
    expect(loggedRequests(logFrom)).toEqual([
      'GET /api/v1/sessions 401',
      'POST /api/v1/auth/logout 401',
      'POST /api/v1/auth/logout 415',
      'GET /api/v1/sessions 200',
      'POST /api/v1/auth/refresh 200',
    ]);
    expect(authEvents(logFrom).map((l) => [l.event, l.sessionId])).toEqual([
      ['refreshed', registered.session.id],
    ]);
    await context.close();
  });

  it('refuses a same-site origin outside the whitelist even though the browser sends the cookies', async () => {
    const { context, page: app } = await openPage(appOrigin);
    const registered = await register(app);
    const refreshBefore = (await apiCookies(context)).get('refresh_token')?.value;
    // Another port on localhost: same site, so SameSite lets both cookies through; the server must refuse.
    const { page: sibling, net } = await openPage(siblingOrigin, context);
    const logFrom = api.log.length;

    // 1. The JSON logout's preflight gets no Access-Control-Allow-Origin; the POST is never sent.
    let from = net.mark();
    expectBlocked(await call(sibling, '/api/v1/auth/logout', postJson({})));
    const pre = await preflight(net, from, '/api/v1/auth/logout');
    expect(pre.responseHeaders?.['access-control-allow-origin']).toBeUndefined();
    const never = await settledRequest(net, from, 'POST', '/api/v1/auth/logout', false);
    expect(never.corsError).toBe('PreflightMissingAllowOriginHeader');
    expect(never.sentHeaders).toBeUndefined();

    // 2. A credentialed read goes out with the access cookie and is answered, but CORS withholds the
    //    answer from the page.
    from = net.mark();
    expectBlocked(await call(sibling, '/api/v1/sessions', getWithCookies));
    const read = await settledRequest(net, from, 'GET', '/api/v1/sessions');
    expect(read.sentHeaders?.cookie).toContain('access_token=');
    expect(read.corsError).toBe('MissingAllowOriginHeader');

    // 3. Simple (preflight-free) logout and refresh carry both cookies: the server's Origin check refuses
    //    them (403 csrf_rejected in the log below), and no cookie is replaced.
    for (const path of ['/api/v1/auth/logout', '/api/v1/auth/refresh']) {
      from = net.mark();
      expectBlocked(await call(sibling, path, { method: 'POST', credentials: 'include' }));
      const simple = await settledRequest(net, from, 'POST', path);
      expect(simple.sentHeaders?.cookie).toContain('refresh_token=');
      expect(simple.sentHeaders?.cookie).toContain('access_token=');
      expect(simple.sentHeaders?.origin).toBe(siblingOrigin);
      expect(simple.status).toBe(403);
    }
    expect((await apiCookies(context)).get('refresh_token')?.value).toBe(refreshBefore);

    // 4. HTML forms (text/plain and urlencoded) carry the cookies too, and get 415: not JSON.
    for (const enctype of ['text/plain', 'application/x-www-form-urlencoded']) {
      await sibling.goto(`${siblingOrigin}/`);
      const form = await submitForm(sibling, net, '/api/v1/auth/logout', enctype);
      expect(form.sentHeaders?.cookie).toContain('refresh_token=');
      expect(form.status).toBe(415);
    }

    // The session survived all of it.
    const listed = readable<SessionsResponse>(await call(app, '/api/v1/sessions', getWithCookies), 200);
    expect(listed.sessions.map((s) => s.id)).toEqual([registered.session.id]);
    const refreshed = readable<TokenResponse>(await call(app, '/api/v1/auth/refresh', postJson({})), 200);
    expect(refreshed.refreshToken).not.toBe(refreshBefore);

    await logged('POST', '/api/v1/auth/refresh', 200, logFrom);
    expect(loggedRequests(logFrom)).toEqual([
      'GET /api/v1/sessions 200',
      'POST /api/v1/auth/logout 403',
      'POST /api/v1/auth/refresh 403',
      'POST /api/v1/auth/logout 415',
      'POST /api/v1/auth/logout 415',
      'GET /api/v1/sessions 200',
      'POST /api/v1/auth/refresh 200',
    ]);
    expect(authEvents(logFrom).map((l) => [l.event, l.sessionId])).toEqual([
      ['refreshed', registered.session.id],
    ]);
    await context.close();
  });
});
