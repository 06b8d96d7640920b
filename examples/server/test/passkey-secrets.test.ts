/**
 * No mfaToken, recovery code or token of a passkey flow in a log line (at LOG_LEVEL=trace), an audit
 * event, /metrics or an error body: registration, a passwordless login, a refused login, the passkey as
 * a second factor (a wrong, then the right answer), re-authentication with a passkey, new recovery codes.
 */
import type { TokenResponseJson } from 'tenant-auth-koa/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SoftwareAuthenticator } from '../../../test-support/software-authenticator.js';
import { type ApiResponse, api, PASSWORD, uniqueEmail } from './helpers/http.js';
import type { MfaProblem } from './helpers/mfa.js';
import { startTestServer, type TestServer } from './helpers/test-server.js';

const APP = 'https://app.test';
type Options = { challenge: string } & Record<string, unknown>;

describe('passkey secrets', () => {
  let server: TestServer;
  let url: string;
  const errorBodies: string[] = [];
  const secrets = new Set<string>();

  beforeAll(async () => {
    server = await startTestServer({ LOG_LEVEL: 'trace', APP_URL: APP });
    url = server.baseUrl;
  });
  afterAll(() => server?.close());

  async function call<T>(path: string, options: Parameters<typeof api>[2] = {}): Promise<ApiResponse<T>> {
    const r = await api<T>(url, path, options);
    if (r.status >= 400) errorBodies.push(JSON.stringify(r.body));
    return r;
  }
  const tokensOf = (body: TokenResponseJson) => {
    secrets.add(body.accessToken);
    secrets.add(body.refreshToken);
  };
  const leaks = (where: string, texts: readonly string[]) =>
    texts.flatMap((text, i) =>
      [...secrets].filter((s) => text.includes(s)).map((s) => `${where}[${i}] holds ${s.slice(0, 6)}…`),
    );

  it('are in no log line, audit event, metric or error body', async () => {
    const email = uniqueEmail('pk-secrets');
    const authenticator = new SoftwareAuthenticator(APP);
    const reg = await call<TokenResponseJson>('/auth/register', { body: { email, password: PASSWORD } });
    tokensOf(reg.body);
    const creation = await call<Options>('/auth/passkeys/registration/options', {
      method: 'POST',
      token: reg.body.accessToken,
    });
    const credential = authenticator.register(creation.body as never);
    expect((await call('/auth/passkeys', { token: reg.body.accessToken, body: { credential } })).status).toBe(
      201,
    );

    const loginOptions = await call<Options>('/auth/passkeys/login/options', { method: 'POST' });
    const login = await call<TokenResponseJson>('/auth/passkeys/login', {
      body: { credential: authenticator.authenticate(loginOptions.body) },
    });
    expect(login.status).toBe(200);
    tokensOf(login.body);
    const stale = await call<Options>('/auth/passkeys/login/options', { method: 'POST' });
    const refused = authenticator.authenticate(stale.body, { noUserVerification: true });
    expect((await call('/auth/passkeys/login', { body: { credential: refused } })).status).toBe(401);

    const codes = await call<{ recoveryCodes: string[] }>('/auth/mfa/recovery-codes', {
      method: 'POST',
      token: login.body.accessToken,
    });
    for (const code of codes.body.recoveryCodes) secrets.add(code);

    const password = await api<MfaProblem>(url, '/auth/login', { body: { email, password: PASSWORD } });
    const mfaToken = password.body.mfaToken;
    secrets.add(mfaToken);
    const first = await call<Options>('/auth/mfa/passkey/options', { body: { mfaToken } });
    const wrong = authenticator.authenticate(first.body, { origin: 'https://evil.test' });
    expect(
      (await call('/auth/mfa/verify', { body: { mfaToken, method: 'passkey', credential: wrong } })).status,
    ).toBe(400);
    const second = await call<Options>('/auth/mfa/passkey/options', { body: { mfaToken } });
    const verified = await call<TokenResponseJson>('/auth/mfa/verify', {
      body: { mfaToken, method: 'passkey', credential: authenticator.authenticate(second.body) },
    });
    expect(verified.status).toBe(200);
    tokensOf(verified.body);
    const reauthOptions = await call<Options>('/auth/reauthenticate/options', {
      method: 'POST',
      token: verified.body.accessToken,
    });
    const reauth = await call<TokenResponseJson>('/auth/reauthenticate', {
      token: verified.body.accessToken,
      body: { method: 'passkey', credential: authenticator.authenticate(reauthOptions.body) },
    });
    expect(reauth.status).toBe(200);
    tokensOf(reauth.body);

    const audit = await api<{ events: { type: string }[] }>(url, '/tenants/me/audit-events?limit=200', {
      token: reauth.body.accessToken,
    });
    expect(audit.body.events.map((e) => e.type)).toEqual(
      expect.arrayContaining(['passkey_added', 'login_succeeded', 'mfa_challenge_failed', 'reauthenticated']),
    );
    const metrics = await (await fetch(`${url}/metrics`)).text();
    // The scan finds them where they belong, so an empty result means something.
    expect(leaks('probe', [JSON.stringify({ codes: codes.body, mfaToken })])).toHaveLength(
      codes.body.recoveryCodes.length + 1,
    );
    expect(server.logs.length).toBeGreaterThan(20);
    expect(errorBodies.length).toBeGreaterThanOrEqual(2);
    expect([
      ...leaks('log', server.logs),
      ...leaks('audit', [JSON.stringify(audit.body)]),
      ...leaks('metrics', [metrics]),
      ...leaks('error', errorBodies),
    ]).toEqual([]);
  });
});
