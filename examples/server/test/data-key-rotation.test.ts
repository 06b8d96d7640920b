import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from 'tenant-auth-core/testing';
import type { TokenResponseJson } from 'tenant-auth-koa/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_DIR } from './helpers/child-server.js';
import { startTxtDnsServer, type TxtDnsServer } from './helpers/dns-txt.js';
import { api, PASSWORD, uniqueEmail } from './helpers/http.js';
import { enrolTotp, passwordStep, totpCode } from './helpers/mfa.js';
import { startOpenIdProvider, type TestOpenIdProvider } from './helpers/oidc-provider.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from './helpers/postgres.js';
import { callback, REDIRECT_URI, ssoErrorCode, ssoTenant, startSso } from './helpers/sso.js';
import { startTestServer, TEST_SECRETS, type TestServer } from './helpers/test-server.js';

/*
 * Rotating ENCRYPTION_KEY (docs/http-api.md, "Configuration added in 1.3": ENCRYPTION_KEY_PREVIOUS), over
 * real HTTP on PGlite and PostgreSQL, with the re-seal command run as `pnpm rotate-data-key` runs it:
 * TOTP users enrolled under key A and an SSO connection (oidc-provider) saved under A still sign in with
 * B current and A previous, the command moves every value onto B, and then B alone opens everything. A
 * wrong previous key is a clear error that loses nothing.
 */

const backends = [{ name: 'pglite' }, ...(TEST_DATABASE_URL ? [{ name: 'postgres' }] : [])];
const newKey = () => randomBytes(32).toString('base64url');

