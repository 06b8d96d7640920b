import { afterEach, describe, expect, it } from 'vitest';
import {
  createTenantAuthClient,
  isTenantAuthClientError,
  type ReauthenticationContext,
  type ReauthenticationPrompt,
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

function setup(
  options: {
    mode?: 'bearer' | 'cookie';
    locks?: boolean;
    onReauthenticationRequired?: ReauthenticationPrompt;
  } = {},
) {
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
    ...(options.onReauthenticationRequired
      ? { onReauthenticationRequired: options.onReauthenticationRequired }
      : {}),
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
    const result = await client.loginStep(CREDENTIALS);
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

  it("login() and acceptInvitation() (1.1's signatures) throw the step as the server's error", async () => {
    const { api, client, changes } = setup();
    const challenge = { mfaToken: MFA_TOKEN, methods: ['totp'], expiresIn: 300 };
    api.routes.set('POST /api/v1/auth/login', () => problem(401, 'mfa_required', challenge));
    api.routes.set('POST /api/v1/auth/invitations/accept', () =>
      problem(401, 'mfa_setup_required', { mfaToken: MFA_TOKEN, expiresIn: 300 }),
    );
    const err = await caught(client.login(CREDENTIALS));
    expect(err).toMatchObject({ code: 'mfa_required', status: 401, problem: challenge });
    const accept = await caught(
      client.acceptInvitation({ token: 'invitation', password: CREDENTIALS.password }),
    );
    expect(accept).toMatchObject({ code: 'mfa_setup_required', status: 401 });
    expect(await client.getSession()).toBeNull();
    expect(changes).toEqual([]);
  });

  it('answers mfa_setup_required of a login or an invitation as a result', async () => {
    const { api, client } = setup();
    const setupRequired = () => problem(401, 'mfa_setup_required', { mfaToken: MFA_TOKEN, expiresIn: 300 });
    api.routes.set('POST /api/v1/auth/login', setupRequired);
    api.routes.set('POST /api/v1/auth/invitations/accept', setupRequired);
    expect(await client.loginStep(CREDENTIALS)).toMatchObject({
      type: 'mfa_setup_required',
      mfaToken: MFA_TOKEN,
    });
    const accepted = await client.acceptInvitationStep({
      token: 'invitation',
      password: CREDENTIALS.password,
    });
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
      const err = await caught(client.loginStep(CREDENTIALS));
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

describe('onReauthenticationRequired: one prompt of the application for every refused call', () => {
  /** Two recent routes refused until a password re-authentication; a prompt the test resolves by hand. */
  function recentRoutes(api: FakeApi) {
    const state = { recent: false };
    const refuseUnlessRecent = () =>
      state.recent ? new Response(null, { status: 204 }) : problem(403, 'reauthentication_required');
    api.routes.set('DELETE /api/v1/auth/mfa/totp', refuseUnlessRecent);
    api.routes.set('DELETE /api/v1/auth/passkeys/pk_1', refuseUnlessRecent);
    api.routes.set('POST /api/v1/auth/reauthenticate', () => {
      state.recent = true;
      return api.signIn(200);
    });
    return state;
  }

  function heldPrompt() {
    const opened: ReauthenticationContext[] = [];
    let answer: (done: boolean) => void = () => {};
    const prompt: ReauthenticationPrompt = (context) => {
      opened.push(context);
      return new Promise<boolean>((resolve) => {
        answer = resolve;
      });
    };
    return { prompt, opened, answer: (done: boolean) => answer(done) };
  }

  it('opens one prompt for two calls refused at once, and runs both again after it', async () => {
    const held = heldPrompt();
    const { api, client } = setup({ onReauthenticationRequired: held.prompt });
    await client.login(CREDENTIALS);
    recentRoutes(api);
    const both = Promise.all([client.disableTotp(), client.passkeys.remove('pk_1')]);
    await settle();
    expect(held.opened).toHaveLength(1);
    expect(held.opened[0]?.error.code).toBe('reauthentication_required');
    await held.opened[0]?.reauthenticate({ password: CREDENTIALS.password });
    held.answer(true);
    await both;
    expect(held.opened).toHaveLength(1);
    expect(api.calls.filter((c) => c.path === '/api/v1/auth/mfa/totp')).toHaveLength(2);
    expect(api.calls.filter((c) => c.path === '/api/v1/auth/passkeys/pk_1')).toHaveLength(2);
  });

  it('throws the refusal to every waiting call when the user gives up, and asks again for the next call', async () => {
    const held = heldPrompt();
    const { api, client } = setup({ onReauthenticationRequired: held.prompt });
    await client.login(CREDENTIALS);
    recentRoutes(api);
    const both = Promise.allSettled([client.disableTotp(), client.passkeys.remove('pk_1')]);
    await settle();
    held.answer(false);
    const results = await both;
    for (const result of results) {
      expect(result.status).toBe('rejected');
      const reason = result.status === 'rejected' ? result.reason : undefined;
      expect(isTenantAuthClientError(reason, 'reauthentication_required')).toBe(true);
    }
    expect(held.opened).toHaveLength(1);
    // A given-up refusal is not asked again by withReauthentication's own prompt either.
    let second = false;
    const refused = caught(
      client.withReauthentication(
        () => client.disableTotp(),
        async () => {
          second = true;
          return true;
        },
      ),
    );
    await settle();
    held.answer(false);
    // The client's prompt opened for it (a new refusal), and its answer stands: no second prompt.
    expect(isTenantAuthClientError(await refused, 'reauthentication_required')).toBe(true);
    expect(second).toBe(false);
    expect(held.opened).toHaveLength(2);
  });

  it('runs a call again without asking when it was refused after a re-authentication it did not wait for', async () => {
    const { api, client } = setup();
    await client.login(CREDENTIALS);
    const state = recentRoutes(api);
    // The first call is refused and opens withReauthentication's prompt; the second was sent before the
    // re-authentication and is refused after it: the re-authentication since then answers it.
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    api.routes.set('DELETE /api/v1/auth/passkeys/pk_1', async () => {
      const refused = !state.recent;
      await gate;
      return refused ? problem(403, 'reauthentication_required') : new Response(null, { status: 204 });
    });
    let prompts = 0;
    const prompt: ReauthenticationPrompt = async ({ reauthenticate }) => {
      prompts += 1;
      await reauthenticate({ password: CREDENTIALS.password });
      return true;
    };
    const late = client.withReauthentication(() => client.passkeys.remove('pk_1'), prompt);
    await settle();
    await client.withReauthentication(() => client.disableTotp(), prompt);
    release();
    await late;
    expect(prompts).toBe(1);
    expect(api.calls.filter((c) => c.path === '/api/v1/auth/passkeys/pk_1')).toHaveLength(2);
  });

  it("answers the application's own route refused through client.fetch, and leaves other 403s alone", async () => {
    let prompts = 0;
    const { api, client } = setup({
      onReauthenticationRequired: async ({ reauthenticate }) => {
        prompts += 1;
        await reauthenticate({ password: CREDENTIALS.password });
        return true;
      },
    });
    await client.login(CREDENTIALS);
    const state = recentRoutes(api);
    api.routes.set('POST /app/transfer', () =>
      state.recent ? new Response('done', { status: 200 }) : problem(403, 'reauthentication_required'),
    );
    api.routes.set('GET /app/forbidden', () => problem(403, 'forbidden'));
    const response = await client.fetch('http://api.test/app/transfer', { method: 'POST' });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('done');
    expect((await client.fetch('http://api.test/app/forbidden')).status).toBe(403);
    expect(prompts).toBe(1);
  });

  it('refuses a prompt that is not a function when the client is made', () => {
    expect(() =>
      createTenantAuthClient({
        baseUrl: BASE,
        mode: 'bearer',
        onReauthenticationRequired: 'yes' as unknown as ReauthenticationPrompt,
      }),
    ).toThrow(/onReauthenticationRequired must be a function/);
  });
});
