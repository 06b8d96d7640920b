import type { Page } from 'playwright-core';
import { FIELD_ERROR_CODES, PROBLEM_CODES } from 'tenant-auth-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIELD_MESSAGES, PROBLEM_MESSAGES } from '../app/messages.js';
import { expectViolations, freshEmail, open, signUp, startWebEnv, type WebEnv } from './support/web-env.js';

/*
 * What only a browser shows: the cookies as Chromium stored them, what the page's scripts can see,
 * another origin serving the same app, two tabs refreshing at once, and the silent refresh timer.
 */

let env: WebEnv;

beforeAll(async () => {
  env = await startWebEnv();
});

afterAll(async () => {
  await env?.close();
});

interface Globals {
  document: { cookie: string };
  location: { origin: string };
}

/** What the CSP test uses of the page's globals (this file is type-checked without the DOM library). */
interface Violations {
  violations: string[];
  injected?: boolean;
  document: {
    addEventListener(
      type: 'securitypolicyviolation',
      listener: (e: { effectiveDirective: string }) => void,
    ): void;
    createElement(tag: 'script'): { textContent: string };
    head: { append(node: unknown): void };
  };
}

/** `fetch(url, init)` inside the page: what the page could read, or the error it got. */
function pageFetch(page: Page, url: string, init: Record<string, unknown>) {
  return page.evaluate(
    async ({ url, init }) => {
      try {
        const res = await fetch(url, init as RequestInit);
        return { ok: true as const, status: res.status, text: await res.text() };
      } catch (err) {
        return { ok: false as const, error: (err as Error).name };
      }
    },
    { url, init },
  );
}

/** The server's log lines for `event` (auth events) from index `from` on. */
const events = (event: string, from = 0) => env.api.log.slice(from).filter((l) => l.event === event);

