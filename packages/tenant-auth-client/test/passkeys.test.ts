import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createTenantAuthClient,
  type SessionChange,
  type TenantAuthClient,
  TenantAuthClientError,
} from '../src/index.js';
import { FakeApi, FakeTime, json, problem, USER } from './fakes.js';

// How `client.passkeys` keeps the session, against a fake server. The WebAuthn ceremony itself is the
// browser's (a real authenticator in Chromium: examples/web/test/passkeys.test.ts); Node has none, so
// `@simplewebauthn/browser` answers with a fixed credential here.
vi.mock('@simplewebauthn/browser', () => ({
  startAuthentication: async () => ({ id: 'cred-1', type: 'public-key', response: {} }),
  startRegistration: async () => ({ id: 'cred-1', type: 'public-key', response: {} }),
}));

const BASE = 'http://api.test/api/v1';
const CREDENTIALS = { email: USER.email, password: 'Correct-Horse-Battery-42' };
const MFA_TOKEN = 'mfa-token-1';
const PASSKEY = { id: 'pk-1', name: 'Laptop', createdAt: '2026-05-01T12:00:00.000Z', lastUsedAt: null };
const OPTIONS = { challenge: 'c2lnbi1tZQ', allowCredentials: [] };

let clients: TenantAuthClient[] = [];
afterEach(() => {
  for (const c of clients) c.close();
  clients = [];
});

function setup() {
  const time = new FakeTime();
  const api = new FakeApi(time);
  const changes: SessionChange[] = [];
  const client = createTenantAuthClient({
    baseUrl: BASE,
    mode: 'bearer',
    fetch: api.fetch,
    clock: time,
    timers: time,
    autoRefresh: false,
    crossTab: false,
    onSessionChange: (change) => changes.push(change),
  });
  clients.push(client);
  return { api, client, changes };
}

async function caught(promise: Promise<unknown>): Promise<TenantAuthClientError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof TenantAuthClientError) return err;
    throw err;
  }
  throw new Error('expected the promise to reject');
}

describe('client.passkeys', () => {
  it('verifyMfa answers the mfa_required step and ends signed in: the SessionState, as client.verifyMfa', async () => {
    const { api, client, changes } = setup();
    api.routes.set('POST /api/v1/auth/mfa/passkey/options', () => json(200, OPTIONS));
    api.routes.set('POST /api/v1/auth/mfa/verify', (request) => {
      expect(request.body).toMatchObject({ mfaToken: MFA_TOKEN, method: 'passkey' });
      return api.signIn(200);
    });
    const state = await client.passkeys.verifyMfa(MFA_TOKEN);
    expect(state.user).toEqual(USER);
    expect(state).not.toHaveProperty('type');
    expect(changes.map((c) => c.type)).toEqual(['signed_in']);
  });

  it('reauthenticate renews the same session: a refresh, not a second sign-in, with the new tokens', async () => {
    const { api, client, changes } = setup();
    await client.login(CREDENTIALS);
    api.routes.set('POST /api/v1/auth/reauthenticate/options', () => json(200, OPTIONS));
    api.routes.set('POST /api/v1/auth/reauthenticate', () => api.signIn(200));
    const before = await client.getAccessToken();
    await client.passkeys.reauthenticate();
    expect(await client.getAccessToken()).not.toBe(before);
    expect(changes.map((c) => c.type)).toEqual(['signed_in', 'refreshed']);
    // A refused re-authentication is thrown as it is: no refresh of the session, no retry.
    api.routes.set('POST /api/v1/auth/reauthenticate', () => problem(401, 'invalid_token'));
    expect((await caught(client.passkeys.reauthenticate())).code).toBe('invalid_token');
    expect(api.refreshCalls()).toHaveLength(0);
  });

  it('register with a setup mfaToken signs in and answers the recovery codes (the shape of confirmTotp)', async () => {
    const { api, client, changes } = setup();
    const codes = Array.from({ length: 10 }, (_, i) => `code${i}-abcde`);
    api.routes.set('POST /api/v1/auth/passkeys/registration/options', () => json(200, OPTIONS));
    api.routes.set('POST /api/v1/auth/passkeys', (request) =>
      (request.body as { mfaToken?: string }).mfaToken
        ? api.signIn(201, { passkey: PASSKEY, recoveryCodes: codes })
        : json(201, { passkey: PASSKEY }),
    );
    const enrolled = await client.passkeys.register({ mfaToken: MFA_TOKEN });
    expect(enrolled).toMatchObject({ passkey: PASSKEY, recoveryCodes: codes });
    expect(enrolled.state?.user).toEqual(USER);
    expect(enrolled.state).not.toHaveProperty('accessToken');
    expect(changes.map((c) => c.type)).toEqual(['signed_in']);
    // Signed in, without a token: the passkey alone.
    expect(await client.passkeys.register({ name: 'Laptop' })).toEqual({
      passkey: PASSKEY,
      state: null,
      recoveryCodes: null,
    });
  });

  it('an expired setup mfaToken is its refusal: no refresh of the session the client holds', async () => {
    const { api, client } = setup();
    await client.login(CREDENTIALS);
    api.routes.set('POST /api/v1/auth/passkeys/registration/options', () => problem(401, 'invalid_token'));
    expect((await caught(client.passkeys.register({ mfaToken: MFA_TOKEN }))).code).toBe('invalid_token');
    api.routes.set('POST /api/v1/auth/passkeys/registration/options', () => json(200, OPTIONS));
    api.routes.set('POST /api/v1/auth/passkeys', () => problem(401, 'invalid_token'));
    expect((await caught(client.passkeys.register({ mfaToken: MFA_TOKEN }))).code).toBe('invalid_token');
    expect(api.refreshCalls()).toHaveLength(0);
  });
});
