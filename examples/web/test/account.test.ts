import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
 * The account flows of the example app, in Chromium, against the reference server: every email link is
 * read from what a real SMTP server received, and opened in the browser as a user would click it.
 */

let env: WebEnv;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  env = await startWebEnv();
});

afterAll(async () => {
  await env?.close();
});

async function newContext(): Promise<BrowserContext> {
  const context = await env.browser.newContext();
  contexts.push(context);
  return context;
}

describe('the example web app: account flows', () => {
  it('signs up, verifies the email through the emailed link, signs out and back in', async () => {
    const context = await newContext();
    const page = await open(context, env.appOrigin, '/');
    await expect.poll(() => page.url()).toBe(`${env.appOrigin}/sign-in`);
    await screenshot(page, 'sign-in');

    const email = freshEmail('ada');
    const mail = env.inbox.receive(email, () => signUp(page, email));
    await expectFlash(page, `We sent a link to ${email}`);
    expect(await page.locator('#email').textContent()).toBe(email);
    expect(await page.locator('#tenant-name').textContent()).toContain('Analytical Engines');
    expect(await page.locator('#email-status').textContent()).toBe('Not verified');

    // "Resend verification": a second email, with a new link (the first one stops working).
    await mail;
    await page.getByRole('button', { name: 'Resend verification email' }).click();
    await expectFlash(page, `We sent a new verification link to ${email}`);
    const resent = await env.inbox.waitFor(email, 2);
    const link = linkIn(resent, '/verify-email');
    expect(link.startsWith(`${env.appOrigin}/verify-email?token=`)).toBe(true);

    // The first link was replaced by the second: the page says so in words.
    const stale = await context.newPage();
    await open(
      context,
      env.appOrigin,
      new URL(linkIn(await mail, '/verify-email')).pathname +
        new URL(linkIn(await mail, '/verify-email')).search,
      stale,
    );
    await expect
      .poll(() => stale.getByRole('alert').textContent())
      .toContain('invalid, was used already, or has expired');
    await stale.close();

    // The link opened in the browser: verified, and the token left the address bar.
    await page.goto(link);
    await page.getByText('Your email address is verified.').waitFor();
    expect(page.url()).toBe(`${env.appOrigin}/verify-email`);
    await page.getByRole('link', { name: 'Go to your account' }).click();
    await expect.poll(() => page.locator('#email-status').textContent()).toBe('Verified');
    expect(await page.getByRole('button', { name: 'Resend verification email' }).count()).toBe(0);
    await screenshot(page, 'account');

    // Sign out, then in again, with the wrong password first: the contract's code, in words.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expectFlash(page, 'You are signed out.');
    await signIn(page, email, 'Wrong-Password-1234');
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe('That email and password do not match an account.');
    // The alert takes the focus, so a screen reader reads it out and the user can correct from there.
    expect(
      await page.evaluate(
        () =>
          (globalThis as unknown as { document: { activeElement: { className: string } } }).document
            .activeElement.className,
      ),
    ).toBe('form-alert');
    await signIn(page, email);
    await page.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
    // The header says who is signed in; a reload keeps the session (restored from the HttpOnly cookies).
    await page.reload();
    await page.waitForSelector('html[data-ready="true"]');
    expect(await page.locator('#signed-in-as').textContent()).toBe(email);
  });

  it('shows the field errors of the contract next to their fields', async () => {
    const context = await newContext();
    const page = await open(context, env.appOrigin, '/sign-up');
    await page.getByLabel('Email').fill('not-an-email');
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    const password = page.getByLabel('Password');
    await expect.poll(() => password.getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel('Email').getAttribute('aria-invalid')).toBe('true');
    // The messages are read through aria-describedby, next to the field they are about.
    const describedBy = (await password.getAttribute('aria-describedby'))!.split(' ');
    const errorText = await page.locator(`#${describedBy.at(-1)}`).textContent();
    expect(errorText).toContain('Use at least 12 characters.');
    expect(await page.getByRole('alert').first().textContent()).toContain(
      'Please check the highlighted fields',
    );
    // Focus went to the first bad field.
    expect(
      await page.evaluate(
        () =>
          (globalThis as unknown as { document: { activeElement: { name: string } } }).document.activeElement
            .name,
      ),
    ).toBe('email');

    // An address that has an account already.
    const email = freshEmail('taken');
    await signUp(page, email);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('link', { name: 'Create account' }).first().click();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect
      .poll(() => page.locator('.field-error:not([hidden])').first().textContent())
      .toBe('An account with this email address already exists.');
  });

  it('resets a forgotten password through the emailed link: every old session ends, the new password works', async () => {
    const email = freshEmail('grace');
    const first = await newContext();
    const page = await open(first, env.appOrigin, '/sign-up');
    await signUp(page, email);
    // A second device, signed in too.
    const second = await newContext();
    const other = await open(second, env.appOrigin, '/sign-in');
    await signIn(other, email);
    await other.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();

    // Forgot password, from a signed-out browser.
    const third = await newContext();
    const anon = await open(third, env.appOrigin, '/sign-in');
    await anon.getByRole('link', { name: 'Forgot your password?' }).click();
    await anon.getByLabel('Email').fill(email);
    const mail = await env.inbox.receive(email, () =>
      anon.getByRole('button', { name: 'Send reset link' }).click(),
    );
    await expectFlash(anon, `If an account exists for ${email}`);
    const link = linkIn(mail, '/reset-password');
    expect(link.startsWith(`${env.appOrigin}/reset-password?token=`)).toBe(true);

    await anon.goto(link);
    await anon.getByRole('heading', { level: 1, name: 'Set a new password' }).waitFor();
    expect(anon.url()).toBe(`${env.appOrigin}/reset-password`);
    await screenshot(anon, 'reset-password');
    await anon.getByLabel('New password').fill('Brand-New-Password-77');
    await anon.getByRole('button', { name: 'Set new password' }).click();
    await expectFlash(anon, 'every session was signed out');

    // The link works once.
    await anon.goto(link);
    await anon.getByLabel('New password').fill('Another-New-Password-88');
    await anon.getByRole('button', { name: 'Set new password' }).click();
    await expect
      .poll(() => anon.getByRole('alert').textContent())
      .toBe('This link is invalid or has expired. Ask for a new one.');

    // Both earlier devices are signed out: their next request fails to refresh, the app says why.
    for (const p of [page, other]) {
      await p.getByRole('link', { name: 'Sessions' }).click();
      await p.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
      await expectFlash(p, 'Your session has ended');
    }
    // The old password is refused, the new one works.
    await anon.goto(`${env.appOrigin}/sign-in`);
    await signIn(anon, email);
    await expect
      .poll(() => anon.getByRole('alert').textContent())
      .toBe('That email and password do not match an account.');
    await signIn(anon, email, 'Brand-New-Password-77');
    await anon.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
    // A reset proves the address: verified now.
    expect(await anon.locator('#email-status').textContent()).toBe('Verified');
  });

  it('changes the password (other sessions end, this one stays) and the email (after its confirmation link)', async () => {
    const email = freshEmail('hopper');
    const context = await newContext();
    const page = await open(context, env.appOrigin, '/sign-up');
    await signUp(page, email);
    const second = await newContext();
    const other = await open(second, env.appOrigin, '/sign-in');
    await signIn(other, email);
    await other.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();

    // Wrong current password: the field says so.
    await page.getByLabel('Current password').fill('Not-My-Password-123');
    await page.getByLabel('New password').fill('Changed-Password-4455');
    await page.getByRole('button', { name: 'Change password' }).click();
    await expect
      .poll(() => page.locator('.field-error:not([hidden])').first().textContent())
      .toBe('This password is not correct.');
    await page.getByLabel('Current password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await expectFlash(page, 'Your password was changed');
    // The other device was signed out; this one was not.
    await other.getByRole('link', { name: 'Sessions' }).click();
    await other.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await page.getByRole('link', { name: 'Sessions' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sessions' }).waitFor();

    // Change the email: a confirmation link goes to the new address.
    const newEmail = freshEmail('hopper-new');
    await page.getByRole('link', { name: 'Account' }).click();
    await page.getByLabel('New email').fill(newEmail);
    await page.getByLabel('Password', { exact: true }).first().fill('Changed-Password-4455');
    const toOldAddress = env.inbox.to(email).length;
    const mail = await env.inbox.receive(newEmail, () =>
      page.getByRole('button', { name: 'Change email' }).click(),
    );
    await expectFlash(page, `We sent a confirmation link to ${newEmail}`);
    // Nothing changed until the link is opened: the account page, read afresh from the server, still
    // shows the old address.
    await page.reload();
    await page.waitForSelector('html[data-ready="true"]');
    await page.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
    expect(await page.locator('#email').textContent()).toBe(email);
    const notice = await env.inbox.waitFor(email, toOldAddress + 1);
    expect(notice.text).toContain(newEmail);

    await page.goto(linkIn(mail, '/confirm-email-change'));
    await page.waitForSelector('html[data-ready="true"]');
    await page.getByRole('button', { name: 'Confirm new email address' }).click();
    await page.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
    await expectFlash(page, 'Your email address was changed');
    await expect.poll(() => page.locator('#email').textContent()).toBe(newEmail);
    expect(await page.locator('#email-status').textContent()).toBe('Verified');

    // The new address signs in; the old one no longer does.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(page, email, 'Changed-Password-4455');
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe('That email and password do not match an account.');
    await signIn(page, newEmail, 'Changed-Password-4455');
    await page.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
  });

  it('deletes the account after a confirmation, and the address can no longer sign in', async () => {
    const email = freshEmail('lovelace');
    const context = await newContext();
    const page = await open(context, env.appOrigin, '/sign-up');
    await signUp(page, email);
    const danger = page.getByRole('region', { name: 'Delete account' });
    await danger.getByLabel('Password').fill(PASSWORD);
    await danger.getByRole('button', { name: 'Delete my account' }).click();
    // A modal dialog: the focus is in it, on the safe choice, and Escape cancels.
    const dialog = page.getByRole('dialog', { name: 'Delete your account?' });
    await dialog.waitFor();
    expect(
      await page.evaluate(
        () =>
          (globalThis as unknown as { document: { activeElement: { textContent: string } } }).document
            .activeElement.textContent,
      ),
    ).toBe('Cancel');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await page.locator('#email').textContent()).toBe(email);

    await danger.getByRole('button', { name: 'Delete my account' }).click();
    await dialog.getByRole('button', { name: 'Delete account' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await expectFlash(page, 'Your account was deleted');
    expect(await context.cookies(env.api.origin)).toEqual([]);
    await signIn(page, email);
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe('That email and password do not match an account.');
  });
});
