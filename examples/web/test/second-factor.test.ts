import { readFileSync } from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';
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
 * Two-step verification in the example app, in Chromium, against the reference server: the TOTP codes
 * are computed here from the key the page shows (as an authenticator app would), the recovery codes read
 * from the page. One server and one browser for the file.
 */

let env: WebEnv;

beforeAll(async () => {
  env = await startWebEnv();
});

afterAll(async () => {
  await env?.close();
});

const STEP_MS = 30_000;
/** The last step each secret answered with: the server refuses a step at or before it (replay). */
const lastStep = new Map<string, number>();

/**
 * A code the server accepts now, for a step after the last one used (it allows one step of drift):
 * the current step, else the next; waits for the step boundary only when both were used.
 */
async function nextCode(secret: string): Promise<string> {
  const now = () => Math.floor(Date.now() / STEP_MS);
  const step = Math.max(now(), (lastStep.get(secret) ?? 0) + 1);
  if (step > now() + 1) await new Promise((r) => setTimeout(r, (step - 1) * STEP_MS - Date.now() + 100));
  lastStep.set(secret, step);
  return totpCode(secret, new Date(step * STEP_MS));
}

/** The browser globals the page functions below read (the tests compile without the DOM library). */
interface Browser {
  location: { href: string };
  localStorage: Storage;
  sessionStorage: Storage;
  document: { documentElement: { outerHTML: string }; activeElement: unknown };
  navigator: { clipboard: { readText(): Promise<string> } };
}

/** Where a secret could be left behind in the page: the address, both storages, the DOM. */
async function leftovers(page: Page, secrets: string[]): Promise<string[]> {
  const places = await page.evaluate(() => {
    const { location, localStorage, sessionStorage, document } = globalThis as unknown as Browser;
    const dump = (s: Storage) => JSON.stringify(Object.entries(s));
    return {
      url: location.href,
      localStorage: dump(localStorage),
      sessionStorage: dump(sessionStorage),
      dom: document.documentElement.outerHTML,
    };
  });
  const found: string[] = [];
  for (const [place, text] of Object.entries(places)) {
    for (const secret of secrets) if (text.includes(secret)) found.push(`${place}: ${secret}`);
  }
  return found;
}

const heading = (page: Page, name: string) => page.getByRole('heading', { level: 1, name }).waitFor();

/** On /security: sets up the app from the key shown, and returns the key and the recovery codes shown. */
async function enrolOnSecurityPage(page: Page): Promise<{ secret: string; codes: string[] }> {
  await page.getByRole('button', { name: 'Set up authenticator app' }).click();
  await page.getByRole('img', { name: /QR code/ }).waitFor();
  return confirmSetup(page);
}

/** Reads the key of the setup on the page, confirms it with a code, and reads the recovery codes. */
async function confirmSetup(page: Page, shot?: string): Promise<{ secret: string; codes: string[] }> {
  const secret = ((await page.locator('#totp-secret').textContent()) ?? '').replaceAll(' ', '');
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  if (shot) await screenshot(page, shot);
  await page.getByLabel('Authentication code').fill(await nextCode(secret));
  await page.getByRole('button', { name: 'Turn on two-step verification' }).click();
  await page.getByRole('heading', { name: 'Save your recovery codes' }).waitFor();
  const codes = await page.locator('#recovery-codes li').allTextContents();
  expect(codes).toHaveLength(10);
  return { secret, codes };
}

/** Invites `email` as a member from the Members page; returns the path of the emailed link. */
async function invite(page: Page, email: string): Promise<string> {
  await page.getByRole('link', { name: 'Members' }).click();
  await heading(page, 'Members');
  const form = page.getByRole('region', { name: 'Invite someone' });
  await form.getByLabel('Email').fill(email);
  const mail = await env.inbox.receive(email, () =>
    form.getByRole('button', { name: 'Send invitation' }).click(),
  );
  const link = new URL(linkIn(mail, '/accept-invitation'));
  return link.pathname + link.search;
}

async function signOut(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await heading(page, 'Sign in');
}

