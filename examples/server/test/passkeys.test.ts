import { ManualClock } from 'tenant-auth-core/testing';
import type { TokenResponseJson } from 'tenant-auth-koa/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Misbehaviour, SoftwareAuthenticator } from '../../../test-support/software-authenticator.js';
import { api, expectProblem, PASSWORD, uniqueEmail } from './helpers/http.js';
import { claimsOf, type MfaProblem, passwordStep } from './helpers/mfa.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from './helpers/postgres.js';
import { TestInbox } from './helpers/smtp.js';
import { startTestServer, type TestServer } from './helpers/test-server.js';

/*
 * API 1.2, "Passkeys (WebAuthn)", over real HTTP on PGlite and PostgreSQL, against a software
 * authenticator (P-256, "none" attestation): registration, passwordless login, the passkey as a second
 * factor, enrolment with a setup mfaToken, re-authentication, listing and removal; and what must be
 * refused: no user verification, another RP ID, another origin, a reused challenge, an unknown
 * credential, a counter going backwards, a passkey of another tenant's user.
 */

const APP = 'https://app.test';
const backends = [{ name: 'pglite' }, ...(TEST_DATABASE_URL ? [{ name: 'postgres' }] : [])];

type Options = { challenge: string; allowCredentials?: { id: string }[] } & Record<string, unknown>;
type PasskeyJson = { id: string; name: string; createdAt: string; lastUsedAt: string | null };

