/**
 * The server's log holds no secret, even at the chattiest level.
 *
 * Runs every flow of the contract (docs/http-api.md) against the assembled server with LOG_LEVEL=trace:
 * registration, a wrong then a right login, refresh (body, cookie and header), a refresh replayed after
 * the grace period, sessions listed and revoked, a 401, a CSRF refusal, a logout, and a few requests that
 * make the server log an error or a warning (an unexpected failure is where a careless logger dumps the
 * request). Then it scans every captured log line for:
 * - every password sent (right and wrong ones),
 * - every access and refresh token issued (whole, and the signature part alone),
 * - every bcrypt hash stored (`tenant_auth_user.password_hash`, and any `$2b$…` at all),
 * - every refresh hash stored (`tenant_auth_session.refresh_hash` and `previous_refresh_hash`), and the
 *   hash of every refresh token issued (rotated-away ones are no longer in the table).
 * The scanner is shared with the fuzzer (helpers/secret-scan.ts), which checks its own log the same way.
 */
import { ManualClock } from 'tenant-auth-core/testing';
import type { RegisterResponseJson, TokenResponseJson } from 'tenant-auth-koa/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResponse, api, setCookies, uniqueEmail } from './helpers/http.js';
import { closeRawConnections, rawRequest } from './helpers/raw-http.js';
import { describeLeaks, SecretSet, storedSecrets } from './helpers/secret-scan.js';
import { startTestServer, type TestServer } from './helpers/test-server.js';

type TokenBody = TokenResponseJson & Partial<Pick<RegisterResponseJson, 'tenant'>>;

/** Distinctive, so that finding one in the log cannot be a coincidence. */
const PASSWORD = 'Log-Secret-Pass-7361!';
const WRONG_PASSWORD = 'Wrong-Guess-Pass-9052!';
const NEW_USER_PASSWORD = 'Second-User-Pass-4417?';
const ALLOWED_ORIGIN = 'http://localhost:5173';