describe('the example web app: two-step verification', () => {
  it('enrols with a QR code, shows the codes once, re-authenticates a stale session, signs in with a code and a recovery code', async () => {
    const context = await env.browser.newContext();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.appOrigin });
    const page = await open(context, env.appOrigin, '/sign-up');
    const email = freshEmail('totp');
    await signUp(page, email);
    await page.getByRole('link', { name: 'Security', exact: true }).click();
    await heading(page, 'Security');
    expect(await page.locator('#totp-status').textContent()).toBe('Off');
    await screenshot(page, 'security');

    // Set up: the QR code is drawn in the page (an SVG of the otpauth URI), the key typed by "the app".
    await page.getByRole('button', { name: 'Set up authenticator app' }).click();
    const qr = page.getByRole('img', { name: /QR code/ });
    await qr.waitFor();
    expect(await qr.evaluate((svg) => svg.tagName.toLowerCase())).toBe('svg');
    // A wrong code: said under the field, the setup stays.
    await page.getByLabel('Authentication code').fill('000000');
    await page.getByRole('button', { name: 'Turn on two-step verification' }).click();
    await expect
      .poll(() => page.locator('.field-error:not([hidden])').textContent())
      .toContain('This code is not correct');
    await page.locator('#totp-setup details summary').click();
    const { secret, codes } = await confirmSetup(page, 'security-setup');
    await screenshot(page, 'recovery-codes');

    // Copy and download give the same codes.
    await page.getByRole('button', { name: 'Copy codes' }).click();
    await expectFlash(page, 'The recovery codes were copied.');
    const copied = await page.evaluate(() =>
      (globalThis as unknown as Browser).navigator.clipboard.readText(),
    );
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download codes' }).click(),
    ]);
    const downloaded = readFileSync(await download.path(), 'utf8');
    for (const code of codes) {
      expect(copied).toContain(code);
      expect(downloaded).toContain(code);
    }
    expect(download.suggestedFilename()).toBe('recovery-codes.txt');

    // Once saved, the codes and the key are gone: from the page, the storages and the address.
    await page.getByRole('button', { name: 'I have saved my codes' }).click();
    await expect.poll(() => page.locator('#totp-status').textContent()).toBe('On');
    expect(await page.locator('#recovery-codes-remaining').textContent()).toContain('10 unused');
    expect(await leftovers(page, [secret, ...codes])).toEqual([]);

    // This session was signed in with the password only: a new set of codes asks who it is first.
    const newCodes = page.getByRole('button', { name: 'Get new recovery codes' });
    await newCodes.click();
    const dialog = page.getByRole('dialog', { name: 'Confirm it is you' });
    await dialog.waitFor();
    const focused = (locator: typeof newCodes) =>
      locator.evaluate((e) => e === (globalThis as unknown as Browser).document.activeElement);
    expect(await focused(dialog.getByLabel('Password'))).toBe(true);
    // Escape gives up: the dialog goes, and focus moves to the alert that says why nothing happened.
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
    const refusal = page.locator('.form-alert:not([hidden])');
    await expect.poll(() => refusal.textContent()).toContain('confirm it is you');
    expect(await focused(refusal)).toBe(true);
    await newCodes.click();
    await dialog.waitFor();
    await dialog.getByLabel('Password').fill('Not-The-Password-1');
    await dialog.getByRole('button', { name: 'Use a recovery code instead' }).click();
    await dialog.getByLabel('Recovery code').fill(codes[0] ?? '');
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await expect
      .poll(() => dialog.locator('.field-error:not([hidden])').first().textContent())
      .toContain('This password is not correct');
    await screenshot(page, 'reauthentication');
    await dialog.getByLabel('Password').fill(PASSWORD);
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    // The dialog closes and the action finishes by itself: a new set, shown once.
    await page.getByRole('heading', { name: 'Save your recovery codes' }).waitFor();
    expect(await dialog.count()).toBe(0);
    const fresh = await page.locator('#recovery-codes li').allTextContents();
    expect(fresh).toHaveLength(10);
    await page.getByRole('button', { name: 'I have saved my codes' }).click();
    await expect.poll(() => page.locator('#recovery-codes-remaining').textContent()).toContain('10 unused');

    // Signing in: the password, then a code of the app; the mfaToken stays out of the address and storage.
    await signOut(page);
    const login = page.waitForResponse((r) => r.url().endsWith('/auth/login'));
    await signIn(page, email);
    const challenge = (await (await login).json()) as { code: string; mfaToken: string };
    expect(challenge.code).toBe('mfa_required');
    await heading(page, 'Two-step verification');
    expect(await page.getByLabel('Authentication code').evaluate((i) => i.getAttribute('autocomplete'))).toBe(
      'one-time-code',
    );
    await screenshot(page, 'second-factor');
    expect(await leftovers(page, [challenge.mfaToken])).toEqual([]);
    await page.getByLabel('Authentication code').fill(await nextCode(secret));
    await page.keyboard.press('Enter');
    await heading(page, 'Your account');

    // And with a recovery code of the new set instead: an unused code of the old set no longer works, and
    // the page says so under the field (the step stays), with focus on it.
    await signOut(page);
    await signIn(page, email);
    await heading(page, 'Two-step verification');
    await page.getByRole('button', { name: 'Use a recovery code instead' }).click();
    const recoveryCode = page.getByLabel('Recovery code');
    expect(await focused(recoveryCode)).toBe(true);
    await recoveryCode.fill(codes[1] ?? '');
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect
      .poll(() => page.locator('.field-error:not([hidden])').textContent())
      .toContain('This code is not correct');
    expect(await recoveryCode.getAttribute('aria-invalid')).toBe('true');
    expect(await focused(recoveryCode)).toBe(true);
    await recoveryCode.fill(fresh[0] ?? '');
    await page.getByRole('button', { name: 'Verify' }).click();
    await heading(page, 'Your account');
    await page.getByRole('link', { name: 'Security', exact: true }).click();
    await expect.poll(() => page.locator('#recovery-codes-remaining').textContent()).toContain('9 unused');
    expect(await leftovers(page, [secret, ...codes, ...fresh, challenge.mfaToken])).toEqual([]);

    // Five wrong answers end the step: the next one leads back to the password, not to the same form.
    await signOut(page);
    await signIn(page, email);
    await heading(page, 'Two-step verification');
    for (let wrong = 1; wrong <= 5; wrong++) {
      await page.getByLabel('Authentication code').fill('000000');
      await page.getByRole('button', { name: 'Verify' }).click();
      await expect
        .poll(() => page.locator('.field-error:not([hidden])').textContent())
        .toContain('This code is not correct');
    }
    // Any answer now, even a right one (not computed here: the next step may be minutes away).
    await page.getByLabel('Authentication code').fill('111111');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByText('This sign-in has expired or was already used.').waitFor();
    expect(await page.getByRole('button', { name: 'Verify' }).count()).toBe(0);
    expect(await focused(page.getByRole('heading', { level: 1, name: 'Two-step verification' }))).toBe(true);
    await page.locator('#main').getByRole('link', { name: 'Sign in', exact: true }).click();
    await heading(page, 'Sign in');
    await context.close();
  });

  it('an owner requires two-step verification: members without it are signed out and enrol at their next sign-in, invitees before getting in', async () => {
    const owner = freshEmail('policy-owner');
    const context = await env.browser.newContext();
    const page = await open(context, env.appOrigin, '/sign-up');
    const verification = env.inbox.receive(owner, () => signUp(page, owner, 'Jacquard Looms'));
    await page.goto(linkIn(await verification, '/verify-email'));
    await page.getByText('Your email address is verified.').waitFor();
    await page.getByRole('link', { name: 'Go to your account' }).click();
    await heading(page, 'Your account');

    // A member who joins before the policy, and is signed in without a second factor.
    const early = freshEmail('policy-early');
    const earlyContext = await env.browser.newContext();
    const earlyPage = await open(earlyContext, env.appOrigin, await invite(page, early));
    await earlyPage.getByLabel('Choose a password').fill(PASSWORD);
    await earlyPage.getByRole('button', { name: 'Accept invitation' }).click();
    await heading(earlyPage, 'Your account');

    // Without a factor of their own, the owner cannot require one.
    await page.getByRole('link', { name: 'Organisation security' }).click();
    await heading(page, 'Organisation security');
    await page.getByLabel('Require two-step verification for every member').check();
    await page.getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(() => page.locator('.form-alert:not([hidden])').textContent())
      .toContain('Turn on two-step verification for your own account first');

    await page.getByRole('link', { name: 'Your own two-step verification' }).click();
    await heading(page, 'Security');
    const { secret } = await enrolOnSecurityPage(page);
    await page.getByRole('button', { name: 'I have saved my codes' }).click();
    await page.getByRole('link', { name: 'Organisation security' }).click();
    await heading(page, 'Organisation security');
    await page.getByLabel('Require two-step verification for every member').check();
    await page.getByRole('button', { name: 'Save' }).click();
    // The registration's session has no second factor: the dialog asks for one, then the change is saved.
    const dialog = page.getByRole('dialog', { name: 'Confirm it is you' });
    await dialog.getByLabel('Password').fill(PASSWORD);
    await dialog.getByLabel('Authentication code').fill(await nextCode(secret));
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await expectFlash(page, 'Two-step verification is now required in your organisation.');
    expect(await page.getByLabel('Require two-step verification for every member').isChecked()).toBe(true);
    await screenshot(page, 'organisation-security');

    // The early member's session ended with the policy; their password now leads to the enrolment.
    await earlyPage.getByRole('link', { name: 'Members' }).click();
    await expectFlash(earlyPage, 'Your session has ended');
    await signIn(earlyPage, early);
    await heading(earlyPage, 'Set up two-step verification');
    const earlyEnrolled = await confirmSetup(earlyPage);
    await earlyPage.getByRole('button', { name: 'I have saved my codes' }).click();
    await heading(earlyPage, 'Your account');
    expect(await leftovers(earlyPage, [earlyEnrolled.secret, ...earlyEnrolled.codes])).toEqual([]);
    await earlyContext.close();

    // An invitation into the organisation now: the account is made, and set up before it gets in.
    const invitee = freshEmail('policy-member');
    const theirs: BrowserContext = await env.browser.newContext();
    const them = await open(theirs, env.appOrigin, await invite(page, invitee));
    await them.getByLabel('Choose a password').fill(PASSWORD);
    await them.getByRole('button', { name: 'Accept invitation' }).click();
    await heading(them, 'Set up two-step verification');
    await them.getByRole('img', { name: /QR code/ }).waitFor();
    await them.locator('#totp-setup details summary').click();
    const enrolled = await confirmSetup(them, 'enrolment');
    await them.getByRole('button', { name: 'I have saved my codes' }).click();
    await heading(them, 'Your account');
    await expectFlash(them, 'Welcome aboard!');
    expect(await leftovers(them, [enrolled.secret, ...enrolled.codes])).toEqual([]);

    // The organisation requires it: the member cannot remove their only factor.
    await them.getByRole('link', { name: 'Security', exact: true }).click();
    await heading(them, 'Security');
    await them.getByRole('button', { name: 'Remove authenticator app' }).click();
    await them
      .getByRole('dialog', { name: 'Remove the authenticator app?' })
      .getByRole('button', { name: 'Remove' })
      .click();
    await expect
      .poll(() => them.locator('.form-alert:not([hidden])').textContent())
      .toContain('requires two-step verification');

    // Their password alone now leads to the code.
    await signOut(them);
    await signIn(them, invitee);
    await heading(them, 'Two-step verification');
    await them.getByLabel('Authentication code').fill(await nextCode(enrolled.secret));
    await them.getByRole('button', { name: 'Verify' }).click();
    await heading(them, 'Your account');
    await theirs.close();
    await context.close();
  });
});