describe.each(backends)('passkeys on $name', ({ name }) => {
  let server: TestServer;
  let db: TestDatabase | undefined;
  let inbox: TestInbox;
  let url: string;
  const clock = new ManualClock(Date.now());

  beforeAll(async () => {
    inbox = await new TestInbox().start();
    if (name === 'postgres') db = await createTestDatabase(TEST_DATABASE_URL as string);
    server = await startTestServer(
      { DATABASE_URL: db?.url ?? 'memory:', SMTP_URL: inbox.url, APP_URL: APP },
      { clock },
    );
    url = server.baseUrl;
  });
  afterAll(async () => {
    await server?.close();
    await db?.drop();
    await inbox?.stop();
  });

  /** A new owner (registration: a recent, password-only session) and an authenticator of their own. */
  async function owner() {
    const email = uniqueEmail('pk');
    const reg = await api<TokenResponseJson>(url, '/auth/register', { body: { email, password: PASSWORD } });
    expect(reg.status).toBe(201);
    return { email, token: reg.body.accessToken, authenticator: new SoftwareAuthenticator(APP) };
  }

  /** Registers a passkey with `token`'s session; returns the answer. */
  async function addPasskey(
    token: string,
    authenticator: SoftwareAuthenticator,
    how: Misbehaviour = {},
    extra: Record<string, unknown> = {},
  ) {
    const options = await api<Options>(url, '/auth/passkeys/registration/options', { method: 'POST', token });
    expect(options.status).toBe(200);
    const credential = authenticator.register(options.body as never, how);
    return api<{ passkey: PasskeyJson } & Record<string, unknown>>(url, '/auth/passkeys', {
      token,
      body: { credential, name: 'Laptop', ...extra },
    });
  }

  /** Login options, then a login with what the authenticator answers. */
  async function passkeyLogin(authenticator: SoftwareAuthenticator, how: Misbehaviour = {}) {
    const options = await api<Options>(url, '/auth/passkeys/login/options', { method: 'POST' });
    expect(options.status).toBe(200);
    const credential = authenticator.authenticate(options.body, how);
    const answer = await api<TokenResponseJson>(url, '/auth/passkeys/login', { body: { credential } });
    return { options: options.body, credential, answer };
  }

  async function auditTypes(token: string): Promise<string[]> {
    const r = await api<{ events: { type: string }[] }>(url, '/tenants/me/audit-events?limit=50', { token });
    return r.body.events.map((e) => e.type);
  }

  it('registers a passkey and signs in with it, without a password (amr hwk, mfa)', async () => {
    const ada = await owner();
    const options = await api<Options>(url, '/auth/passkeys/registration/options', {
      method: 'POST',
      token: ada.token,
    });
    expect(options.body).toMatchObject({
      rp: { id: 'app.test', name: 'tenant-auth' },
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      excludeCredentials: [],
    });
    const added = await addPasskey(ada.token, ada.authenticator);
    expect(added.status).toBe(201);
    expect(added.body.passkey).toMatchObject({ name: 'Laptop', lastUsedAt: null });
    expect(Object.keys(added.body)).toEqual(['passkey']);

    const me = await api<{ mfa: Record<string, unknown> }>(url, '/users/me', { token: ada.token });
    expect(me.body.mfa).toEqual({ totp: false, passkeys: 1, recoveryCodesRemaining: 0 });

    const { options: loginOptions, answer } = await passkeyLogin(ada.authenticator);
    expect(loginOptions.allowCredentials).toBeUndefined();
    expect(answer.status).toBe(200);
    expect(answer.body.user.email).toBe(ada.email);
    expect(answer.body.session.amr).toEqual(['hwk', 'mfa']);
    expect(claimsOf(answer.body.accessToken).amr).toEqual(['hwk', 'mfa']);

    const list = await api<{ passkeys: PasskeyJson[] }>(url, '/auth/passkeys', { token: ada.token });
    expect(list.body.passkeys).toHaveLength(1);
    expect(list.body.passkeys[0]?.lastUsedAt).not.toBeNull();
    // Registering again excludes the passkey the user has.
    const again = await api<Options>(url, '/auth/passkeys/registration/options', {
      method: 'POST',
      token: answer.body.accessToken,
    });
    expect(again.body.excludeCredentials).toEqual([
      {
        id: added.body.passkey.id === '' ? '' : expect.any(String),
        type: 'public-key',
        transports: ['internal', 'hybrid'],
      },
    ]);
    expect(await auditTypes(ada.token)).toEqual(expect.arrayContaining(['passkey_added', 'login_succeeded']));
  });

  it('refuses a registration without user verification, for another RP ID or from another origin', async () => {
    const ada = await owner();
    for (const how of [
      { noUserVerification: true },
      { rpId: 'evil.test' },
      { origin: 'https://evil.test' },
    ] satisfies Misbehaviour[]) {
      const r = await addPasskey(ada.token, ada.authenticator, how);
      expectProblem(r, 400, 'validation_failed');
      expect(r.body).toMatchObject({ errors: [{ field: 'credential', code: 'invalid_credential' }] });
    }
    const me = await api<{ mfa: { passkeys: number } }>(url, '/users/me', { token: ada.token });
    expect(me.body.mfa.passkeys).toBe(0);
  });

  it('answers one 401 for every bad login: no user verification, RP ID, origin, reused challenge, unknown credential', async () => {
    const ada = await owner();
    expect((await addPasskey(ada.token, ada.authenticator)).status).toBe(201);
    for (const how of [
      { noUserVerification: true },
      { rpId: 'evil.test' },
      { origin: 'https://evil.test' },
    ] satisfies Misbehaviour[]) {
      expectProblem((await passkeyLogin(ada.authenticator, how)).answer, 401, 'invalid_credentials');
    }
    // A challenge is used once: the same response again is refused.
    const { credential, answer } = await passkeyLogin(ada.authenticator);
    expect(answer.status).toBe(200);
    const replay = await api(url, '/auth/passkeys/login', { body: { credential } });
    expectProblem(replay, 401, 'invalid_credentials');
    // A credential the server never registered (a key of another authenticator, same RP).
    const stranger = new SoftwareAuthenticator(APP);
    stranger.register({ challenge: 'x', rp: { id: 'app.test', name: 'x' }, user: { id: 'eA', name: 'x' } });
    expectProblem((await passkeyLogin(stranger)).answer, 401, 'invalid_credentials');
    // A challenge that expired (5 minutes).
    const options = await api<Options>(url, '/auth/passkeys/login/options', { method: 'POST' });
    clock.advance(301_000);
    const late = ada.authenticator.authenticate(options.body);
    expectProblem(
      await api(url, '/auth/passkeys/login', { body: { credential: late } }),
      401,
      'invalid_credentials',
    );
  });

  it('refuses a counter that goes backwards, and writes passkey_counter_regressed', async () => {
    const ada = await owner();
    expect((await addPasskey(ada.token, ada.authenticator)).status).toBe(201);
    expect((await passkeyLogin(ada.authenticator, { counter: 5 })).answer.status).toBe(200);
    expectProblem((await passkeyLogin(ada.authenticator, { counter: 3 })).answer, 401, 'invalid_credentials');
    expectProblem((await passkeyLogin(ada.authenticator, { counter: 5 })).answer, 401, 'invalid_credentials');
    expect((await passkeyLogin(ada.authenticator, { counter: 6 })).answer.status).toBe(200);
    expect(await auditTypes(ada.token)).toContain('passkey_counter_regressed');
  });

  it('is a second factor after the password (amr pwd, hwk, mfa), only with the passkeys of that user', async () => {
    const ada = await owner();
    const bob = await owner();
    expect((await addPasskey(ada.token, ada.authenticator)).status).toBe(201);
    expect((await addPasskey(bob.token, bob.authenticator)).status).toBe(201);
    const login = await api<MfaProblem>(url, '/auth/login', {
      body: { email: ada.email, password: PASSWORD },
    });
    expectProblem(login, 401, 'mfa_required');
    expect(login.body.methods).toEqual(['passkey']);
    const mfaToken = login.body.mfaToken;
    const options = await api<Options>(url, '/auth/mfa/passkey/options', { body: { mfaToken } });
    expect(options.status).toBe(200);
    expect(options.body.allowCredentials).toHaveLength(1);
    // Another tenant's user answers with their own passkey: refused, and counted on the challenge.
    const bobs = bob.authenticator.authenticate({ ...options.body, allowCredentials: undefined });
    const wrong = await api(url, '/auth/mfa/verify', {
      body: { mfaToken, method: 'passkey', credential: bobs },
    });
    expectProblem(wrong, 400, 'validation_failed');
    expect(wrong.body).toMatchObject({ errors: [{ field: 'credential', code: 'invalid_credential' }] });
    const fresh = await api<Options>(url, '/auth/mfa/passkey/options', { body: { mfaToken } });
    const credential = ada.authenticator.authenticate(fresh.body);
    const verified = await api<TokenResponseJson>(url, '/auth/mfa/verify', {
      body: { mfaToken, method: 'passkey', credential },
    });
    expect(verified.status).toBe(200);
    expect(verified.body.session.amr).toEqual(['pwd', 'hwk', 'mfa']);
    expectProblem(
      await api(url, '/auth/mfa/verify', { body: { mfaToken, method: 'passkey', credential } }),
      401,
      'invalid_token',
    );
    // A passkey of another tenant cannot be removed by this user.
    const bobsList = await api<{ passkeys: PasskeyJson[] }>(url, '/auth/passkeys', { token: bob.token });
    const bobsId = bobsList.body.passkeys[0]?.id as string;
    expectProblem(
      await api(url, `/auth/passkeys/${bobsId}`, { method: 'DELETE', token: verified.body.accessToken }),
      404,
      'not_found',
    );
  });

  it('re-authenticates with a passkey alone, then removes it (recovery codes go with the last factor)', async () => {
    const ada = await owner();
    expect((await addPasskey(ada.token, ada.authenticator)).status).toBe(201);
    // The registration session has no mfa: not recent enough now that Ada has a factor.
    const list = await api<{ passkeys: PasskeyJson[] }>(url, '/auth/passkeys', { token: ada.token });
    const id = list.body.passkeys[0]?.id as string;
    expectProblem(
      await api(url, `/auth/passkeys/${id}`, { method: 'DELETE', token: ada.token }),
      403,
      'reauthentication_required',
    );
    const options = await api<Options>(url, '/auth/reauthenticate/options', {
      method: 'POST',
      token: ada.token,
    });
    expect(options.body.allowCredentials).toHaveLength(1);
    const reauth = await api<TokenResponseJson>(url, '/auth/reauthenticate', {
      token: ada.token,
      body: { method: 'passkey', credential: ada.authenticator.authenticate(options.body) },
    });
    expect(reauth.status).toBe(200);
    expect(reauth.body.session.amr).toEqual(['hwk', 'mfa']);
    const token = reauth.body.accessToken;
    const codes = await api<{ recoveryCodes: string[] }>(url, '/auth/mfa/recovery-codes', {
      method: 'POST',
      token,
    });
    expect(codes.body.recoveryCodes).toHaveLength(10);
    expect((await api(url, `/auth/passkeys/${id}`, { method: 'DELETE', token })).status).toBe(204);
    const me = await api<{ mfa: Record<string, unknown> }>(url, '/users/me', { token });
    expect(me.body.mfa).toEqual({ totp: false, passkeys: 0, recoveryCodesRemaining: 0 });
    expect(await auditTypes(token)).toEqual(expect.arrayContaining(['passkey_removed', 'reauthenticated']));
    expectProblem((await passkeyLogin(ada.authenticator)).answer, 401, 'invalid_credentials');
  });

  it('enrols a passkey with the setup mfaToken of a tenant that requires a factor, and keeps the last one', async () => {
    // Inviting needs a verified address: the owner registers and follows the link.
    const email = uniqueEmail('boss');
    let reg: TokenResponseJson | undefined;
    const verifyToken = await inbox.tokenFrom(email, '/verify-email', async () => {
      reg = (await api<TokenResponseJson>(url, '/auth/register', { body: { email, password: PASSWORD } }))
        .body;
    });
    const boss = {
      email,
      token: (reg as TokenResponseJson).accessToken,
      authenticator: new SoftwareAuthenticator(APP),
    };
    expect((await api(url, '/auth/email/verify', { body: { token: verifyToken } })).status).toBe(204);
    expect((await addPasskey(boss.token, boss.authenticator)).status).toBe(201);
    const { answer } = await passkeyLogin(boss.authenticator);
    const strong = answer.body.accessToken;
    const policy = await api(url, '/tenants/me/security', {
      method: 'PATCH',
      token: strong,
      body: { requireMfa: true },
    });
    expect(policy.status).toBe(200);
    const list = await api<{ passkeys: PasskeyJson[] }>(url, '/auth/passkeys', { token: strong });
    expectProblem(
      await api(url, `/auth/passkeys/${list.body.passkeys[0]?.id}`, { method: 'DELETE', token: strong }),
      409,
      'mfa_required_by_tenant',
    );

    const memberEmail = uniqueEmail('member');
    const invitationToken = await inbox.tokenFrom(memberEmail, '/accept-invitation', () =>
      api(url, '/tenants/me/invitations', { token: strong, body: { email: memberEmail, role: 'member' } }),
    );
    const joined = await api<MfaProblem>(url, '/auth/invitations/accept', {
      body: { token: invitationToken, password: PASSWORD },
    });
    expectProblem(joined, 401, 'mfa_setup_required');
    const mfaToken = joined.body.mfaToken;
    const member = new SoftwareAuthenticator(APP);
    const options = await api<Options>(url, '/auth/passkeys/registration/options', { body: { mfaToken } });
    expect(options.status).toBe(200);
    const enrolled = await api<TokenResponseJson & { passkey: PasskeyJson; recoveryCodes: string[] }>(
      url,
      '/auth/passkeys',
      { body: { mfaToken, credential: member.register(options.body as never), name: 'Phone' } },
    );
    expect(enrolled.status).toBe(201);
    expect(enrolled.body.passkey.name).toBe('Phone');
    expect(enrolled.body.recoveryCodes).toHaveLength(10);
    expect(enrolled.body.session.amr).toEqual(['pwd', 'hwk', 'mfa']);
    // The setup token is used up.
    expectProblem(
      await api(url, '/auth/passkeys/registration/options', { body: { mfaToken } }),
      401,
      'invalid_token',
    );
    expect(await passwordStep(url, memberEmail)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});

describe('the passkey relying party at start-up', () => {
  it('refuses an RP ID that is not a registrable suffix of an origin, naming WEBAUTHN_RP_ID', async () => {
    await expect(
      startTestServer({ WEBAUTHN_RP_ID: 'example.com', WEBAUTHN_ORIGINS: 'https://app.example.org' }),
    ).rejects.toThrow(/WEBAUTHN_RP_ID/);
    await expect(
      startTestServer({ WEBAUTHN_RP_ID: 'example.com', WEBAUTHN_ORIGINS: 'https://badexample.com' }),
    ).rejects.toThrow(/WEBAUTHN_RP_ID/);
    await expect(startTestServer({ WEBAUTHN_ORIGINS: 'http://app.example.com' })).rejects.toThrow(
      /WEBAUTHN_ORIGINS/,
    );
  });

  it('derives the relying party from APP_URL (localhost works in development)', async () => {
    const server = await startTestServer({ APP_URL: 'http://localhost:5173' });
    try {
      const options = await api<Options>(server.baseUrl, '/auth/passkeys/login/options', { method: 'POST' });
      expect(options.body.rpId).toBe('localhost');
    } finally {
      await server.close();
    }
  });
});