/** `node --import tsx src/rotate-data-key.ts`, as `pnpm rotate-data-key` runs it, with `env` only. */
function rotateDataKey(
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/rotate-data-key.ts'], {
    cwd: SERVER_DIR,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe.each(backends)('rotating the data key on $name', ({ name }) => {
  const keyA = newKey();
  const keyB = newKey();
  const wrongKey = newKey();
  const clock = new ManualClock(Math.floor(Date.now() / 30_000) * 30_000 + 1000);
  let dir: string;
  let db: TestDatabase | undefined;
  let dns: TxtDnsServer;
  let op: TestOpenIdProvider;
  let server: TestServer | undefined;
  let url: string;
  /** The TOTP users: their email and base32 secret. */
  const totpUsers: { email: string; secret: string }[] = [];
  let ssoDomain: string;

  /** Where the data lives, for the server and the command alike. */
  const storage = () =>
    name === 'postgres'
      ? { DATA_DIR: dir, DATABASE_URL: db?.url ?? '' }
      : { DATA_DIR: dir, DATABASE_URL: '' };

  /** (Re)starts the server with these keys over the same data. */
  async function restart(keys: { ENCRYPTION_KEY: string; ENCRYPTION_KEY_PREVIOUS?: string }) {
    await server?.close();
    server = await startTestServer(
      { ...storage(), DNS_SERVERS: dns.address, OUTBOUND_ALLOW_LOOPBACK: 'true', ...keys },
      { clock },
    );
    url = server.baseUrl;
  }

  /** The command's environment: the same data, these keys. */
  const commandEnv = (keys: { ENCRYPTION_KEY: string; ENCRYPTION_KEY_PREVIOUS?: string }) => ({
    ...TEST_SECRETS,
    ...storage(),
    LOG_LEVEL: 'error',
    ...keys,
  });

  /** Password, then the TOTP code of now: the answer of `/auth/mfa/verify`. */
  async function signInWithTotp(user: { email: string; secret: string }) {
    const mfaToken = await passwordStep(url, user.email);
    return api<TokenResponseJson & { code?: string }>(url, '/auth/mfa/verify', {
      body: { mfaToken, method: 'totp', code: totpCode(user.secret, clock.now()) },
    });
  }

  /** A sign-in through oidc-provider of a new address in the connected domain (the secret goes to its token endpoint). */
  async function signInWithSso() {
    const sub = `sub-${randomBytes(4).toString('hex')}`;
    const email = `${sub}@${ssoDomain}`;
    op.accounts.set(sub, { email });
    const { authorizationUrl, stateCookie } = await startSso(url, email);
    return callback(url, await op.signIn(authorizationUrl, sub), stateCookie);
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ta-data-key-rotation-'));
    if (name === 'postgres') db = await createTestDatabase(TEST_DATABASE_URL as string);
    dns = await startTxtDnsServer();
    op = await startOpenIdProvider(REDIRECT_URI);
    await restart({ ENCRYPTION_KEY: keyA });
    for (let i = 0; i < 3; i++) {
      const email = uniqueEmail('rotation');
      const reg = await api<TokenResponseJson>(url, '/auth/register', {
        body: { email, password: PASSWORD },
      });
      expect(reg.status).toBe(201);
      totpUsers.push({ email, secret: (await enrolTotp(url, reg.body.accessToken, clock.now())).secret });
    }
    ssoDomain = (await ssoTenant(url, dns, op)).domain;
    const answer = await signInWithSso();
    expect(ssoErrorCode(answer), answer.location).toBeNull();
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    await db?.drop();
    await op?.close();
    await dns?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('with a wrong previous key: a clear error at sign-in and from the command, and nothing is lost', async () => {
    await restart({ ENCRYPTION_KEY: keyB, ENCRYPTION_KEY_PREVIOUS: wrongKey });
    clock.advance(30_000);
    const answer = await signInWithTotp(totpUsers[0] as { email: string; secret: string });
    expect(answer.status).toBe(500);
    expect(answer.body.code).toBe('internal_error');
    expect(server?.logs.join('\n')).toMatch(
      /a TOTP secret could not be opened; is its data key still configured/,
    );
    if (name === 'pglite') await server?.close();
    const run = await rotateDataKey(commandEnv({ ENCRYPTION_KEY: keyB, ENCRYPTION_KEY_PREVIOUS: wrongKey }));
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toContain('TOTP secrets: 0 re-sealed, 0 already current, 3 unopenable');
    expect(run.stdout).toContain('SSO client secrets: 0 re-sealed, 0 already current, 1 unopenable');
    expect(run.stdout).toMatch(
      /they name the data key\(s\) k[0-9a-f]{12}, which are not configured\. They were left as they are/,
    );
    expect(run.stdout).not.toContain(keyA);
    server = undefined;
  }, 120_000);

  it('with the old key as previous, everyone signs in; the command re-seals onto the new key; then the new key alone opens everything', async () => {
    await restart({ ENCRYPTION_KEY: keyB, ENCRYPTION_KEY_PREVIOUS: keyA });
    clock.advance(30_000);
    for (const user of totpUsers) expect((await signInWithTotp(user)).status, user.email).toBe(200);
    expect(ssoErrorCode(await signInWithSso())).toBeNull();
    // Enrolled after the rotation: sealed with B already.
    const email = uniqueEmail('rotation-after');
    const reg = await api<TokenResponseJson>(url, '/auth/register', { body: { email, password: PASSWORD } });
    totpUsers.push({ email, secret: (await enrolTotp(url, reg.body.accessToken, clock.now())).secret });

    // PostgreSQL: while the server serves. PGlite: one process at a time has the folder.
    if (name === 'pglite') await server?.close();
    const keys = { ENCRYPTION_KEY: keyB, ENCRYPTION_KEY_PREVIOUS: keyA };
    const run = await rotateDataKey(commandEnv(keys));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('TOTP secrets: 3 re-sealed, 1 already current, 0 unopenable');
    expect(run.stdout).toContain('SSO client secrets: 1 re-sealed, 0 already current, 0 unopenable');
    expect(run.stdout).toMatch(/^outbox payloads: \d+ re-sealed, \d+ already current, 0 unopenable$/m);
    const again = await rotateDataKey(commandEnv(keys));
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('TOTP secrets: 0 re-sealed, 4 already current, 0 unopenable');
    expect(again.stdout).toContain('SSO client secrets: 0 re-sealed, 1 already current, 0 unopenable');

    if (name === 'pglite') server = undefined;
    await restart({ ENCRYPTION_KEY: keyB });
    clock.advance(30_000);
    for (const user of totpUsers) expect((await signInWithTotp(user)).status, user.email).toBe(200);
    const sso = await signInWithSso();
    expect(sso.status).toBe(303);
    expect(ssoErrorCode(sso), sso.location).toBeNull();
  }, 180_000);
});
