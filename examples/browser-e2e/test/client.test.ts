import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium.js';
import { type PageServer, startPageServer } from './support/page-server.js';
import { type LogLine, type ReferenceServer, startReferenceServer } from './support/reference-server.js';

/*
 * tenant-auth-client in Chromium, in cookie mode: the client bundled from its sources for the page, the
 * reference server started as operators start it. Tabs are pages of one browser context: they share the
 * cookie jar, Web Locks and BroadcastChannel, as tabs of one profile do.
 */

const PASSWORD = 'Correct-Horse-9-Battery';
/** Short, so that a replay "after the grace period" takes a second, not ten. */
const GRACE_SECONDS = 1;

/** What a page reports of a client call: its value, or the client error's code and status. */
type Outcome =
  | { ok: true; value: unknown }
  | { ok: false; name: string; code?: string; status?: number; message: string };

interface PageGlobals {
  TenantAuthClient: typeof import('tenant-auth-client');
  client: import('tenant-auth-client').TenantAuthClient;
  changes: { type: string; source: string; reason?: string }[];
}

let browser!: Browser;
let api!: ReferenceServer;
let site!: PageServer;
let appOrigin: string;
let setupError: unknown;
let accounts = 0;

beforeAll(async () => {
  try {
    browser = await launchChromium();
    const bundle = await build({
      entryPoints: [
        fileURLToPath(new URL('../../../packages/tenant-auth-client/src/index.ts', import.meta.url)),
      ],
      bundle: true,
      format: 'iife',
      globalName: 'TenantAuthClient',
      platform: 'browser',
      target: 'es2022',
      write: false,
    });
    const script = bundle.outputFiles[0]?.text ?? '';
    site = await startPageServer('client', script);
    appOrigin = `http://localhost:${site.port}`;
    api = await startReferenceServer({
      PORT: '0',
      NODE_ENV: 'development',
      DATABASE_URL: 'memory:',
      JWT_SECRET: randomBytes(32).toString('base64url'),
      JWT_REFRESH_SECRET: randomBytes(32).toString('base64url'),
      CORS_ORIGINS: appOrigin,
      BCRYPT_COST: '4',
      RATE_LIMIT_AUTH_MAX: '100',
      REFRESH_REUSE_GRACE_SECONDS: String(GRACE_SECONDS),
      LOG_LEVEL: 'info',
    });
  } catch (err) {
    setupError = err;
  }
});

afterAll(async () => {
  const started: { browser?: Browser; api?: ReferenceServer; site?: PageServer } = { browser, api, site };
  await started.browser?.close();
  await started.site?.close();
  if (started.api) expect(await started.api.stop()).toBe(0);
});

/** A tab of `context` on the app's origin, with a cookie-mode client on `window.client`. */
async function openTab(context: BrowserContext): Promise<Page> {
  if (setupError !== undefined) throw setupError;
  const page = await context.newPage();
  await page.goto(`${appOrigin}/`);
  await page.evaluate((baseUrl) => {
    const w = globalThis as unknown as PageGlobals;
    w.changes = [];
    w.client = w.TenantAuthClient.createTenantAuthClient({
      baseUrl,
      mode: 'cookie',
      onSessionChange: (change) =>
        w.changes.push({
          type: change.type,
          source: change.source,
          ...(change.type === 'signed_out' ? { reason: change.reason } : {}),
        }),
    });
  }, `${api.origin}/api/v1`);
  return page;
}

