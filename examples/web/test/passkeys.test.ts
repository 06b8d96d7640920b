import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectFlash,
  freshEmail,
  open,
  screenshot,
  signUp,
  startWebEnv,
  type WebEnv,
} from './support/web-env.js';

/*
 * The passkey flows of the example app in Chromium, against the reference server, with the DevTools
 * Protocol's virtual authenticator (a CTAP2 platform authenticator with resident keys and user
 * verification): add a passkey, sign out, sign in with it (no email, no password), remove it. The relying
 * party is the server's default from APP_URL: `localhost`, which browsers treat as a secure context.
 */

let env: WebEnv;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  env = await startWebEnv();
});

afterAll(async () => {
  for (const context of contexts) await context.close();
  await env?.close();
});

/** A virtual authenticator on `page`, as a laptop's built-in one (Touch ID, Windows Hello) would be. */
async function virtualAuthenticator(page: Page): Promise<{ cdp: CDPSession; authenticatorId: string }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { cdp, authenticatorId };
}

describe('the example web app: passkeys', () => {
  it('adds a passkey, signs in with it alone after signing out, then removes it', async () => {
    const context = await env.browser.newContext();
    contexts.push(context);
    const page = await open(context, env.appOrigin, '/');
    const { cdp, authenticatorId } = await virtualAuthenticator(page);
    const email = freshEmail('pk');
    await signUp(page, email);

    await page.getByRole('link', { name: 'Passkeys' }).click();
    await page.getByRole('heading', { level: 1, name: 'Passkeys' }).waitFor();
    expect(await page.locator('#no-passkeys').textContent()).toContain('no passkeys');
    await page.getByLabel('Name').fill('Work laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await expectFlash(page, 'Added Work laptop.');
    await expect.poll(() => page.locator('#passkeys tbody tr').count()).toBe(1);
    expect(await page.locator('#passkeys tbody th').textContent()).toBe('Work laptop');
    // The authenticator made a discoverable credential for the RP ID `localhost`.
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]).toMatchObject({ isResidentCredential: true, rpId: 'localhost' });
    const signed = credentials[0]?.signCount ?? 0;
    await screenshot(page, 'passkeys');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
    expect(await page.locator('#signed-in-as').textContent()).toBe(email);
    // The authenticator signed once (user verified): its counter moved.
    const after = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(after.credentials[0]?.signCount).toBeGreaterThan(signed);

    await page.getByRole('link', { name: 'Passkeys' }).click();
    await page.getByRole('heading', { level: 1, name: 'Passkeys' }).waitFor();
    expect(await page.locator('#passkeys tbody td').nth(1).textContent()).not.toBe('Never');
    // The passkey session is a recent two-factor one: the removal needs no further proof.
    await page.getByRole('button', { name: 'Remove Work laptop' }).click();
    await page.getByRole('button', { name: 'Remove passkey' }).click();
    await expectFlash(page, 'Removed Work laptop.');
    await page.locator('#no-passkeys').waitFor();

    // Signed out, the removed passkey no longer signs in: the server says so, in words.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    const alert = page.locator('form.passkey-sign-in .form-alert');
    await expect.poll(async () => (await alert.textContent()) ?? '').not.toBe('');
    expect(await page.locator('#signed-in-as').count()).toBe(0);
  });

  it('confirms a two-factor-less sign-in with the passkey before removing it', async () => {
    const context = await env.browser.newContext();
    contexts.push(context);
    const page = await open(context, env.appOrigin, '/');
    const { cdp, authenticatorId } = await virtualAuthenticator(page);
    await signUp(page, freshEmail('pk2'));
    await page.getByRole('link', { name: 'Passkeys' }).click();
    await page.getByLabel('Name').fill('Laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await expectFlash(page, 'Added Laptop.');
    const before = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    const signed = before.credentials[0]?.signCount ?? 0;
    // The sign-up session has no second factor, and the user now has one: removing asks for a recent
    // proof, which the page gets from the passkey (POST /auth/reauthenticate), then removes it.
    await page.getByRole('button', { name: 'Remove Laptop' }).click();
    await page.getByRole('button', { name: 'Remove passkey' }).click();
    await expectFlash(page, 'Removed Laptop.');
    await page.locator('#no-passkeys').waitFor();
    const after = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    // The authenticator signed for the re-authentication.
    expect(after.credentials[0]?.signCount).toBeGreaterThan(signed);
  });
});