describe('the example web app in Chromium: what only a browser shows', () => {
  it('keeps the auth cookies HttpOnly (invisible to the page) with the attributes of the contract', async () => {
    const context = await env.browser.newContext();
    const page = await open(context, env.appOrigin, '/sign-up');
    await signUp(page, freshEmail('cookies'));
    expect(await page.evaluate(() => (globalThis as unknown as Globals).document.cookie)).toBe('');

    const all = await context.cookies(`${env.api.origin}/api/v1/auth/refresh`);
    const byName = new Map(all.map((c) => [c.name, c]));
    expect([...byName.keys()].sort()).toEqual(['access_token', 'refresh_token']);
    expect(byName.get('access_token')).toMatchObject({
      domain: 'localhost',
      path: '/',
      httpOnly: true,
      secure: true,
      sameSite: 'Lax',
    });
    expect(byName.get('refresh_token')).toMatchObject({
      domain: 'localhost',
      path: '/api/v1/auth',
      httpOnly: true,
      secure: true,
      sameSite: 'Strict',
    });
    // The refresh cookie goes only to the auth routes.
    expect((await context.cookies(`${env.api.origin}/api/v1/sessions`)).map((c) => c.name)).toEqual([
      'access_token',
    ]);
    await context.close();
  });

  it('runs under a Content-Security-Policy: its flows break no rule, an injected script does not run, no fetch leaves for another origin', async () => {
    const context = await env.browser.newContext();
    // Every violation the page reports, collected from before its first script.
    await context.addInitScript(() => {
      const g = globalThis as unknown as Violations;
      g.violations = [];
      g.document.addEventListener('securitypolicyviolation', (e) => g.violations.push(e.effectiveDirective));
    });
    const violations = (page: Page) => page.evaluate(() => (globalThis as unknown as Violations).violations);
    const page = await open(context, env.appOrigin, '/sign-up');
    await signUp(page, freshEmail('csp'));
    await page.getByRole('link', { name: 'Sessions' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sessions' }).waitFor();
    expect(await violations(page)).toEqual([]);
    expectViolations(page);

    // A script that gets into the page (say, through an HTML injection) does not run.
    const ran = await page.evaluate(() => {
      const g = globalThis as unknown as Violations;
      const script = g.document.createElement('script');
      script.textContent = 'globalThis.injected = true';
      g.document.head.append(script);
      return g.injected === true;
    });
    expect(ran).toBe(false);
    // And the page's requests go to the API only: even a no-cors fetch, which would otherwise go out and
    // resolve with an opaque answer, is stopped before it leaves. (Navigation is not covered by CSP.)
    expect(await pageFetch(page, `${env.refusedOrigin}/`, { mode: 'no-cors' })).toEqual({
      ok: false,
      error: 'TypeError',
    });
    expect(
      await pageFetch(page, `${env.api.origin}/api/v1/sessions`, { credentials: 'include' }),
    ).toMatchObject({
      ok: true,
      status: 200,
    });
    expect(await violations(page)).toEqual(['script-src-elem', 'connect-src']);
    await context.close();
  });

  it('gives the same app served from a refused origin nothing: no readable answer, no logout', async () => {
    const context = await env.browser.newContext();
    const page = await open(context, env.appOrigin, '/sign-up');
    await signUp(page, freshEmail('origin'));
    const refreshBefore = (await context.cookies(`${env.api.origin}/api/v1/auth/refresh`)).find(
      (c) => c.name === 'refresh_token',
    )?.value;

    // The very same build, from http://localhost:<other port> (same site, not in CORS_ORIGINS): its
    // restore() cannot read the server's answer, so it shows the sign-in page, not the account.
    const logFrom = env.api.log.length;
    const evil = await open(context, env.refusedOrigin, '/account');
    await evil.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    // Reading the sessions with the cookies: the browser withholds the answer.
    const read = await pageFetch(evil, `${env.api.origin}/api/v1/sessions`, { credentials: 'include' });
    expect(read).toEqual({ ok: false, error: 'TypeError' });
    // A JSON logout needs a preflight, which fails; a "simple" one is refused by the server's Origin check.
    const jsonLogout = await pageFetch(evil, `${env.api.origin}/api/v1/auth/logout`, {
      method: 'POST',
      credentials: 'include',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(jsonLogout).toEqual({ ok: false, error: 'TypeError' });
    const simpleLogout = await pageFetch(evil, `${env.api.origin}/api/v1/auth/logout`, {
      method: 'POST',
      credentials: 'include',
    });
    expect(simpleLogout).toEqual({ ok: false, error: 'TypeError' });
    // Its restore() and the simple logout went out with the cookies (same site): the server refused both.
    for (const path of ['/api/v1/auth/refresh', '/api/v1/auth/logout']) {
      await env.api.waitForLog((l) => l.event === 'request' && l.path === path && l.status === 403, logFrom);
    }
    // Nothing was rotated, logged out or revoked.
    const refreshAfter = (await context.cookies(`${env.api.origin}/api/v1/auth/refresh`)).find(
      (c) => c.name === 'refresh_token',
    )?.value;
    expect(refreshAfter).toBe(refreshBefore);
    expect(events('logout', logFrom)).toEqual([]);
    expect(events('refreshed', logFrom)).toEqual([]);

    // The user's own tab is still signed in.
    await page.getByRole('link', { name: 'Sessions' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sessions' }).waitFor();
    await context.close();
  });

  it('refreshes silently before the access token expires, and two tabs refreshing at once stay signed in', async () => {
    const context = await env.browser.newContext();
    // A clock the test moves: the client's refresh timer fires as it would 14.5 minutes later.
    await context.clock.install();
    const first = await open(context, env.appOrigin, '/sign-up');
    await signUp(first, freshEmail('tabs'));
    const second = await open(context, env.appOrigin, '/account');
    await second.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
    const logFrom = env.api.log.length;

    // Both tabs' timers are due at the same moment: the client refreshes before expiry (no 401 first),
    // one tab at a time (Web Locks), and shares the result with the other tab.
    const refreshes: number[] = [];
    context.on('response', (r) => {
      if (r.url().endsWith('/api/v1/auth/refresh') && r.request().method() === 'POST')
        refreshes.push(r.status());
    });
    await context.clock.fastForward('14:40');
    await expect.poll(() => refreshes).toEqual([200]);
    for (const page of [first, second]) {
      await page.getByRole('link', { name: 'Sessions' }).click();
      await page.getByRole('heading', { level: 1, name: 'Sessions' }).waitFor();
    }
    // One refresh for both tabs: the other tab took the result instead of presenting the old token.
    expect(refreshes).toEqual([200]);
    expect(events('replay_detected', logFrom)).toEqual([]);

    // The server's grace rule for tabs that do race: both present the same refresh token at once.
    const race = await Promise.all(
      [first, second].map((page) =>
        pageFetch(page, `${env.api.origin}/api/v1/auth/refresh`, {
          method: 'POST',
          credentials: 'include',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        }),
      ),
    );
    expect(race.map((r) => (r.ok ? r.status : r.error))).toEqual([200, 200]);
    // Both tabs stay signed in after a reload, and the session was not revoked as a replay.
    for (const page of [first, second]) {
      await page.reload();
      await page.waitForSelector('html[data-ready="true"]');
      await page.getByRole('link', { name: 'Sessions' }).click();
      await page.getByRole('heading', { level: 1, name: 'Sessions' }).waitFor();
    }
    expect(events('replay_detected', logFrom)).toEqual([]);
    await context.close();
  });

  it('tells the other tabs of a sign-out', async () => {
    const context = await env.browser.newContext();
    const first = await open(context, env.appOrigin, '/sign-up');
    await signUp(first, freshEmail('signout'));
    const second = await open(context, env.appOrigin, '/account');
    await second.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
    await first.getByRole('button', { name: 'Sign out' }).click();
    // The other tab follows at once, without a request of its own.
    await second.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await expect
      .poll(() => second.locator('#flash').textContent())
      .toContain('You signed out in another tab.');
    await context.close();
  });

  it('has a message for every problem code and field code of the contract', () => {
    // The typecheck already refuses a missing code (`satisfies Record<ProblemCode, string>`); this is the
    // same at run time, against the codes the client package lists.
    for (const code of PROBLEM_CODES) expect(PROBLEM_MESSAGES[code]).toMatch(/\.$/);
    expect(Object.keys(PROBLEM_MESSAGES).sort()).toEqual([...PROBLEM_CODES].sort());
    for (const code of FIELD_ERROR_CODES) expect(FIELD_MESSAGES[code]).toMatch(/\.$/);
    expect(Object.keys(FIELD_MESSAGES).sort()).toEqual([...FIELD_ERROR_CODES].sort());
  });
});