describe('the log at LOG_LEVEL=trace', () => {
  let server: TestServer;
  const clock = new ManualClock(Date.now());
  const secrets = new SecretSet();
  const tokens: string[] = [];
  const apiKeySecrets: string[] = [];
  let url: string;

  beforeAll(async () => {
    // Mail goes to the discard port, where nobody answers: every delivery fails and logs why, at warn,
    // and that line must hold nothing secret either (in development without SMTP_URL the log is the
    // mail transport, links included, by design).
    server = await startTestServer({ LOG_LEVEL: 'trace', SMTP_URL: 'smtp://127.0.0.1:9' }, { clock });
    url = server.baseUrl;
  });
  afterAll(async () => {
    closeRawConnections();
    await server?.close();
  });

  /** Records the tokens of a token response (body and cookies) as secrets. */
  function keep(r: ApiResponse<TokenBody>): ApiResponse<TokenBody> {
    for (const t of [r.body.accessToken, r.body.refreshToken]) {
      if (typeof t === 'string') tokens.push(t);
    }
    for (const c of Object.values(setCookies(r.res))) if (c.value) tokens.push(c.value);
    return r;
  }

  it('holds no password, token, bcrypt hash or refresh hash after every flow of the contract', async () => {
    const email = uniqueEmail('logs');
    for (const p of [PASSWORD, WRONG_PASSWORD, NEW_USER_PASSWORD]) secrets.addPassword(p);

    // Registration, and a registration refused (email in use) that still carries a password.
    const reg = keep(await api<TokenBody>(url, '/auth/register', { body: { email, password: PASSWORD } }));
    expect(reg.status).toBe(201);
    expect((await api(url, '/auth/register', { body: { email, password: NEW_USER_PASSWORD } })).status).toBe(
      400,
    );
    const other = keep(
      await api<TokenBody>(url, '/auth/register', {
        body: { email: uniqueEmail('logs-other'), password: NEW_USER_PASSWORD, tenantName: 'Other Tenant' },
      }),
    );
    expect(other.status).toBe(201);

    // Login: a wrong password, then the right one.
    expect((await api(url, '/auth/login', { body: { email, password: WRONG_PASSWORD } })).status).toBe(401);
    const login = keep(await api<TokenBody>(url, '/auth/login', { body: { email, password: PASSWORD } }));
    expect(login.status).toBe(200);

    // Refresh through the body, the cookie (with an allowed origin) and the Authorization header.
    const viaBody = keep(
      await api<TokenBody>(url, '/auth/refresh', { body: { refreshToken: login.body.refreshToken } }),
    );
    expect(viaBody.status).toBe(200);
    const viaCookie = keep(
      await api<TokenBody>(url, '/auth/refresh', {
        body: {},
        headers: { cookie: `refresh_token=${viaBody.body.refreshToken}`, origin: ALLOWED_ORIGIN },
      }),
    );
    expect(viaCookie.status).toBe(200);
    const viaHeader = keep(
      await api<TokenBody>(url, '/auth/refresh', { body: {}, token: viaCookie.body.refreshToken }),
    );
    expect(viaHeader.status).toBe(200);

    // Within the grace period a reused token gets the same child; after it, a replay revokes the session.
    const reissued = keep(
      await api<TokenBody>(url, '/auth/refresh', { body: { refreshToken: viaCookie.body.refreshToken } }),
    );
    expect(reissued.status).toBe(200);
    clock.advance(11_000);
    const replay = await api(url, '/auth/refresh', { body: { refreshToken: login.body.refreshToken } });
    expect(replay.status).toBe(401);
    expect(server.logs.join('\n')).toContain('"event":"replay_detected"');

    // Sessions: list, revoke one, revoke all but the current one.
    const access = reg.body.accessToken;
    const second = keep(await api<TokenBody>(url, '/auth/login', { body: { email, password: PASSWORD } }));
    expect((await api(url, '/sessions', { token: access })).status).toBe(200);
    expect(
      (await api(url, `/sessions/${second.body.session.id}`, { method: 'DELETE', token: access })).status,
    ).toBe(204);
    expect((await api(url, '/sessions?except=current', { method: 'DELETE', token: access })).status).toBe(
      200,
    );
    expect((await api(url, '/tenants/me', { token: access })).status).toBe(200);
    expect((await api(url, `/tenants/${other.body.user.tenantId}`, { token: access })).status).toBe(404);

    // API keys (1.2): created (the mail of verification goes nowhere here: the address is marked verified
    // in the database), used where keys are welcome, refused elsewhere, sent in a cookie, revoked, reused.
    await server.database.orm.em
      .fork()
      .getConnection()
      .execute('update tenant_auth_user set email_verified = true where email = ?', [email]);
    const created = await api<{ apiKey: { id: string }; secret: string }>(url, '/tenants/me/api-keys', {
      token: access,
      body: { name: 'log test', role: 'admin' },
    });
    expect(created.status).toBe(201);
    apiKeySecrets.push(created.body.secret);
    const key = created.body.secret;
    expect((await api(url, '/tenants/me/members', { token: key })).status).toBe(200);
    expect((await api(url, '/sessions', { token: key })).status).toBe(403);
    expect((await api(url, '/auth/refresh', { body: {}, token: key })).status).toBe(403);
    expect((await api(url, '/tenants/me', { headers: { cookie: `access_token=${key}` } })).status).toBe(401);
    expect(
      (await api(url, `/tenants/me/api-keys/${created.body.apiKey.id}`, { method: 'DELETE', token: access }))
        .status,
    ).toBe(204);
    expect((await api(url, '/tenants/me', { token: key })).status).toBe(401);
    expect((await api(url, '/tenants/me', { token: `${key.slice(0, -1)}x` })).status).toBe(401);

    // A 401: a tampered token, a refresh token where an access token is required, and a token in the query.
    expect((await api(url, '/health', { token: `${access.slice(0, -3)}abc` })).status).toBe(401);
    expect((await api(url, '/sessions', { token: reg.body.refreshToken })).status).toBe(401);
    expect((await api(url, `/tenants/me?access_token=${access}`)).status).toBe(401);

    // A CSRF refusal: a cookie-authenticated unsafe request from a foreign origin.
    const csrf = await api(url, '/sessions', {
      method: 'DELETE',
      headers: { cookie: `access_token=${access}`, origin: 'https://evil.example' },
    });
    expect(csrf.status).toBe(403);

    // Requests the server answers with an error or a warning in its log, carrying every kind of secret
    // (a password in the body, a token in the header and in a cookie).
    const loud = [
      rawRequest(url, {
        method: 'POST',
        path: '/api/v1/auth/login',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${access}`,
          cookie: `refresh_token=${other.body.refreshToken}`,
        },
        body: Buffer.from(JSON.stringify({ email: `${email}\u0000`, password: PASSWORD })),
      }),
      rawRequest(url, {
        method: 'POST',
        path: '/api/v1/auth/login',
        headers: {
          'content-type': 'application/json',
          'content-encoding': 'gzip',
          authorization: `Bearer ${access}`,
        },
        body: Buffer.from(JSON.stringify({ email, password: PASSWORD })),
      }),
      rawRequest(url, {
        method: 'PROPFIND',
        path: '/api/v1/sessions',
        headers: { authorization: `Bearer ${access}`, cookie: `access_token=${access}` },
      }),
    ];
    for (const r of await Promise.all(loud)) expect(r.status).toBeGreaterThanOrEqual(400);

    // Logout: with the access token, and with a refresh token through the cookie.
    expect((await api(url, '/auth/logout', { method: 'POST', token: access })).status).toBe(204);
    const cookieLogout = await api(url, '/auth/logout', {
      method: 'POST',
      headers: { cookie: `refresh_token=${other.body.refreshToken}`, origin: ALLOWED_ORIGIN },
    });
    expect(cookieLogout.status).toBe(204);

    for (const t of tokens) secrets.addToken(t);
    for (const k of apiKeySecrets) secrets.addApiKey(k);
    const stored = await storedSecrets(server.database.orm);
    expect(stored.apiKeyHashes).toHaveLength(1);
    for (const h of stored.apiKeyHashes) secrets.addApiKeyHash(h);
    expect(stored.passwordHashes.length).toBeGreaterThanOrEqual(2);
    expect(stored.refreshHashes.length).toBeGreaterThanOrEqual(3);
    for (const h of stored.passwordHashes) secrets.addBcryptHash(h);
    for (const h of stored.refreshHashes) secrets.addRefreshHash(h);

    const lines = server.logs;
    // The scan is only worth something if the log is chatty: a line per request and per auth event.
    expect(lines.length).toBeGreaterThan(30);
    // Warnings carry error details: a replay, undeliverable mail.
    expect(lines.some((l) => l.includes('"level":"warn"') && l.includes('email delivery failed'))).toBe(true);
    const leaks = secrets.scanLines(lines);
    expect(leaks, describeLeaks(leaks, lines)).toEqual([]);
  });

  it('the scanner finds each kind of secret it is asked about (so a clean scan means something)', async () => {
    const stored = await storedSecrets(server.database.orm);
    const hash = stored.passwordHashes[0] ?? '';
    const refreshHash = stored.refreshHashes[0] ?? '';
    const token = tokens[0] ?? '';
    const apiKey = apiKeySecrets[0] ?? '';
    const apiKeyHash = stored.apiKeyHashes[0] ?? '';
    const lines = [
      JSON.stringify({ msg: 'x', body: { password: PASSWORD } }),
      `{"authorization":"Bearer ${token}"}`,
      `{"sig":"${token.split('.')[2]}"}`,
      `{"hash":"${hash}"}`,
      `{"hash":"${hash.slice(-53)}"}`,
      `{"h":"${refreshHash}"}`,
      '{"h":"$2b$10$abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0"}',
      `{"authorization":"Bearer ${apiKey}"}`,
      `{"body":"${apiKey.slice(4)}"}`,
      `{"h":"${apiKeyHash}"}`,
    ];
    const kinds = secrets.scanLines(lines).map((l) => `${l.index}:${l.kind}`);
    expect(kinds).toEqual(
      expect.arrayContaining([
        '0:password',
        '1:token',
        '2:token-signature',
        '3:bcrypt-hash',
        '4:bcrypt-hash',
        '5:refresh-hash',
        '6:bcrypt-hash',
        '7:api-key',
        '8:api-key',
        '9:api-key-hash',
      ]),
    );
  });
});
