import { ManualClock } from 'tenant-auth-core/testing';
import type { TokenResponseJson } from 'tenant-auth-koa/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, expectProblem, PASSWORD, uniqueEmail } from './helpers/http.js';
import { enrolTotp, passwordStep, totpCode } from './helpers/mfa.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from './helpers/postgres.js';
import { TestInbox } from './helpers/smtp.js';
import { startTestServer, type TestServer } from './helpers/test-server.js';

/*
 * docs/http-api.md, "Rules that change in 1.3": a second factor cannot be guessed for long. Ten wrong
 * codes from ten networks lock the account's codes (429 with Retry-After) in the database, the first
 * lock is told to the user by email, the password still answers mfa_required, and the lock ends.
 */

const backends = [{ name: 'pglite' }, ...(TEST_DATABASE_URL ? [{ name: 'postgres' }] : [])];

describe.each(backends)('the second-factor lock on $name', ({ name }) => {
  let server: TestServer;
  let db: TestDatabase | undefined;
  let inbox: TestInbox;
  let url: string;
  const clock = new ManualClock(Math.floor(Date.now() / 30_000) * 30_000 + 1000);

  beforeAll(async () => {
    inbox = await new TestInbox().start();
    if (name === 'postgres') db = await createTestDatabase(TEST_DATABASE_URL as string);
    server = await startTestServer(
      {
        DATABASE_URL: db?.url ?? 'memory:',
        TRUST_PROXY: '1',
        SMTP_URL: inbox.url,
        APP_URL: 'https://app.test',
      },
      { clock },
    );
    url = server.baseUrl;
  });
  afterAll(async () => {
    await server?.close();
    await db?.drop();
    await inbox?.stop();
  });

  let network = 0;
  const freshNetwork = () => {
    network += 1;
    return { 'x-forwarded-for': `10.77.${network % 250}.7` };
  };

  it('refuses codes for 15 minutes after 10 wrong answers from any network, emails the user once, keeps mfa_required', async () => {
    const email = uniqueEmail('lock');
    const reg = await api<TokenResponseJson>(url, '/auth/register', { body: { email, password: PASSWORD } });
    expect(reg.status).toBe(201);
    const { secret, recoveryCodes } = await enrolTotp(url, reg.body.accessToken, clock.now());
    const verify = (mfaToken: string, method: string, code: string, headers = {}) =>
      api(url, '/auth/mfa/verify', { body: { mfaToken, method, code }, headers });

    for (let i = 0; i < 10; i++) {
      const headers = freshNetwork();
      const r = await verify(await passwordStep(url, email, headers), 'totp', '000000', headers);
      expectProblem(r, 400, 'validation_failed');
    }
    clock.advance(30_000);
    const mfaToken = await passwordStep(url, email, freshNetwork());
    const locked = await verify(mfaToken, 'totp', totpCode(secret, clock.now()), freshNetwork());
    expectProblem(locked, 429, 'rate_limited');
    expect(Number(locked.headers.get('retry-after'))).toBe(870);
    expectProblem(await verify(mfaToken, 'recovery_code', recoveryCodes[0] as string), 429, 'rate_limited');

    // The verification email of the registration, then the lock's.
    await inbox.waitFor(email, 2);
    expect(inbox.to(email).filter((m) => m.subject === 'Someone knows your password')).toHaveLength(1);

    clock.advance(871_000);
    const ok = await verify(await passwordStep(url, email), 'totp', totpCode(secret, clock.now()));
    expect(ok.status).toBe(200);
  });

  it('refuses concurrent wrong codes beyond the 10 allowed: each is counted before it is checked', async () => {
    const email = uniqueEmail('burst');
    const reg = await api<TokenResponseJson>(url, '/auth/register', { body: { email, password: PASSWORD } });
    expect(reg.status).toBe(201);
    await enrolTotp(url, reg.body.accessToken, clock.now());
    const attempts = [];
    for (let i = 0; i < 15; i++) {
      const headers = freshNetwork();
      attempts.push({ headers, mfaToken: await passwordStep(url, email, headers) });
    }
    const answers = await Promise.all(
      attempts.map(({ headers, mfaToken }) =>
        api(url, '/auth/mfa/verify', { body: { mfaToken, method: 'totp', code: '000000' }, headers }),
      ),
    );
    expect(answers.filter((r) => r.status === 400)).toHaveLength(10);
    expect(answers.filter((r) => r.status === 429)).toHaveLength(5);
    clock.advance(900_000);
  });
});
