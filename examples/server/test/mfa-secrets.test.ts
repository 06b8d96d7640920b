/**
 * No TOTP secret, recovery code or mfaToken in a log line (at LOG_LEVEL=trace), an audit event, /metrics
 * or an error body, after every second-factor flow: enrolment, a login answered with a TOTP code and
 * with a recovery code, wrong codes, a used mfaToken, reauthentication, new recovery codes, removal.
 */
import { ManualClock } from 'tenant-auth-core/testing';
import type { TokenResponseJson } from 'tenant-auth-koa/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResponse, api, PASSWORD, uniqueEmail } from './helpers/http.js';
import { enrolTotp, type MfaProblem, totpCode } from './helpers/mfa.js';
import { startTestServer, type TestServer } from './helpers/test-server.js';

describe('second-factor secrets', () => {
  let server: TestServer;
  let url: string;
  const clock = new ManualClock(Math.floor(Date.now() / 30_000) * 30_000 + 1000);
  /** Every answer that was a problem, as the client received it. */
  const errorBodies: string[] = [];
  const secrets = new Set<string>();

  beforeAll(async () => {
    server = await startTestServer({ LOG_LEVEL: 'trace' }, { clock });
    url = server.baseUrl;
  });
  afterAll(() => server?.close());

  async function call<T>(path: string, options: Parameters<typeof api>[2] = {}): Promise<ApiResponse<T>> {
    const r = await api<T>(url, path, options);
    if (r.status >= 400) errorBodies.push(JSON.stringify(r.body));
    return r;
  }

  /** A recovery code, and the forms a careless normaliser would log. */
  function addRecoveryCode(code: string) {
    for (const form of [
      code,
      code.toUpperCase(),
      code.replaceAll('-', ''),
      code.replaceAll('-', '').toUpperCase(),
    ])
      secrets.add(form);
  }

  /** The `mfa_required` answer carries its mfaToken by contract: that one answer is not scanned. */
  async function mfaTokenOf(email: string): Promise<string> {
    const r = await api<MfaProblem>(url, '/auth/login', { body: { email, password: PASSWORD } });
    expect(r.body.code).toBe('mfa_required');
    secrets.add(r.body.mfaToken);
    return r.body.mfaToken;
  }

  /** Where each secret was found. */
  function leaks(where: string, texts: readonly string[]): string[] {
    const found: string[] = [];
    texts.forEach((text, i) => {
      for (const secret of secrets)
        if (text.includes(secret)) found.push(`${where}[${i}] holds ${secret.slice(0, 6)}…`);
    });
    return found;
  }

  it('are in no log line, audit event, metric or error body', async () => {
    const email = uniqueEmail('mfa-secrets');
    const reg = await call<TokenResponseJson>('/auth/register', { body: { email, password: PASSWORD } });
    const { secret, otpauthUri, recoveryCodes } = await enrolTotp(url, reg.body.accessToken, clock.now());
    secrets.add(secret);
    secrets.add(new URL(otpauthUri).searchParams.get('secret') as string);
    for (const code of recoveryCodes) addRecoveryCode(code);

    // Wrong codes (a wrong TOTP, a wrong recovery code), then the right ones.
    const first = await mfaTokenOf(email);
    expect(
      (await call('/auth/mfa/verify', { body: { mfaToken: first, method: 'totp', code: '123456' } })).status,
    ).toBe(400);
    expect(
      (
        await call('/auth/mfa/verify', {
          body: { mfaToken: first, method: 'recovery_code', code: 'aaaaa-bbbbb' },
        })
      ).status,
    ).toBe(400);
    clock.advance(30_000);
    const code = totpCode(secret, clock.now());
    secrets.add(`"${code}"`);
    const viaTotp = await call<TokenResponseJson>('/auth/mfa/verify', {
      body: { mfaToken: first, method: 'totp', code },
    });
    expect(viaTotp.status).toBe(200);
    // The used mfaToken, and the used code again.
    expect((await call('/auth/mfa/verify', { body: { mfaToken: first, method: 'totp', code } })).status).toBe(
      401,
    );
    const second = await mfaTokenOf(email);
    const viaRecovery = await call<TokenResponseJson>('/auth/mfa/verify', {
      body: { mfaToken: second, method: 'recovery_code', code: recoveryCodes[0] },
    });
    expect(viaRecovery.status).toBe(200);

    // Reauthentication with a wrong, then the right code; new recovery codes; removal.
    clock.advance(601_000);
    const token = viaRecovery.body.accessToken;
    expect(
      (
        await call('/auth/reauthenticate', {
          token,
          body: { password: PASSWORD, method: 'totp', code: '654321' },
        })
      ).status,
    ).toBe(400);
    const re = await call<TokenResponseJson>('/auth/reauthenticate', {
      token,
      body: { password: PASSWORD, method: 'recovery_code', code: recoveryCodes[1] },
    });
    expect(re.status).toBe(200);
    const fresh = await call<{ recoveryCodes: string[] }>('/auth/mfa/recovery-codes', {
      method: 'POST',
      token: re.body.accessToken,
    });
    for (const c of fresh.body.recoveryCodes) addRecoveryCode(c);
    // A setup of an active factor is refused (409), with no secret in the answer.
    expect((await call('/auth/mfa/totp/setup', { method: 'POST', token: re.body.accessToken })).status).toBe(
      409,
    );
    expect((await call('/auth/mfa/totp', { method: 'DELETE', token: re.body.accessToken })).status).toBe(204);

    const audit = await api<{ events: { type: string }[] }>(url, '/tenants/me/audit-events?limit=200', {
      token: re.body.accessToken,
    });
    expect(audit.status).toBe(200);
    expect(audit.body.events.map((e) => e.type)).toEqual(
      expect.arrayContaining([
        'mfa_enabled',
        'mfa_challenge_failed',
        'recovery_code_used',
        'reauthenticated',
        'recovery_codes_regenerated',
        'mfa_disabled',
      ]),
    );
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toMatch(/tenant_auth_mfa_verifications_total\{/);

    // The scan finds them where they belong (the answers that hand them out), so an empty result means something.
    expect(leaks('probe', [otpauthUri, JSON.stringify({ recoveryCodes, first, second })])).toHaveLength(
      3 + recoveryCodes.length,
    );
    expect(server.logs.length).toBeGreaterThan(20);
    expect(errorBodies.length).toBeGreaterThanOrEqual(5);
    expect([
      ...leaks('log', server.logs),
      ...leaks('audit', [JSON.stringify(audit.body)]),
      ...leaks('metrics', [metrics]),
      ...leaks('error', errorBodies),
    ]).toEqual([]);
  });
});
