import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '../../server/test/helpers/mfa.js';
import {
  expectFlash,
  freshEmail,
  linkIn,
  open,
  PASSWORD,
  screenshot,
  signIn,
  signUp,
  startWebEnv,
  type WebEnv,
} from './support/web-env.js';

/*
 * The passkey flows of the example app in Chromium, against the reference server, with the DevTools
 * Protocol's virtual authenticator (a CTAP2 platform authenticator with resident keys and user
 * verification): add a passkey, sign out, sign in with it (no email, no password), remove it; a passkey
 * as the second step after the password, in the re-authentication dialog, and in the enrolment an
 * organisation forces. The relying party is the server's default from APP_URL: `localhost`, which
 * browsers treat as a secure context.
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

/** From any signed-in page to the passkeys page, the way a person finds it: Security, then its section. */
async function toPasskeys(page: Page): Promise<void> {
  await page.getByRole('link', { name: 'Security', exact: true }).click();
  await page.getByRole('heading', { level: 1, name: 'Security' }).waitFor();
  await page
    .getByRole('region', { name: 'Passkeys' })
    .getByRole('link', { name: /passkey/ })
    .click();
  await page.getByRole('heading', { level: 1, name: 'Passkeys' }).waitFor();
}

/** Adds a passkey named `name` on the passkeys page. */
async function addPasskey(page: Page, name: string): Promise<void> {
  await toPasskeys(page);
  await page.getByLabel('Name').fill(name);
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  await expectFlash(page, `Added ${name}.`);
}

