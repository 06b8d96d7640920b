import { createServer } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTxtDnsServer, type TxtDnsServer } from '../../server/test/helpers/dns-txt.js';
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
 * The directory-sync page in Chromium, with a directory played by this test: the owner creates the SCIM
 * token (shown once, then nowhere), proves a domain through the loopback DNS responder, and the test,
 * holding the token, provisions a user over `/scim/v2` as Entra ID or Okta would; the members page shows
 * them, then shows them deactivated after a PATCH `active: false`. A group-to-role line saved in the page
 * makes the group's members admins; a revoked token is refused at once.
 */

let env: WebEnv;
let dns: TxtDnsServer;
let apiPort: number;

/** A free TCP port on loopback: the server's PUBLIC_URL (the base URL of SCIM) must name its port. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  apiPort = await freePort();
  dns = await startTxtDnsServer();
  env = await startWebEnv({
    PORT: String(apiPort),
    PUBLIC_URL: `http://localhost:${apiPort}`,
    DNS_SERVERS: dns.address,
  });
});

afterAll(async () => {
  await env?.close();
  await dns?.close();
});

const SCIM_JSON = 'application/scim+json';
const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/** The directory: a SCIM request with the token, as a provisioning service sends it. */
async function scim(
  baseUrl: string,
  token: string,
  path: string,
  init: { method?: string; body?: unknown } = {},
) {
  const res = await fetch(`${baseUrl}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: {
      accept: SCIM_JSON,
      authorization: `Bearer ${token}`,
      ...(init.body === undefined ? {} : { 'content-type': SCIM_JSON }),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await res.text();
  return {
    status: res.status,
    location: res.headers.get('location'),
    contentType: res.headers.get('content-type') ?? '',
    body: (text === '' ? {} : JSON.parse(text)) as Record<string, unknown>,
  };
}

/** Opens a page of the navigation and waits for its heading. */
async function go(page: Page, link: string, title = link): Promise<void> {
  await page.getByRole('link', { name: link, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: title }).waitFor();
  await page.locator('#main:not([aria-busy])').waitFor();
}

describe('the example web app: directory sync', () => {
  it('shows the token once, and the directory provisions, deactivates and maps a group to a role with it', async () => {
    const domain = `scim-${Date.now().toString(36)}.example.com`;
    const context = await env.browser.newContext();
    const page = await open(context, env.appOrigin, '/');
    await signUp(page, `owner@${domain}`);
    await go(page, 'Directory sync');
    expect(await page.locator('#scim-status').textContent()).toBe('No token');
    expect(await page.locator('#scim-last-used').textContent()).toBe('Never');
    const baseUrl = (await page.locator('#scim-base-url').textContent()) ?? '';
    expect(baseUrl).toBe(`http://localhost:${apiPort}/scim/v2`);

    // Created: shown once, then nowhere (the page, its address, its storage).
    await page.getByRole('button', { name: 'Create token' }).click();
    const secretField = page.locator('#new-scim-token-secret');
    await secretField.waitFor();
    const token = await secretField.inputValue();
    expect(token).toMatch(/^tas_[A-Za-z0-9_-]{43}$/);
    expect(await page.locator('#scim-status').textContent()).toBe('Token active');
    await page.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => secretField.count()).toBe(0);
    expect(await page.content()).not.toContain(token);
    expect(page.url()).not.toContain(token);
    const stored = await page.evaluate(() => {
      const g = globalThis as unknown as { localStorage: Storage; sessionStorage: Storage };
      return JSON.stringify([{ ...g.localStorage }, { ...g.sessionStorage }]);
    });
    expect(stored).not.toContain(token);

    // Before the domain is verified, the directory cannot speak for its addresses.
    const grace = `grace@${domain}`;
    const user = {
      schemas: [USER_SCHEMA],
      userName: grace,
      externalId: 'entra-object-id-1',
      name: { givenName: 'Grace', familyName: 'Hopper' },
      emails: [{ value: grace, type: 'work', primary: true }],
      active: true,
    };
    const early = await scim(baseUrl, token, '/Users', { body: user });
    expect(early.status).toBe(400);
    expect(early.body).toMatchObject({ status: '400', scimType: 'invalidValue' });

    // The domain, proved on the single sign-on page through the DNS responder the server asks.
    await go(page, 'Single sign-on');
    await page.getByLabel('Domain', { exact: true }).fill(domain);
    await page.getByRole('button', { name: 'Add domain' }).click();
    await expectFlash(page, `${domain} was added.`);
    const item = page.locator(`li[id="domain-${domain}"]`);
    const name = (await item.locator('.txt-name').textContent()) ?? '';
    const value = (await item.locator('.txt-value').textContent()) ?? '';
    dns.records.set(name, [[value]]);
    await page.getByRole('button', { name: `Verify ${domain}` }).click();
    await expectFlash(page, `${domain} is verified.`);

    // Provisioned by the directory: a member of the team, not deactivated.
    const created = await scim(baseUrl, token, '/Users', { body: user });
    expect(created.status).toBe(201);
    expect(created.contentType).toContain(SCIM_JSON);
    expect(created.body).toMatchObject({ userName: grace, externalId: 'entra-object-id-1', active: true });
    const userId = String(created.body.id);
    expect(created.location).toBe(`${baseUrl}/Users/${userId}`);
    await go(page, 'Members');
    const row = page.locator(`tr[data-member="${grace}"]`);
    await row.waitFor();
    expect(await row.getByText('Deactivated').count()).toBe(0);
    expect(await page.getByLabel(`Role of ${grace}`).inputValue()).toBe('member');

    // Deactivated by the directory, as Entra ID sends it (a string, no path): shown as such.
    const deactivated = await scim(baseUrl, token, `/Users/${userId}`, {
      method: 'PATCH',
      body: { schemas: [PATCH_OP], Operations: [{ op: 'Replace', value: { active: 'False' } }] },
    });
    expect([200, 204]).toContain(deactivated.status);
    await page.reload();
    await page.waitForSelector('html[data-ready="true"]');
    await row.getByText('Deactivated').waitFor();

    // A group-to-role line, saved in the page; the directory's group "Engineering" then makes Grace an admin.
    await go(page, 'Directory sync');
    expect(await page.locator('#scim-last-used').textContent()).not.toBe('Never');
    await page.getByRole('button', { name: 'Add group' }).click();
    await page.getByRole('textbox', { name: 'Group 1' }).fill('Engineering');
    await page.getByRole('combobox', { name: 'Role of group 1' }).selectOption('admin');
    // A second line, removed again before saving.
    await page.getByRole('button', { name: 'Add group' }).click();
    await page.getByRole('textbox', { name: 'Group 2' }).fill('Everyone');
    await page.getByRole('button', { name: 'Remove group 2' }).click();
    await page.getByRole('button', { name: 'Save group roles' }).click();
    await expectFlash(page, 'The group roles are saved (1)');
    await expect.poll(() => page.getByRole('textbox', { name: 'Group 1' }).inputValue()).toBe('Engineering');
    expect(await page.getByRole('combobox', { name: 'Role of group 1' }).inputValue()).toBe('admin');
    expect(await page.getByRole('textbox', { name: 'Group 2' }).count()).toBe(0);
    await screenshot(page, 'directory-sync');

    const group = await scim(baseUrl, token, '/Groups', {
      body: { schemas: [GROUP_SCHEMA], displayName: 'Engineering', members: [{ value: userId }] },
    });
    expect(group.status).toBe(201);
    await go(page, 'Members');
    await expect.poll(() => page.getByLabel(`Role of ${grace}`).inputValue()).toBe('admin');

    // The audit log names the directory as the actor of its writes, and holds no token.
    await go(page, 'Audit log');
    const provisioned = page.locator('tr[data-event="scim_user_created"]');
    await provisioned.waitFor();
    expect(await provisioned.textContent()).toContain('Your directory (SCIM)');
    expect(await page.locator('tr[data-event="scim_token_created"]').count()).toBe(1);
    expect(await page.content()).not.toContain(token);

    // Revoked: the directory is refused at once.
    await go(page, 'Directory sync');
    await page.getByRole('button', { name: 'Revoke token' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke token' }).click();
    await expectFlash(page, 'The SCIM token was revoked.');
    expect(await page.locator('#scim-status').textContent()).toBe('No token');
    expect((await scim(baseUrl, token, `/Users/${userId}`)).status).toBe(401);
    await context.close();
  }, 120_000);

  it('an administrator sees the connection and the mapping, and is offered no action', async () => {
    const owner = freshEmail('owner');
    const context = await env.browser.newContext();
    const page = await open(context, env.appOrigin, '/sign-up');
    const verification = env.inbox.receive(owner, () => signUp(page, owner));
    // Inviting needs a verified email (API 1.2): the owner opens the link registration sent.
    await page.goto(linkIn(await verification, '/verify-email'));
    await page.getByText('Your email address is verified.').waitFor();
    await page.getByRole('link', { name: 'Go to your account' }).click();
    await page.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
    await go(page, 'Members');
    const invitee = freshEmail('admin');
    const form = page.getByRole('region', { name: 'Invite someone' });
    await form.getByLabel('Email').fill(invitee);
    await form.getByLabel('Role').selectOption('admin');
    const mail = await env.inbox.receive(invitee, () =>
      form.getByRole('button', { name: 'Send invitation' }).click(),
    );
    const link = new URL(linkIn(mail, '/accept-invitation'));
    const theirs = await env.browser.newContext();
    const them = await open(theirs, env.appOrigin, link.pathname + link.search);
    await them.getByLabel('Choose a password').fill('Blue-Kettle-Morning-42');
    await them.getByRole('button', { name: 'Accept invitation' }).click();
    await them.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();

    await go(them, 'Directory sync');
    expect(await them.locator('#scim-status').textContent()).toBe('No token');
    expect(await them.locator('#scim-base-url').textContent()).toBe(`http://localhost:${apiPort}/scim/v2`);
    expect(await them.locator('#no-group-roles').textContent()).toContain('No group mapped');
    for (const action of ['Create token', 'Revoke token', 'Add group', 'Save group roles']) {
      expect(await them.getByRole('button', { name: action }).count(), action).toBe(0);
    }
    await theirs.close();
    await context.close();
  }, 120_000);
});
