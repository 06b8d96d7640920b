import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFlash, open, screenshot, signUp, startWebEnv, type WebEnv } from './support/web-env.js';

/*
 * The webhooks page in Chromium: an administrator adds an endpoint (a receiver on a real loopback port,
 * which OUTBOUND_ALLOW_LOOPBACK lets the server post to), sees its secret once, sends a test that the
 * receiver verifies with the standardwebhooks package, sees it succeeded in the deliveries, disables and
 * re-enables the endpoint, and deletes it.
 */

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

let env: WebEnv;
let receiver: Server;
let receiverUrl: string;
const received: Received[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  env = await startWebEnv({ OUTBOUND_ALLOW_LOOPBACK: 'true' });
});

afterAll(async () => {
  await env?.close();
  await new Promise<void>((resolve) => receiver?.close(() => resolve()));
});

describe('the example web app: webhooks', () => {
  it('adds an endpoint (secret shown once), sends a test seen as succeeded, disables, re-enables, deletes', async () => {
    const context = await env.browser.newContext();
    const page = await open(context, env.appOrigin, '/');
    await signUp(page, `owner-${Date.now().toString(36)}@example.com`);
    await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    expect(await page.locator('#no-webhooks').textContent()).toBe('No endpoint yet.');

    // A URL the server may not post to: said under its field.
    await page.getByLabel('Endpoint URL').fill('http://10.0.0.1/hooks');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await expect.poll(() => page.locator('.field-error:not([hidden])').count()).toBe(1);

    await page.getByLabel('Endpoint URL').fill(receiverUrl);
    await page.getByLabel('Description').fill('SIEM');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secretField = page.locator('#new-webhook-secret');
    await secretField.waitFor();
    const secret = await secretField.inputValue();
    expect(secret).toMatch(/^whsec_/);
    await screenshot(page, 'webhooks-secret');
    await page.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => secretField.count()).toBe(0);
    // The secret is nowhere now: not in the page, its address or its storage.
    expect(await page.content()).not.toContain(secret);
    expect(page.url()).not.toContain(secret);
    const stored = await page.evaluate(() => {
      const g = globalThis as unknown as { localStorage: Storage; sessionStorage: Storage };
      return JSON.stringify([{ ...g.localStorage }, { ...g.sessionStorage }]);
    });
    expect(stored).not.toContain(secret);

    // A test delivery: the receiver verifies its signature; the page shows it succeeded.
    const card = page.getByRole('region', { name: receiverUrl });
    await expect.poll(() => card.getByText('Enabled').count()).toBe(1);
    await card.getByRole('button', { name: `Send test ${receiverUrl}` }).click();
    await expectFlash(page, 'A test event is on its way');
    await expect.poll(() => received.length, { timeout: 15_000 }).toBeGreaterThan(0);
    const test = received.find((r) => r.body.includes('webhook.test'));
    if (!test) throw new Error('no test delivery');
    expect(new Webhook(secret).verify(test.body, test.headers as Record<string, string>)).toMatchObject({
      type: 'webhook.test',
    });
    await expect
      .poll(
        async () => {
          // Refresh renders the page again: count once that render is over (main no longer busy),
          // never in the emptied page of a render still waiting for the server.
          await page.getByRole('button', { name: `Refresh ${receiverUrl}` }).click();
          await page.locator('#main:not([aria-busy]) section.webhook').waitFor();
          return page.locator('tr[data-status="succeeded"]').count();
        },
        { timeout: 15_000 },
      )
      .toBeGreaterThan(0);
    await screenshot(page, 'webhooks');

    // Disabled, then re-enabled.
    await page.getByRole('button', { name: `Disable ${receiverUrl}` }).click();
    await expectFlash(page, `${receiverUrl} is disabled.`);
    await page.locator('.webhook-disabled').waitFor();
    await page.getByRole('button', { name: `Re-enable ${receiverUrl}` }).click();
    await expectFlash(page, `${receiverUrl} is enabled again`);
    await expect.poll(() => page.locator('.webhook-disabled').count()).toBe(0);

    // Deleted after a confirmation.
    await page.getByRole('button', { name: `Delete ${receiverUrl}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete endpoint' }).click();
    await expectFlash(page, `${receiverUrl} was deleted.`);
    await page.locator('#no-webhooks').waitFor();
    await context.close();
  }, 120_000);
});