const signCount = async (cdp: CDPSession, authenticatorId: string) =>
  (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials[0]?.signCount ?? 0;

describe('the example web app: passkeys', () => {
  it('adds a passkey, signs in with it alone after signing out, then removes it', async () => {
    const context = await env.browser.newContext();
    contexts.push(context);
    const page = await open(context, env.appOrigin, '/');
    const { cdp, authenticatorId } = await virtualAuthenticator(page);
    const email = freshEmail('pk');
    await signUp(page, email);

    await toPasskeys(page);
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

    await toPasskeys(page);
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
    await addPasskey(page, 'Laptop');
    const before = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    const signed = before.credentials[0]?.signCount ?? 0;
    // The sign-up session has no second factor, and the user now has one: removing asks for a recent
    // proof, which the re-authentication dialog gets from the passkey (POST /auth/reauthenticate).
    await page.getByRole('button', { name: 'Remove Laptop' }).click();
    await page.getByRole('button', { name: 'Remove passkey' }).click();
    const dialog = page.getByRole('dialog', { name: 'Confirm it is you' });
    await dialog.getByRole('button', { name: 'Use a passkey' }).click();
    await expectFlash(page, 'Removed Laptop.');
    await page.locator('#no-passkeys').waitFor();
    const after = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    // The authenticator signed for the re-authentication.
    expect(after.credentials[0]?.signCount).toBeGreaterThan(signed);
  });

  it('signs in with the password, then the passkey as the second step', async () => {
    const context = await env.browser.newContext();
    contexts.push(context);
    const page = await open(context, env.appOrigin, '/');
    const { cdp, authenticatorId } = await virtualAuthenticator(page);
    const email = freshEmail('pk3');
    await signUp(page, email);
    await addPasskey(page, 'Laptop');
    await page.getByRole('button', { name: 'Sign out' }).click();

    // The password is right; the user's only factor is the passkey: no code field, the passkey button.
    await signIn(page, email);
    await page.getByRole('heading', { level: 1, name: 'Two-step verification' }).waitFor();
    expect(await page.getByLabel('Authentication code').count()).toBe(0);
    const signed = await signCount(cdp, authenticatorId);
    await screenshot(page, 'second-factor-passkey');
    await page.locator('#second-factor-methods').getByRole('button', { name: 'Use a passkey' }).click();
    await page.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
    expect(await page.locator('#signed-in-as').textContent()).toBe(email);
    // The authenticator signed the challenge of POST /auth/mfa/passkey/options.
    expect(await signCount(cdp, authenticatorId)).toBeGreaterThan(signed);
    // The session is a two-factor one now: the passkey is removed without any further proof.
    await toPasskeys(page);
    await page.getByRole('button', { name: 'Remove Laptop' }).click();
    await page.getByRole('button', { name: 'Remove passkey' }).click();
    await expectFlash(page, 'Removed Laptop.');
    expect(await page.locator('#reauthentication').count()).toBe(0);
  });

  it('a passkey-only owner confirms with the passkey to require two-step verification; an invitee enrols a passkey', async () => {
    const owner = freshEmail('pk-owner');
    const context = await env.browser.newContext();
    contexts.push(context);
    const page = await open(context, env.appOrigin, '/');
    const { cdp, authenticatorId } = await virtualAuthenticator(page);
    const verification = env.inbox.receive(owner, () => signUp(page, owner, 'Difference Engines'));
    await page.goto(linkIn(await verification, '/verify-email'));
    await page.getByText('Your email address is verified.').waitFor();
    await addPasskey(page, 'Laptop');
    const signed = await signCount(cdp, authenticatorId);

    // The sign-up session has no second factor: the dialog asks for the passkey alone (no password).
    await page.getByRole('link', { name: 'Organisation security' }).click();
    await page.getByLabel('Require two-step verification for every member').check();
    await page.getByRole('button', { name: 'Save' }).click();
    const dialog = page.getByRole('dialog', { name: 'Confirm it is you' });
    await dialog.getByRole('button', { name: 'Use a passkey' }).waitFor();
    expect(await dialog.getByLabel('Password').count()).toBe(0);
    await screenshot(page, 'reauthentication-passkey');
    await dialog.getByRole('button', { name: 'Use a passkey' }).click();
    await expectFlash(page, 'Two-step verification is now required in your organisation.');
    expect(await page.locator('#reauthentication').count()).toBe(0);
    expect(await signCount(cdp, authenticatorId)).toBeGreaterThan(signed);

    // An invitee must enrol before getting in: a passkey instead of an authenticator app.
    const invitee = freshEmail('pk-member');
    await page.getByRole('link', { name: 'Members' }).click();
    const form = page.getByRole('region', { name: 'Invite someone' });
    await form.getByLabel('Email').fill(invitee);
    const mail = await env.inbox.receive(invitee, () =>
      form.getByRole('button', { name: 'Send invitation' }).click(),
    );
    const link = new URL(linkIn(mail, '/accept-invitation'));
    const theirs = await env.browser.newContext();
    contexts.push(theirs);
    const them = await open(theirs, env.appOrigin, link.pathname + link.search);
    const authenticator = await virtualAuthenticator(them);
    await them.getByLabel('Choose a password').fill(PASSWORD);
    await them.getByRole('button', { name: 'Accept invitation' }).click();
    await them.getByRole('heading', { level: 1, name: 'Set up two-step verification' }).waitFor();
    await them.getByRole('img', { name: /QR code/ }).waitFor();
    await screenshot(them, 'enrolment-passkey');
    await them.getByRole('button', { name: 'Use a passkey instead' }).click();
    await them.getByRole('heading', { name: 'Save your recovery codes' }).waitFor();
    expect(await them.locator('#recovery-codes li').count()).toBe(10);
    const made = await authenticator.cdp.send('WebAuthn.getCredentials', {
      authenticatorId: authenticator.authenticatorId,
    });
    expect(made.credentials).toHaveLength(1);
    await them.getByRole('button', { name: 'I have saved my codes' }).click();
    await them.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
    expect(await them.locator('#signed-in-as').textContent()).toBe(invitee);
    await toPasskeys(them);
    await expect.poll(() => them.locator('#passkeys tbody tr').count()).toBe(1);
  });

  it('a user with an authenticator app and a passkey may answer with either, in the dialog and the second step', async () => {
    const context = await env.browser.newContext();
    contexts.push(context);
    const page = await open(context, env.appOrigin, '/');
    const laptop = await virtualAuthenticator(page);
    const email = freshEmail('pk-both');
    await signUp(page, email);
    await page.getByRole('link', { name: 'Security', exact: true }).click();
    await page.getByRole('button', { name: 'Set up authenticator app' }).click();
    await page.locator('#totp-setup details summary').click();
    const secret = ((await page.locator('#totp-secret').textContent()) ?? '').replaceAll(' ', '');
    await page.getByLabel('Authentication code').fill(totpCode(secret, new Date()));
    await page.getByRole('button', { name: 'Turn on two-step verification' }).click();
    await page.getByRole('button', { name: 'I have saved my codes' }).click();

    // On another device: the password and a code (the next step: the first one was used), then a
    // passkey, which the user's password manager syncs to this laptop (the credential copied over).
    const otherContext = await env.browser.newContext();
    contexts.push(otherContext);
    const other = await open(otherContext, env.appOrigin, '/sign-in');
    const phone = await virtualAuthenticator(other);
    await signIn(other, email);
    await other.getByLabel('Authentication code').fill(totpCode(secret, new Date(Date.now() + 30_000)));
    await other.getByRole('button', { name: 'Verify' }).click();
    await other.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
    await addPasskey(other, 'Synced');
    const [synced] = (
      await phone.cdp.send('WebAuthn.getCredentials', { authenticatorId: phone.authenticatorId })
    ).credentials;
    if (!synced) throw new Error('no passkey made');
    await laptop.cdp.send('WebAuthn.addCredential', {
      authenticatorId: laptop.authenticatorId,
      credential: synced,
    });

    // The laptop's sign-up session has no second factor: new recovery codes ask who it is, either way.
    await page.getByRole('link', { name: 'Security', exact: true }).click();
    await page.getByRole('button', { name: 'Get new recovery codes' }).click();
    const dialog = page.getByRole('dialog', { name: 'Confirm it is you' });
    await dialog.getByLabel('Password').waitFor();
    expect(await dialog.getByLabel('Authentication code').count()).toBe(1);
    await screenshot(page, 'reauthentication-either');
    await dialog.getByRole('button', { name: 'Use a passkey' }).click();
    await page.getByRole('heading', { name: 'Save your recovery codes' }).waitFor();
    expect(await page.locator('#recovery-codes li').count()).toBe(10);
    expect(await dialog.count()).toBe(0);
    await page.getByRole('button', { name: 'I have saved my codes' }).click();

    // Signed in again with the password: the code field and the passkey, either one.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(page, email);
    await page.getByRole('heading', { level: 1, name: 'Two-step verification' }).waitFor();
    await page.getByLabel('Authentication code').waitFor();
    await screenshot(page, 'second-factor-either');
    await page.locator('#second-factor-methods').getByRole('button', { name: 'Use a passkey' }).click();
    await page.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
    expect(await page.locator('#signed-in-as').textContent()).toBe(email);
  });
});