/** Runs `method(...args)` of the page's client and reports the outcome. */
function run(page: Page, method: string, ...args: unknown[]): Promise<Outcome> {
  return page.evaluate(
    async ({ method, args }) => {
      const w = globalThis as unknown as PageGlobals & Record<string, unknown>;
      try {
        const fn = (w.client as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[method];
        return { ok: true as const, value: await fn?.(...args) };
      } catch (err) {
        const e = err as { name: string; code?: string; status?: number; message: string };
        return { ok: false as const, name: e.name, code: e.code, status: e.status, message: e.message };
      }
    },
    { method, args },
  );
}

async function value<T>(outcome: Promise<Outcome>): Promise<T> {
  const result = await outcome;
  if (!result.ok) throw new Error(`the client failed: ${JSON.stringify(result)}`);
  return result.value as T;
}

/** Makes the page refresh when a message arrives on the `go` channel, and resolves with the outcome. */
async function refreshOnSignal(page: Page): Promise<Outcome> {
  await page.evaluate(() => {
    const w = globalThis as unknown as PageGlobals & { done?: Promise<Outcome> };
    const channel = new BroadcastChannel('go');
    w.done = new Promise((resolve) => {
      channel.onmessage = () => {
        channel.close();
        w.client.refresh().then(
          (value) => resolve({ ok: true, value }),
          (err: { name: string; code?: string; status?: number; message: string }) =>
            resolve({ ok: false, name: err.name, code: err.code, status: err.status, message: err.message }),
        );
      };
    });
  });
  return page.evaluate(() => (globalThis as unknown as { done: Promise<Outcome> }).done);
}

/** Sends the `go` message from a tab of its own. */
async function signal(context: BrowserContext): Promise<undefined> {
  const page = await context.newPage();
  await page.goto(`${appOrigin}/`);
  await new Promise((resolve) => setTimeout(resolve, 100));
  await page.evaluate(() => new BroadcastChannel('go').postMessage('go'));
  await page.close();
  return undefined;
}

const changesOf = (page: Page) => page.evaluate(() => (globalThis as unknown as PageGlobals).changes);

function authEvents(from: number, event: string): LogLine[] {
  return api.log.slice(from).filter((l) => l.event === event);
}

function refreshRequests(from: number): LogLine[] {
  return api.log
    .slice(from)
    .filter((l) => l.event === 'request' && l.path === '/api/v1/auth/refresh' && l.method === 'POST');
}

async function refreshCookie(context: BrowserContext): Promise<string | undefined> {
  const cookies = await context.cookies(`${api.origin}/api/v1/auth/refresh`);
  return cookies.find((c) => c.name === 'refresh_token')?.value;
}

async function signUp(page: Page): Promise<{ email: string }> {
  accounts += 1;
  const email = `client-${accounts}-${Date.now().toString(36)}@example.com`;
  await value(run(page, 'register', { email, password: PASSWORD }));
  return { email };
}

describe('tenant-auth-client in Chromium (cookie mode)', () => {
  it('signs in on the cookies alone: no token reaches JavaScript', async () => {
    const context = await browser.newContext();
    const page = await openTab(context);
    const { email } = await signUp(page);
    const state = await value<Record<string, unknown>>(run(page, 'getSession'));
    expect(state).toMatchObject({ user: { email, role: 'owner' } });
    expect(JSON.stringify(state)).not.toMatch(/eyJ/);
    expect(await value(run(page, 'getAccessToken'))).toBeNull();
    expect(
      await page.evaluate(() => (globalThis as unknown as { document: { cookie: string } }).document.cookie),
    ).toBe('');
    const sessions = await value<{ current: boolean }[]>(run(page, 'listSessions'));
    expect(sessions.filter((s) => s.current)).toHaveLength(1);
    expect(await changesOf(page)).toEqual([{ type: 'signed_in', source: 'local' }]);

    // A new tab restores the session from the cookies.
    const second = await openTab(context);
    expect(await value(run(second, 'restore'))).toMatchObject({ user: { email } });
    await context.close();
  });

  it('keeps two tabs signed in when they refresh at the same moment: one at a time, no replay', async () => {
    const context = await browser.newContext();
    const a = await openTab(context);
    const b = await openTab(context);
    await signUp(a);
    await value(run(b, 'restore'));
    const logFrom = api.log.length;
    const before = await refreshCookie(context);

    // Both tabs start their refresh on the same message, in the same instant (a third tab sends it).
    const [ra, rb] = await Promise.all([refreshOnSignal(a), refreshOnSignal(b), signal(context)]);
    expect(ra?.ok && rb?.ok, JSON.stringify([ra, rb])).toBe(true);

    // Both still work, on the rotated cookie.
    expect(await value<unknown[]>(run(a, 'listSessions'))).not.toHaveLength(0);
    expect(await value<unknown[]>(run(b, 'listSessions'))).not.toHaveLength(0);
    expect(await refreshCookie(context)).not.toBe(before);
    expect(await value(run(a, 'refresh'))).toBeTruthy();

    // The server saw one refresh after the other (the Web Lock), and no replay. Its log is written in
    // batches (every 250 ms at the latest): wait for the lines rather than for the first of them.
    await expect.poll(() => refreshRequests(logFrom).length).toBeGreaterThanOrEqual(2);
    const refreshes = refreshRequests(logFrom);
    expect(refreshes.every((l) => l.status === 200)).toBe(true);
    expect(authEvents(logFrom, 'replay_detected')).toEqual([]);
    expect(authEvents(logFrom, 'refresh_reissued')).toEqual([]);
    // The other tab heard of each refresh through the BroadcastChannel.
    await expect
      .poll(async () => (await changesOf(b)).some((c) => c.type === 'refreshed' && c.source === 'other_tab'))
      .toBe(true);
    await context.close();
  });

  it('reports `revoked` in every tab when a replayed refresh token has revoked the session', async () => {
    const context = await browser.newContext();
    const a = await openTab(context);
    const b = await openTab(context);
    await signUp(a);
    await value(run(b, 'restore'));
    const stolen = await refreshCookie(context);
    await value(run(a, 'refresh'));
    const logFrom = api.log.length;

    // After the grace period, the old refresh token comes back from elsewhere: a replay.
    await new Promise((resolve) => setTimeout(resolve, GRACE_SECONDS * 1000 + 1100));
    const replay = await fetch(`${api.origin}/api/v1/auth/refresh`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refreshToken: stolen }),
    });
    expect(replay.status).toBe(401);
    await api.waitForLog((l) => l.event === 'replay_detected', logFrom);

    // The tab's next refresh is refused: the client reports the session revoked, here and in the other tab.
    const refused = await run(a, 'refresh');
    expect(refused).toMatchObject({
      ok: false,
      name: 'TenantAuthClientError',
      code: 'invalid_token',
      status: 401,
    });
    expect((await changesOf(a)).at(-1)).toEqual({ type: 'revoked', source: 'local' });
    await expect
      .poll(async () => (await changesOf(b)).at(-1))
      .toEqual({ type: 'revoked', source: 'other_tab' });
    expect(await value(run(a, 'getSession'))).toBeNull();
    // The server cleared the cookies with its 401.
    expect(await refreshCookie(context)).toBeUndefined();
    await context.close();
  });

  it('tells the other tabs of a logout', async () => {
    const context = await browser.newContext();
    const a = await openTab(context);
    const b = await openTab(context);
    await signUp(a);
    await value(run(b, 'restore'));
    await value(run(a, 'logout'));
    await expect
      .poll(async () => (await changesOf(b)).at(-1))
      .toEqual({ type: 'signed_out', reason: 'logout', source: 'other_tab' });
    const after = await run(b, 'listSessions');
    expect(after).toMatchObject({ ok: false, code: 'invalid_token' });
    await context.close();
  });
});
