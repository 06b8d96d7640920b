import { afterEach, describe, expect, it } from 'vitest';
import {
  createTenantAuthClient,
  isTenantAuthClientError,
  type SessionChange,
  type TenantAuthClient,
  TenantAuthClientError,
} from '../src/index.js';
import { FakeApi, FakeLocks, FakeTime, json, problem, settle, USER } from './fakes.js';

// The second-factor steps against a fake server for what the reference server never answers (malformed
// challenges, unknown factors); the real flows run against it in examples/server/test/client.test.ts.

const BASE = 'http://api.test/api/v1';
const CREDENTIALS = { email: USER.email, password: 'Correct-Horse-Battery-42' };
const MFA_TOKEN = 'mfa-token-1';

let clients: TenantAuthClient[] = [];
afterEach(() => {
  for (const c of clients) c.close();
  clients = [];
});

function setup(options: { mode?: 'bearer' | 'cookie'; locks?: boolean } = {}) {
  const time = new FakeTime();
  const api = new FakeApi(time);
  const changes: SessionChange[] = [];
  const client = createTenantAuthClient({
    baseUrl: BASE,
    mode: options.mode ?? 'bearer',
    fetch: api.fetch,
    clock: time,
    timers: time,
    autoRefresh: false,
    crossTab: options.locks ? { locks: new FakeLocks(), channel: null } : false,
    onSessionChange: (change) => changes.push(change),
  });
  clients.push(client);
  return { time, api, client, changes };
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

describe('signing in with a second factor', () => {
  it('answers mfa_required as a result with the known methods and the expiry, and signs in no one', async () => {
    const { time, api, client, changes } = setup();
    api.routes.set('POST /api/v1/auth/login', () =>
      problem(401, 'mfa_required', {
        mfaToken: MFA_TOKEN,
        methods: ['totp', 'carrier_pigeon', 'recovery_code'],
        expiresIn: 300,
      }),
    );
    const result = await client.login(CREDENTIALS);
    expect(result).toEqual({
      type: 'mfa_required',
      mfaToken: MFA_TOKEN,
      methods: ['totp', 'recovery_code'],
      expiresIn: 300,
      expiresAt: time.now() + 300_000,
    });
    expect(await client.getSession()).toBeNull();
    expect(changes).toEqual([]);
  });

  it('answers mfa_setup_required of a login or an invitation as a result', async () => {
    const { api, client } = setup();
    const setupRequired = () => problem(401, 'mfa_setup_required', { mfaToken: MFA_TOKEN, expiresIn: 300 });
    api.routes.set('POST /api/v1/auth/login', setupRequired);
    api.routes.set('POST /api/v1/auth/invitations/accept', setupRequired);
    expect(await client.login(CREDENTIALS)).toMatchObject({
      type: 'mfa_setup_required',
      mfaToken: MFA_TOKEN,
    });
    const accepted = await client.acceptInvitation({ token: 'invitation', password: CREDENTIALS.password });
    expect(accepted).toMatchObject({ type: 'mfa_setup_required', mfaToken: MFA_TOKEN, expiresIn: 300 });
  });

  it('refuses a challenge without its members, or with no factor it knows, as an http_error', async () => {
    const { api, client } = setup();
    for (const extra of [
      { methods: ['totp'], expiresIn: 300 },
      { mfaToken: '', methods: ['totp'], expiresIn: 300 },
      { mfaToken: MFA_TOKEN, methods: ['totp'], expiresIn: 0 },
      { mfaToken: MFA_TOKEN, methods: 'totp', expiresIn: 300 },
      { mfaToken: MFA_TOKEN, methods: ['carrier_pigeon'], expiresIn: 300 },
    ]) {
      api.routes.set('POST /api/v1/auth/login', () => problem(401, 'mfa_required', extra));
      const err = await caught(client.login(CREDENTIALS));
      expect(err, JSON.stringify(extra)).toMatchObject({ code: 'http_error', status: 401 });
    }
  });

  it('verifyMfa signs in with the answer of the challenge', async () => {
    const { api, client, changes } = setup();
    api.routes.set('POST /api/v1/auth/mfa/verify', () => api.signIn(200));
    const state = await client.verifyMfa({ mfaToken: MFA_TOKEN, method: 'totp', code: '123456' });
    expect(state.user).toEqual(USER);
    expect(api.calls.at(-1)?.body).toEqual({ mfaToken: MFA_TOKEN, method: 'totp', code: '123456' });
    expect(changes.map((c) => c.type)).toEqual(['signed_in']);
    expect(await client.getAccessToken()).toBe(api.access());
  });

  it('confirmTotp with an mfaToken signs in and returns the recovery codes; without one it keeps the session', async () => {
    const { api, client, changes } = setup();
    const codes = Array.from({ length: 10 }, (_, i) => `code${i}-abcde`);
    api.routes.set('POST /api/v1/auth/mfa/totp/confirm', (request) =>
      (request.body as { mfaToken?: string }).mfaToken
        ? api.signIn(200, { recoveryCodes: codes })
        : json(200, { recoveryCodes: null }),
    );
    const enrolled = await client.confirmTotp({ code: '123456', mfaToken: MFA_TOKEN });
    expect(enrolled.recoveryCodes).toEqual(codes);
    expect(enrolled.state?.user).toEqual(USER);
    expect(enrolled.state).not.toHaveProperty('accessToken');
    expect(changes.map((c) => c.type)).toEqual(['signed_in']);
    expect(await client.confirmTotp({ code: '654321' })).toEqual({ recoveryCodes: null, state: null });
  });

  it('an expired mfaToken of an enrolment is its refusal: no refresh of the session the client holds', async () => {
    const { api, client } = setup();
    await client.login(CREDENTIALS);
    const expired = () => problem(401, 'invalid_token');
    api.routes.set('POST /api/v1/auth/mfa/totp/setup', expired);
    api.routes.set('POST /api/v1/auth/mfa/totp/confirm', expired);
    expect((await caught(client.setupTotp({ mfaToken: MFA_TOKEN }))).code).toBe('invalid_token');
    expect((await caught(client.confirmTotp({ mfaToken: MFA_TOKEN, code: '123456' }))).code).toBe(
      'invalid_token',
    );
    expect(api.refreshCalls()).toHaveLength(0);
    expect(api.calls.filter((c) => c.path.startsWith('/api/v1/auth/mfa/'))).toHaveLength(2);
  });

  it('checks the answers a page acts on: a setup without its secret is an http_error', async () => {
    const { api, client } = setup();
    await client.login(CREDENTIALS);
    api.routes.set('POST /api/v1/auth/mfa/totp/setup', () => json(200, { otpauthUri: 'otpauth://totp/x' }));
    expect(await caught(client.setupTotp())).toMatchObject({ code: 'http_error', status: 200 });
    api.routes.set('POST /api/v1/auth/mfa/recovery-codes', () => json(200, { recoveryCodes: null }));
    expect(await caught(client.regenerateRecoveryCodes())).toMatchObject({ code: 'http_error' });
    api.routes.set('GET /api/v1/tenants/me/security', () => json(200, { requireMfa: 'yes' }));
    expect(await caught(client.getSecurityPolicy())).toMatchObject({ code: 'http_error' });
    // A whole user whose `mfa` is not what a page reads (without `mfa` at all, as the user of a 1.1 server).
    const me = { ...USER, createdAt: '2026-05-01T12:00:00.000Z' };
    const mfa = { totp: false, passkeys: 0, recoveryCodesRemaining: 0 };
    api.routes.set('GET /api/v1/users/me', () => json(200, { ...me, mfa }));
    expect(await client.getMe()).toEqual({ ...me, mfa });
    for (const wrong of [undefined, { ...mfa, totp: 'no' }, { ...mfa, recoveryCodesRemaining: -1 }]) {
      api.routes.set('GET /api/v1/users/me', () => json(200, { ...me, mfa: wrong }));
      expect(await caught(client.getMe()), JSON.stringify(wrong)).toMatchObject({ code: 'http_error' });
    }
  });
});

describe('recent authentication', () => {
  it('reauthenticate stores the new tokens of the same session and reports a refresh', async () => {
    const { api, client, changes } = setup();
    await client.login(CREDENTIALS);
    api.routes.set('POST /api/v1/auth/reauthenticate', () => api.signIn(200));
    const before = await client.getAccessToken();
    await client.reauthenticate({ password: CREDENTIALS.password });
    expect(await client.getAccessToken()).not.toBe(before);
    expect(await client.getAccessToken()).toBe(api.access());
    expect(changes.map((c) => c.type)).toEqual(['signed_in', 'refreshed']);
    // The rotated refresh token is the one a later refresh presents (the old one would be a replay).
    await client.refresh();
    expect(api.revoked).toBe(false);
  });

  it('reauthenticate waits for a refresh in flight, and a refresh asked meanwhile takes its tokens', async () => {
    const { api, client } = setup();
    await client.login(CREDENTIALS);
    api.routes.set('POST /api/v1/auth/reauthenticate', () => api.signIn(200));
    // Both rotate the refresh token: one after the other, or the second would present a replayed one.
    const release = api.holdNextRefresh();
    const refreshing = client.refresh();
    const reauthenticating = client.reauthenticate({ password: CREDENTIALS.password });
    await settle();
    expect(api.calls.map((c) => c.path).filter((p) => p !== '/api/v1/auth/login')).toEqual([
      '/api/v1/auth/refresh',
    ]);
    release();
    await Promise.all([refreshing, reauthenticating]);
    expect(api.calls.at(-1)?.path).toBe('/api/v1/auth/reauthenticate');
    expect(api.calls.at(-1)?.headers.authorization).toBe(`Bearer ${api.access(api.generation - 1)}`);
    // A refresh that was due before the re-authentication finds its new tokens: no request.
    const before = api.refreshCalls().length;
    await client.request('getMyTenant', {});
    expect(api.refreshCalls().length).toBe(before);
    expect(api.revoked).toBe(false);
    expect(await client.getAccessToken()).toBe(api.access());
  });

  it('a refresh asked while a re-authentication runs waits for it, and presents its refresh token', async () => {
    const { api, client } = setup();
    await client.login(CREDENTIALS);
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    api.routes.set('POST /api/v1/auth/reauthenticate', async () => {
      await answered;
      return api.signIn(200);
    });
    const reauthenticating = client.reauthenticate({ password: CREDENTIALS.password });
    await settle();
    const refreshing = client.refresh();
    await settle();
    expect(api.refreshCalls()).toHaveLength(0);
    answer();
    await Promise.all([reauthenticating, refreshing]);
    expect(api.refreshCalls().map((c) => c.body)).toEqual([
      { refreshToken: api.refresh(api.generation - 1) },
    ]);
    expect(api.revoked).toBe(false);
  });

  // A dialog may stay open longer than an access token lives (or the tab slept): the re-authentication
  // then meets an expired token. Its refresh must not wait for the re-authentication that waits for it.
  for (const [mode, locks] of [
    ['bearer', false],
    ['bearer', true],
    ['cookie', false],
    ['cookie', true],
  ] as const) {
    it(`reauthenticate with an expired access token refreshes it first, and finishes (${mode}, ${locks ? 'Web Locks' : 'no locks'})`, async () => {
      const { time, api, client } = setup({ mode, locks });
      await client.login(CREDENTIALS);
      api.routes.set('POST /api/v1/auth/reauthenticate', () => api.signIn(200));
      await time.advance((api.accessTtl + 60) * 1000);
      const outcome = await Promise.race([
        client.reauthenticate({ password: CREDENTIALS.password }).then(
          () => 'renewed',
          (err: unknown) => `refused: ${String(err)}`,
        ),
        settle(50).then(() => 'stuck'),
      ]);
      expect(outcome).toBe('renewed');
      expect(api.calls.map((c) => c.path).slice(-2)).toEqual([
        '/api/v1/auth/refresh',
        '/api/v1/auth/reauthenticate',
      ]);
      expect(api.revoked).toBe(false);
    });
  }

  it('a re-authentication refused with invalid_token throws it instead of waiting for itself', async () => {
    const { api, client } = setup({ locks: true });
    await client.login(CREDENTIALS);
    api.routes.set('POST /api/v1/auth/reauthenticate', () => problem(401, 'invalid_token'));
    const outcome = await Promise.race([
      caught(client.reauthenticate({ password: CREDENTIALS.password })).then((err) => err.code),
      settle(50).then(() => 'stuck'),
    ]);
    expect(outcome).toBe('invalid_token');
  });

  it('two re-authentications at once run one after the other, the second with the token of the first', async () => {
    const { api, client } = setup();
    await client.login(CREDENTIALS);
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    let first = true;
    api.routes.set('POST /api/v1/auth/reauthenticate', async () => {
      if (first) {
        first = false;
        await answered;
      }
      return api.signIn(200);
    });
    const one = client.reauthenticate({ password: CREDENTIALS.password });
    const two = client.reauthenticate({ password: CREDENTIALS.password });
    await settle();
    expect(api.calls.filter((c) => c.path === '/api/v1/auth/reauthenticate')).toHaveLength(1);
    answer();
    await Promise.all([one, two]);
    const [, second] = api.calls.filter((c) => c.path === '/api/v1/auth/reauthenticate');
    expect(second?.headers.authorization).toBe(`Bearer ${api.access(api.generation - 1)}`);
    // The tokens kept are the last ones the server gave: a refresh presents no rotated token.
    expect(await client.getAccessToken()).toBe(api.access());
    await client.refresh();
    expect(api.revoked).toBe(false);
  });

  it('withReauthentication prompts once after reauthentication_required, then runs the call again', async () => {
    const { api, client } = setup();
    await client.login(CREDENTIALS);
    let recent = false;
    api.routes.set('DELETE /api/v1/auth/mfa/totp', () =>
      recent ? new Response(null, { status: 204 }) : problem(403, 'reauthentication_required'),
    );
    api.routes.set('POST /api/v1/auth/reauthenticate', (request) => {
      if ((request.body as { password?: string }).password !== CREDENTIALS.password) {
        return problem(400, 'validation_failed', {
          errors: [{ field: 'password', code: 'incorrect', message: 'Incorrect.' }],
        });
      }
      recent = true;
      return api.signIn(200);
    });
    const prompts: string[] = [];
    await client.withReauthentication(
      () => client.disableTotp(),
      async ({ error, reauthenticate }) => {
        prompts.push(error.code);
        // A wrong password first: the prompt shows it and lets the user try again.
        const wrong = await caught(reauthenticate({ password: 'wrong' }));
        expect(wrong.errors[0]?.code).toBe('incorrect');
        await reauthenticate({ password: CREDENTIALS.password });
        return true;
      },
    );
    expect(prompts).toEqual(['reauthentication_required']);
    expect(api.calls.filter((c) => c.path === '/api/v1/auth/mfa/totp')).toHaveLength(2);
  });

  it('withReauthentication throws the refusal when the prompt gives up, and never prompts for other errors', async () => {
    const { api, client } = setup();
    await client.login(CREDENTIALS);
    api.routes.set('DELETE /api/v1/auth/mfa/totp', () => problem(403, 'reauthentication_required'));
    const refused = await caught(
      client.withReauthentication(
        () => client.disableTotp(),
        async () => false,
      ),
    );
    expect(isTenantAuthClientError(refused, 'reauthentication_required')).toBe(true);
    api.routes.set('DELETE /api/v1/auth/mfa/totp', () => problem(404, 'not_found'));
    let prompted = false;
    const missing = await caught(
      client.withReauthentication(
        () => client.disableTotp(),
        async () => {
          prompted = true;
          return true;
        },
      ),
    );
    expect(missing.code).toBe('not_found');
    expect(prompted).toBe(false);
  });
});
