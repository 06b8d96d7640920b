import { createApiKeyClient, isTenantAuthClientError } from 'tenant-auth-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, verifiedOwner } from './helpers/api-keys.js';
import { api, uniqueEmail } from './helpers/http.js';
import { TestInbox } from './helpers/smtp.js';
import { startTestServer, type TestServer } from './helpers/test-server.js';

/*
 * tenant-auth-client's API-key client (a back-end's credential, API 1.2) against the real reference
 * server: the key in the Authorization header, the contract's errors as TenantAuthClientErrors.
 */

/** The error code a promise rejects with (a TenantAuthClientError's). */
async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'resolved';
  } catch (err) {
    return isTenantAuthClientError(err) ? err.code : 'other';
  }
}

describe('createApiKeyClient against the reference server', () => {
  let server: TestServer;
  let inbox: TestInbox;
  let baseUrl: string;

  beforeAll(async () => {
    inbox = await new TestInbox().start();
    server = await startTestServer({ SMTP_URL: inbox.url, APP_URL: 'https://app.test' });
    baseUrl = `${server.baseUrl}/api/v1`;
  });
  afterAll(async () => {
    await server?.close();
    await inbox?.stop();
  });

  it("calls the tenant's routes with the key; a revoked key is invalid_token, a member key forbidden on admin routes", async () => {
    const owner = await verifiedOwner(server.baseUrl, inbox);
    const admin = await createKey(server.baseUrl, owner.token, { role: 'admin' });
    const member = await createKey(server.baseUrl, owner.token, { role: 'member', name: 'read-only' });
    const client = createApiKeyClient({ baseUrl, apiKey: admin.secret });
    expect((await client.request('getMyTenant', {})).id).toBe(owner.user.tenantId);
    expect((await client.request('listMembers', {})).members.map((m) => m.id)).toEqual([owner.user.id]);
    const invited = await client.request('createInvitation', {
      body: { email: uniqueEmail('by-client'), role: 'member' },
    });
    expect(invited.invitation.invitedBy).toBe(owner.user.id);
    const page = await client.request('listAuditEvents', { query: { type: 'invitation_created' } });
    expect(page.events[0]).toMatchObject({ actorId: admin.apiKey.id, actorType: 'api_key' });

    const reader = createApiKeyClient({ baseUrl, apiKey: member.secret });
    expect(await codeOf(reader.request('listAuditEvents', {}))).toBe('forbidden');

    const revoked = await api(server.baseUrl, `/tenants/me/api-keys/${admin.apiKey.id}`, {
      method: 'DELETE',
      token: owner.token,
    });
    expect(revoked.status).toBe(204);
    expect(await codeOf(client.request('getMyTenant', {}))).toBe('invalid_token');
  });

  it('refuses at once what is no key, and an operation a key cannot call', async () => {
    expect(() => createApiKeyClient({ baseUrl, apiKey: 'eyJhbGciOiJIUzI1NiJ9.e30.x' })).toThrow(TypeError);
    expect(() => createApiKeyClient({ baseUrl: 'ftp://x', apiKey: `tak_${'a'.repeat(43)}` })).toThrow(
      TypeError,
    );
    const client = createApiKeyClient({ baseUrl, apiKey: `tak_${'a'.repeat(43)}` });
    await expect(client.request('listSessions' as never, {})).rejects.toThrow(TypeError);
  });
});
