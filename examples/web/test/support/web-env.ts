import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { launchChromium } from '../../../browser-e2e/test/support/chromium.js';
import {
  type ReferenceServer,
  startReferenceServer,
} from '../../../browser-e2e/test/support/reference-server.js';
import { type ReceivedMail, TestInbox } from '../../../server/test/helpers/smtp.js';

/** examples/web */
export const WEB_DIR = fileURLToPath(new URL('../../', import.meta.url));
/** Screenshots of a run (git-ignored); one of each is copied to docs/ by hand. */
export const OUTPUT_DIR = join(WEB_DIR, 'test-output');

export const PASSWORD = 'Correct-Horse-9-Battery';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** A static file server with the fallback of a single-page application: unknown paths get index.html. */
export interface StaticServer {
  port: number;
  close(): Promise<void>;
}

/**
 * Serves the files of `dir` (read at each request, so the folder may be filled after the start) on an
 * ephemeral port of every local address: `http://localhost:<port>` and `http://127.0.0.1:<port>`.
 */
export async function startStaticServer(dir: string): Promise<StaticServer> {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
    const file = join(dir, path);
    let target = join(dir, 'index.html');
    try {
      if (file.startsWith(dir) && statSync(file).isFile()) target = file;
    } catch {
      // Not a file: the application's router handles the path.
    }
    try {
      const body = readFileSync(target);
      res
        .writeHead(200, {
          'content-type': TYPES[extname(target)] ?? 'application/octet-stream',
          'cache-control': 'no-store',
        })
        .end(body);
    } catch {
      res.writeHead(503, { 'content-type': 'text/plain' }).end('not built yet');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Builds the application with Vite's JS API into `outDir`, against the API at `apiUrl`. */
export async function buildApp(outDir: string, apiUrl: string): Promise<void> {
  const { build } = await import('vite');
  await build({
    root: WEB_DIR,
    configFile: join(WEB_DIR, 'vite.config.ts'),
    logLevel: 'warn',
    define: { 'import.meta.env.VITE_API_URL': JSON.stringify(apiUrl) },
    build: { outDir, emptyOutDir: true },
  });
}

/** One test file's world: a browser, the reference server, its inbox, and the built app. */
export interface WebEnv {
  browser: Browser;
  api: ReferenceServer;
  inbox: TestInbox;
  /** `http://localhost:<port>`: in CORS_ORIGINS, and the APP_URL of the links in emails. */
  appOrigin: string;
  /** The same app, served from `http://localhost:<other port>`: NOT in CORS_ORIGINS. */
  refusedOrigin: string;
  close(): Promise<void>;
}

/**
 * Starts everything a test file needs, once: the app's static server first (its origin goes into the
 * server's CORS_ORIGINS and APP_URL), the SMTP inbox, the reference server (in-memory PGlite, bcrypt
 * cost 4), then the app built against that server.
 */
export async function startWebEnv(extraEnv: Record<string, string> = {}): Promise<WebEnv> {
  const browser = await launchChromium();
  const dist = mkdtempSync(join(tmpdir(), 'tenant-auth-web-'));
  const [app, refused, inbox] = await Promise.all([
    startStaticServer(dist),
    startStaticServer(dist),
    new TestInbox().start(),
  ]);
  const appOrigin = `http://localhost:${app.port}`;
  let api: ReferenceServer;
  try {
    api = await startReferenceServer({
      PORT: '0',
      NODE_ENV: 'development',
      DATABASE_URL: 'memory:',
      JWT_SECRET: randomBytes(32).toString('base64url'),
      JWT_REFRESH_SECRET: randomBytes(32).toString('base64url'),
      CORS_ORIGINS: appOrigin,
      APP_URL: appOrigin,
      SMTP_URL: inbox.url,
      MAIL_FROM: 'Tenant Auth <no-reply@example.com>',
      BCRYPT_COST: '4',
      RATE_LIMIT_AUTH_MAX: '1000',
      RATE_LIMIT_NETWORK_MAX: '1000',
      RATE_LIMIT_MAX: '5000',
      // Access tokens are stateless for up to 15 minutes otherwise: with the check, a revoked session is
      // refused at its next request, so the tests see a revocation at once (as a user of the app would).
      CHECK_SESSION_ON_VERIFY: 'true',
      LOG_LEVEL: 'info',
      ...extraEnv,
    });
    await buildApp(dist, `${api.origin}/api/v1`);
  } catch (err) {
    await browser.close();
    await Promise.all([app.close(), refused.close(), inbox.stop()]);
    throw err;
  }
  mkdirSync(OUTPUT_DIR, { recursive: true });
  return {
    browser,
    api,
    inbox,
    appOrigin,
    refusedOrigin: `http://localhost:${refused.port}`,
    async close() {
      await browser.close();
      await Promise.all([app.close(), refused.close()]);
      const code = await api.stop();
      await inbox.stop();
      rmSync(dist, { recursive: true, force: true });
      expect(code).toBe(0);
      // The app's own flows, in every test of the file, broke no rule of its Content-Security-Policy.
      expect(violations).toEqual([]);
    },
  };
}

/** What Chromium reported as Content-Security-Policy violations on the pages `open()` watches. */
const violations: string[] = [];
const watched = new WeakSet<Page>();
const deliberate = new WeakSet<Page>();

/** For a test that breaks the policy on purpose: its page's violations are not a failure. */
export function expectViolations(page: Page): void {
  deliberate.add(page);
}

/** Records the page's CSP violations (Chromium logs each as a console error), once per page. */
function watchPolicy(page: Page): void {
  if (watched.has(page)) return;
  watched.add(page);
  page.on('console', (message) => {
    if (message.type() !== 'error' || !message.text().includes('Content Security Policy')) return;
    if (!deliberate.has(page)) violations.push(`${page.url()}: ${message.text()}`);
  });
}

/** Opens `path` of the app in a page and waits until the app has started (restored its session). */
export async function open(
  context: BrowserContext,
  origin: string,
  path: string,
  page?: Page,
): Promise<Page> {
  const p = page ?? (await context.newPage());
  watchPolicy(p);
  // Fail a step well within the test's time limit, naming the locator that never showed.
  p.setDefaultTimeout(10_000);
  await p.goto(`${origin}${path}`);
  await p.waitForSelector('html[data-ready="true"]');
  return p;
}

/** The link to `path` in a received email (the full URL, as the user would click it). */
export function linkIn(mail: ReceivedMail, path: string): string {
  for (const match of mail.text.matchAll(/https?:\/\/\S+/g)) {
    const url = new URL(match[0]);
    if (url.pathname === path) return url.href;
  }
  throw new Error(`no link to ${path} in "${mail.subject}":\n${mail.text}`);
}

/** A screenshot of the page in the run's output folder. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(OUTPUT_DIR, `${name}.png`), fullPage: true });
}

let counter = 0;
/** A fresh address for each account a test makes. */
export const freshEmail = (label: string) => `${label}-${Date.now().toString(36)}-${++counter}@example.com`;

/** Signs up through the form; resolves on the account page. */
export async function signUp(page: Page, email: string, tenantName = 'Analytical Engines'): Promise<void> {
  await page.getByRole('link', { name: 'Create account' }).first().click();
  await page.getByLabel('Organisation name').fill(tenantName);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
}

/** Signs in through the form; resolves on the page it lands on. */
export async function signIn(page: Page, email: string, password = PASSWORD): Promise<void> {
  // After a sign-out the app moves to this page: wait for it, not for the old page's fields.
  await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/** Waits until the flash message (the aria-live region) contains `text`; resolves with all of it. */
export async function expectFlash(page: Page, text: string): Promise<string> {
  const region = page.locator('#flash');
  await expect.poll(async () => (await region.textContent()) ?? '').toContain(text);
  return (await region.textContent()) ?? '';
}
