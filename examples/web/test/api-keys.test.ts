import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectFlash,
  freshEmail,
  linkIn,
  open,
  screenshot,
  signUp,
  startWebEnv,
  type WebEnv,
} from './support/web-env.js';

/*
 * The API keys page of the example app (API 1.2), in Chromium: an administrator creates a key, sees its
 * secret once (with a copy button), and the secret is gone from the document, storage, cookies and the
 * address once they are done or navigate away; the key works from a back-end until it is revoked here.
 */

let env: WebEnv;

beforeAll(async () => {
  env = await startWebEnv();
});

afterAll(async () => {
  await env?.close();
});

/** Everything the page keeps where a secret could linger: its document, storages, cookies, address. */
async function traces(page: Page): Promise<string> {
  const inPage = await page.evaluate(() => {
    const g = globalThis as unknown as {
      document: { documentElement: { outerHTML: string } };
      localStorage: { length: number; key(i: number): string | null; getItem(k: string): string | null };
      sessionStorage: { length: number; key(i: number): string | null; getItem(k: string): string | null };
      location: { href: string };
    };
    const dump = (s: typeof g.localStorage) =>
      Array.from({ length: s.length }, (_, i) => `${s.key(i)}=${s.getItem(s.key(i) ?? '')}`).join('\n');
    // Input values are properties, not markup: read them too.
    const inputs = Array.from(
      (
        g.document as unknown as { querySelectorAll(s: string): ArrayLike<{ value: string }> }
      ).querySelectorAll('input, textarea'),
      (i) => i.value,
    ).join('\n');
    return [
      g.document.documentElement.outerHTML,
      inputs,
      dump(g.localStorage),
      dump(g.sessionStorage),
      g.location.href,
    ].join('\n');
  });
  const cookies = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('\n');
  return `${inPage}\n${cookies}`;
}

/** Calls the API as a back-end would, with the key. */
const asBackEnd = (secret: string) =>
  fetch(`${env.api.origin}/api/v1/tenants/me/members`, { headers: { authorization: `Bearer ${secret}` } });

describe('the example web app: API keys', () => {
  it('shows a new secret once, copies it, leaves no trace of it after Done or a navigation, and revokes', async () => {
    const owner = freshEmail('keys');
    const context = await env.browser.newContext();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.appOrigin });
    const page = await open(context, env.appOrigin, '/sign-up');
    const verification = env.inbox.receive(owner, () => signUp(page, owner, 'Key Makers'));
    // Creating a key needs a verified email (API 1.2), and a recent sign-in: registration just was one.
    await page.goto(linkIn(await verification, '/verify-email'));
    await page.getByText('Your email address is verified.').waitFor();
    await page.getByRole('link', { name: 'Go to your account' }).click();
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();

    // Create one: the secret is shown, once, and it works from a back-end.
    const form = page.getByRole('region', { name: 'Create a key' });
    await form.getByLabel('Name').fill('nightly export');
    await form.getByLabel('Role').selectOption('admin');
    await form.getByLabel('Expires after').selectOption('30');
    await form.getByRole('button', { name: 'Create key' }).click();
    const secretField = page.getByLabel('Secret');
    await secretField.waitFor();
    const secret = await secretField.inputValue();
    expect(secret).toMatch(/^tak_[A-Za-z0-9_-]{43}$/);
    expect((await asBackEnd(secret)).status).toBe(200);
    const row = page.locator('#api-keys tbody tr[data-api-key="nightly export"]');
    expect(await row.locator('td').first().textContent()).toBe(`${secret.slice(0, 12)}…`);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Copied.').waitFor();
    expect(
      await page.evaluate(() =>
        (
          globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
        ).navigator.clipboard.readText(),
      ),
    ).toBe(secret);
    await screenshot(page, 'api-key-created');

    // Done: out of the document (the list keeps only its prefix).
    await page.getByRole('button', { name: 'Done' }).click();
    await expectFlash(page, 'The secret is no longer shown.');
    expect(await traces(page)).not.toContain(secret.slice(12));

    // Another one, and this time the administrator navigates away without Done, then comes back.
    await form.getByLabel('Name').fill('ci deploys');
    await form.getByRole('button', { name: 'Create key' }).click();
    await secretField.waitFor();
    const second = await secretField.inputValue();
    expect(second).not.toBe(secret);
    await page.getByRole('link', { name: 'Members' }).click();
    await page.getByRole('heading', { level: 1, name: 'Members' }).waitFor();
    expect(await traces(page)).not.toContain(second.slice(12));
    await page.goBack();
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    await page.locator('#api-keys tbody tr[data-api-key="ci deploys"]').waitFor();
    const back = await traces(page);
    expect(back).not.toContain(second.slice(12));
    expect(back).not.toContain(secret.slice(12));

    // Revoke the first: it leaves the list and stops working for the back-end.
    await row.getByRole('button', { name: 'Revoke the key nightly export' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
    await expectFlash(page, 'The key nightly export was revoked.');
    await expect.poll(() => row.count()).toBe(0);
    expect((await asBackEnd(secret)).status).toBe(401);
    expect((await asBackEnd(second)).status).toBe(200);
    await context.close();
  });
});
