import type { BrowserContext, Page } from 'playwright-core';
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

/* Sessions, members and the audit log of the example app, in Chromium, with several browsers at once. */

let env: WebEnv;

beforeAll(async () => {
  env = await startWebEnv();
});

afterAll(async () => {
  await env?.close();
});

/** A new browser (own cookie jar) signed in as `email`, on its account page. */
async function device(email: string, password = PASSWORD): Promise<{ context: BrowserContext; page: Page }> {
  const context = await env.browser.newContext();
  const page = await open(context, env.appOrigin, '/sign-in');
  await signIn(page, email, password);
  await page.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
  return { context, page };
}

const rows = (page: Page, table: string) => page.locator(`#${table} tbody tr`);

describe('the example web app: sessions, members, audit log', () => {
  it('lists the sessions with device, IP, user agent and "this device"; revokes one, then all others', async () => {
    const email = freshEmail('sessions');
    const mine = await env.browser.newContext();
    const page = await open(mine, env.appOrigin, '/sign-up');
    await signUp(page, email);
    const second = await device(email);
    const third = await device(email);

    await page.getByRole('link', { name: 'Sessions' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sessions' }).waitFor();
    await expect.poll(() => rows(page, 'sessions').count()).toBe(3);
    const userAgent = await page.evaluate(
      () => (globalThis as unknown as { navigator: { userAgent: string } }).navigator.userAgent,
    );
    const current = page.locator('#sessions tbody tr.current');
    expect(await current.count()).toBe(1);
    const cells = await current.locator('th, td').allTextContents();
    expect(cells[0]).toContain('This device');
    // The device is named from the user agent (the platform, for headless Chromium), the IP is the loopback.
    expect(cells[0]).toMatch(/Linux/);
    expect(cells[1]).toMatch(/^(127\.0\.0\.1|::1|::ffff:127\.0\.0\.1)$/);
    expect(cells[2]).toBe(userAgent);
    expect(cells[3]).not.toBe('');
    await screenshot(page, 'sessions');

    // Revoke one (the second device): confirm, and it is gone from the list, and signed out there.
    const others = page.locator('#sessions tbody tr:not(.current)');
    const target = await others.first().getAttribute('data-session-id');
    await others
      .first()
      .getByRole('button', { name: /^Sign out / })
      .click();
    await page.getByRole('dialog').getByRole('button', { name: 'Sign out session' }).click();
    await expectFlash(page, 'Signed out');
    await expect.poll(() => rows(page, 'sessions').count()).toBe(2);
    expect(await page.locator(`#sessions tr[data-session-id="${target}"]`).count()).toBe(0);

    // Exactly one of the other two devices lost its session.
    const stillIn = async (p: Page) => {
      await open(p.context(), env.appOrigin, '/sessions', p);
      await expect
        .poll(() => p.getByRole('heading', { level: 1 }).textContent())
        .toMatch(/^(Sessions|Sign in)$/);
      return (await p.getByRole('heading', { level: 1 }).textContent()) === 'Sessions';
    };
    const survivors = [await stillIn(second.page), await stillIn(third.page)];
    expect(survivors.filter(Boolean)).toHaveLength(1);

    // Revoke all others: only this device is left, and it is still signed in.
    await page.getByRole('button', { name: 'Sign out all other sessions' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Sign out others' }).click();
    await expectFlash(page, 'Signed out 1 other session.');
    await expect.poll(() => rows(page, 'sessions').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Sign out all other sessions' }).isDisabled()).toBe(true);
    expect(await stillIn(second.page)).toBe(false);
    expect(await stillIn(third.page)).toBe(false);
    await Promise.all([mine.close(), second.context.close(), third.context.close()]);
  });

  it('invites an admin by email, who accepts in another browser; changes roles, removes; pages the audit log', async () => {
    const owner = freshEmail('owner');
    const context = await env.browser.newContext();
    const page = await open(context, env.appOrigin, '/sign-up');
    const verification = env.inbox.receive(owner, () => signUp(page, owner, 'Difference Engines'));
    // Inviting needs a verified email (API 1.2): the owner opens the link registration sent.
    await page.goto(linkIn(await verification, '/verify-email'));
    await page.getByText('Your email address is verified.').waitFor();
    await page.getByRole('link', { name: 'Go to your account' }).click();
    await page.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
    await page.getByRole('link', { name: 'Members' }).click();
    await page.getByRole('heading', { level: 1, name: 'Members' }).waitFor();
    expect(await rows(page, 'members').count()).toBe(1);

    // Invite an admin, and someone else who will be un-invited.
    const invitee = freshEmail('admin');
    const form = page.getByRole('region', { name: 'Invite someone' });
    await form.getByLabel('Email').fill(invitee);
    await form.getByLabel('Role').selectOption('admin');
    const mail = await env.inbox.receive(invitee, () =>
      form.getByRole('button', { name: 'Send invitation' }).click(),
    );
    await expectFlash(page, `Invitation sent to ${invitee}`);
    const dropped = freshEmail('dropped');
    await form.getByLabel('Email').fill(dropped);
    await form.getByRole('button', { name: 'Send invitation' }).click();
    await expect.poll(() => rows(page, 'invitations').count()).toBe(2);
    const pending = page.locator(`#invitations tr[data-invitation="${invitee}"]`);
    expect(await pending.locator('td').first().textContent()).toBe('Administrator');
    await screenshot(page, 'members');

    // Revoke the second invitation: gone from the list.
    await page.getByRole('button', { name: `Revoke the invitation of ${dropped}` }).click();
    await expectFlash(page, `The invitation of ${dropped} was revoked`);
    await expect.poll(() => rows(page, 'invitations').count()).toBe(1);

    // The invitee opens the emailed link in their own browser and chooses a password.
    const link = linkIn(mail, '/accept-invitation');
    expect(link.startsWith(`${env.appOrigin}/accept-invitation?token=`)).toBe(true);
    const theirs = await env.browser.newContext();
    const them = await open(theirs, env.appOrigin, new URL(link).pathname + new URL(link).search);
    expect(them.url()).toBe(`${env.appOrigin}/accept-invitation`);
    await them.getByLabel('Choose a password').fill('Blue-Kettle-Morning-42');
    await them.getByRole('button', { name: 'Accept invitation' }).click();
    await them.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
    await expectFlash(them, `You joined as ${invitee}`);
    expect(await them.locator('#role').textContent()).toBe('Administrator');
    expect(await them.locator('#tenant-name').textContent()).toContain('Difference Engines');
    expect(await them.locator('#email-status').textContent()).toBe('Verified');
    // An admin sees the audit log in the navigation.
    expect(await them.getByRole('link', { name: 'Audit log' }).count()).toBe(1);

    // The owner's list: the new member, no pending invitation.
    await page.reload();
    await page.waitForSelector('html[data-ready="true"]');
    await expect.poll(() => rows(page, 'members').count()).toBe(2);
    expect(await page.locator('#invitations').count()).toBe(0);

    // Change the role: admin -> member. The member's own browser loses the audit log at its next visit.
    await page.getByLabel(`Role of ${invitee}`).selectOption('member');
    // Nothing changes before the confirmation.
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    expect(await page.getByLabel(`Role of ${invitee}`).inputValue()).toBe('admin');
    await page.getByLabel(`Role of ${invitee}`).selectOption('member');
    await page.getByRole('dialog').getByRole('button', { name: 'Change role' }).click();
    await expectFlash(page, `${invitee} is now member`);
    await them.getByRole('link', { name: 'Account' }).click();
    await expect.poll(() => them.locator('#role').textContent()).toBe('Member');
    await them.goto(`${env.appOrigin}/audit`);
    await them.waitForSelector('html[data-ready="true"]');
    await expect
      .poll(() => them.getByRole('alert').first().textContent())
      .toBe('Your role does not allow this. Ask an owner or administrator of your organisation.');

    // Deactivate: still listed (marked), their browser signed out at its next request, and refused at
    // sign-in with the words of account_disabled; reactivated, they sign in again.
    await page.getByRole('button', { name: `Deactivate ${invitee}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Deactivate' }).click();
    await expectFlash(page, `${invitee} was deactivated`);
    const row = page.locator(`#members tr[data-member="${invitee}"]`);
    await row.getByText('Deactivated').waitFor();
    await them.getByRole('link', { name: 'Sessions' }).click();
    await them.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await signIn(them, invitee, 'Blue-Kettle-Morning-42');
    await expect
      .poll(() => them.getByRole('alert').first().textContent())
      .toBe('This account has been deactivated. Ask an administrator of your organisation.');
    await screenshot(page, 'members-deactivated');
    await page.getByRole('button', { name: `Reactivate ${invitee}` }).click();
    await expectFlash(page, `${invitee} was reactivated`);
    await expect.poll(() => row.getByText('Deactivated').count()).toBe(0);
    await signIn(them, invitee, 'Blue-Kettle-Morning-42');
    await them.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();

    // Remove: the member is gone, and their browser is signed out at its next request.
    await page.getByRole('button', { name: `Remove ${invitee}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove member' }).click();
    await expectFlash(page, `${invitee} was removed`);
    await expect.poll(() => rows(page, 'members').count()).toBe(1);
    await them.getByRole('link', { name: 'Sessions' }).click();
    await them.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();

    // The audit log: newest first, page by page (3 a page here), every event of the story above.
    await page.goto(`${env.appOrigin}/audit?limit=3`);
    await page.waitForSelector('html[data-ready="true"]');
    await expect.poll(() => rows(page, 'audit').count()).toBe(3);
    const more = page.getByRole('button', { name: 'Load older events' });
    while (await more.isVisible()) {
      const before = await rows(page, 'audit').count();
      await more.click();
      await expect.poll(() => rows(page, 'audit').count()).toBeGreaterThan(before);
    }
    const total = await rows(page, 'audit').count();
    expect(total).toBeGreaterThan(6);
    expect(await page.locator('#audit-status').textContent()).toBe(`All ${total} events shown.`);
    const types = await page
      .locator('#audit tbody tr')
      .evaluateAll((trs) => trs.map((tr) => (tr as unknown as { dataset: { event: string } }).dataset.event));
    for (const type of [
      'registered',
      'invitation_created',
      'invitation_revoked',
      'user_deactivated',
      'user_reactivated',
      'invitation_accepted',
      'member_role_changed',
      'member_removed',
    ]) {
      expect(types).toContain(type);
    }
    // Newest first: the removal is above the acceptance, the registration is last.
    expect(types.indexOf('member_removed')).toBeLessThan(types.indexOf('invitation_accepted'));
    expect(types.at(-1)).toBe('registered');
    // The removal is by the owner.
    const removal = page.locator('#audit tr[data-event="member_removed"]').first();
    expect(await removal.locator('td').nth(1).textContent()).toBe(owner);
    expect(await removal.locator('th').textContent()).toBe('Member removed');
    await page.goto(`${env.appOrigin}/audit?limit=8`);
    await page.waitForSelector('html[data-ready="true"]');
    await expect.poll(() => rows(page, 'audit').count()).toBe(8);
    await screenshot(page, 'audit');
    await Promise.all([context.close(), theirs.close()]);
  });
});
