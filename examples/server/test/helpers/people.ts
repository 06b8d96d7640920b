import type { TokenResponseJson } from 'tenant-auth-koa/contract';
import { expect } from 'vitest';
import { api, PASSWORD, uniqueEmail } from './http.js';
import type { TestInbox } from './smtp.js';

/** A user of a test: its token response, its address, and its access token as `token`. */
export type TestPerson = TokenResponseJson & { email: string; token: string };

/**
 * Registers the owner of a new tenant and verifies its address through the link `inbox` receives (API 1.2:
 * inviting and changing roles need a verified address).
 *
 * @example const ada = await verifiedOwner(server.baseUrl, inbox);
 */
export async function verifiedOwner(url: string, inbox: TestInbox): Promise<TestPerson> {
  const email = uniqueEmail('owner');
  let r: { status: number; body: TokenResponseJson } | undefined;
  const verifyToken = await inbox.tokenFrom(email, '/verify-email', async () => {
    r = await api<TokenResponseJson>(url, '/auth/register', { body: { email, password: PASSWORD } });
  });
  expect(r?.status).toBe(201);
  expect((await api(url, '/auth/email/verify', { body: { token: verifyToken } })).status).toBe(204);
  const body = r?.body as TokenResponseJson;
  return { ...body, email, token: body.accessToken };
}

/**
 * Invites a new address into the inviter's tenant with `role` and accepts the emailed invitation with a
 * password: the new member.
 *
 * @example const bob = await invitedMember(server.baseUrl, inbox, ada.token, 'admin');
 */
export async function invitedMember(
  url: string,
  inbox: TestInbox,
  inviterToken: string,
  role: 'owner' | 'admin' | 'member',
): Promise<TestPerson> {
  const email = uniqueEmail(role);
  const token = await inbox.tokenFrom(email, '/accept-invitation', async () => {
    const r = await api(url, '/tenants/me/invitations', { token: inviterToken, body: { email, role } });
    expect(r.status).toBe(201);
  });
  const r = await api<TokenResponseJson>(url, '/auth/invitations/accept', {
    body: { token, password: PASSWORD },
  });
  expect(r.status).toBe(201);
  return { ...r.body, email, token: r.body.accessToken };
}
